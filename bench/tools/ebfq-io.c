// SPDX-License-Identifier: GPL-2.0
/*
 * ebfq-io: the measurements of the benchmark that fio cannot make.
 *
 *   ebfq-io replay TRACE TARGET
 *	Replay a recorded start-up: read every extent of TRACE from TARGET
 *	(a block device or a file) with O_DIRECT, one after the other, each
 *	issued only when the one before completed, as the page faults of a
 *	starting program are. Prints the elapsed time in seconds.
 *	TRACE lines are "SECTOR SECTORS" (512-byte units); '#' starts a
 *	comment.
 *
 *   ebfq-io time PROGRAM [ARG...]
 *	Run PROGRAM, wait for it, print the elapsed time in seconds; the
 *	exit status is PROGRAM's. Its output goes to /dev/null.
 *
 *   ebfq-io softrt TARGET CHUNK_KIB PERIOD_MS SECONDS
 *	A soft real-time reader: every PERIOD_MS read the next CHUNK_KIB of
 *	TARGET (O_DIRECT, sequential, wrapping at the end). A chunk that is
 *	not in by the start of the next period is late. Prints
 *	"chunks N late L worst_ms W io_worst_ms I wake_worst_ms K
 *	io_median_ms M wake_median_ms A io_late J gap_worst_ms G
 *	gap_total_ms T": besides the count, the worst lateness, the longest
 *	and the median read, the longest and the median time the reader took
 *	to start a read it was due to start (the CPU's share of a late chunk,
 *	not the device's), and the chunks whose read alone took longer than a
 *	period: late however promptly the reader had woken. A reader behind
 *	its schedule reads again as soon as a read completes; the time it
 *	still took to get there (the CPU it waited for, with no read in the
 *	device) is its gap: the longest, and their sum over the run.
 *
 *   ebfq-io shared N TARGET SECONDS
 *	N processes that share one io_context (clone with CLONE_IO, as
 *	io_uring's workers share their submitter's), so that the scheduler
 *	gives all of them one queue: each reads its own N-th of TARGET
 *	sequentially (64 KiB, O_DIRECT, wrapping) for SECONDS. Prints
 *	"pid P" for each as it starts (for a test to move them between
 *	cgroups), then "kib K" for each when all are done. Exit status 0
 *	only if every one read without error.
 *
 * Times come from CLOCK_MONOTONIC. Built static for the armhf guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/sched.h>

#define SECTOR_SIZE	512
/* O_DIRECT buffers and lengths: the logical block size of any disk here. */
#define IO_ALIGN	4096

static const char *prog = "ebfq-io";

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ull,
		.tv_nsec = ns % 1000000000ull,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A positive integer argument, or a clear error. */
static unsigned long arg_ulong(const char *what, const char *s,
			       unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max || s[0] == '-')
		die("%s must be a whole number from 1 to %lu, not '%s'", what,
		    max, s);
	return v;
}

static uint64_t target_size(int fd, const char *path)
{
	struct stat st;
	uint64_t size;

	if (fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size))
			die("%s: BLKGETSIZE64: %s", path, strerror(errno));
		return size;
	}
	if (!S_ISREG(st.st_mode))
		die("%s is neither a block device nor a file", path);
	return st.st_size;
}

static int open_direct(const char *path, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_DIRECT);

	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	*size = target_size(fd, path);
	return fd;
}

static void *io_buffer(size_t len)
{
	void *buf;

	if (posix_memalign(&buf, IO_ALIGN, len))
		die("out of memory for a %zu-byte buffer", len);
	memset(buf, 0, len);
	return buf;
}

/* Read @len bytes at @off, whole, or die. */
static void read_full(int fd, const char *path, void *buf, size_t len,
		      uint64_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("%s: read of %zu at %" PRIu64 ": %s", path, len, off,
			    strerror(errno));
		if (n == 0)
			die("%s: end of data at %" PRIu64, path, off);
		buf = (char *)buf + n;
		len -= n;
		off += n;
	}
}

struct extent {
	uint64_t off;
	size_t len;
};

/* Parse TRACE into extents aligned for O_DIRECT, within @size. */
static struct extent *load_trace(const char *path, uint64_t size,
				 size_t *nr, size_t *max_len)
{
	FILE *f = fopen(path, "r");
	struct extent *ext = NULL;
	size_t cap = 0, line_no = 0;
	char line[256];

	if (!f)
		die("%s: %s", path, strerror(errno));
	*nr = 0;
	*max_len = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long sector, sectors;
		uint64_t start, end;
		char *hash = strchr(line, '#');
		char extra;
		int got;

		line_no++;
		if (hash)
			*hash = '\0';
		got = sscanf(line, "%llu %llu %c", &sector, &sectors, &extra);
		if (got == EOF || got == 0) {
			if (strspn(line, " \t\r\n") != strlen(line))
				die("%s:%zu: not \"SECTOR SECTORS\"", path, line_no);
			continue;
		}
		if (got != 2 || sectors == 0 || sectors > (1u << 20))
			die("%s:%zu: not \"SECTOR SECTORS\"", path, line_no);
		/* Widen to the O_DIRECT alignment. */
		start = sector * SECTOR_SIZE / IO_ALIGN * IO_ALIGN;
		end = (sector + sectors) * SECTOR_SIZE;
		end = (end + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
		if (end > size)
			die("%s:%zu: extent ends at byte %" PRIu64
			    ", past the target's %" PRIu64, path, line_no, end,
			    size);
		if (*nr == cap) {
			cap = cap ? 2 * cap : 256;
			ext = realloc(ext, cap * sizeof(*ext));
			if (!ext)
				die("out of memory for %zu extents", cap);
		}
		ext[*nr].off = start;
		ext[*nr].len = end - start;
		if (ext[*nr].len > *max_len)
			*max_len = ext[*nr].len;
		(*nr)++;
	}
	if (ferror(f))
		die("%s: %s", path, strerror(errno));
	fclose(f);
	if (!*nr)
		die("%s: no extents", path);
	return ext;
}

static int cmd_replay(int argc, char **argv)
{
	struct extent *ext;
	size_t nr, max_len, i;
	uint64_t size, t0;
	void *buf;
	int fd;

	if (argc != 2)
		die("usage: replay TRACE TARGET");
	fd = open_direct(argv[1], &size);
	ext = load_trace(argv[0], size, &nr, &max_len);
	buf = io_buffer(max_len);

	t0 = now_ns();
	for (i = 0; i < nr; i++)
		read_full(fd, argv[1], buf, ext[i].len, ext[i].off);
	printf("%.6f\n", (now_ns() - t0) / 1e9);
	return 0;
}

static int cmd_time(int argc, char **argv)
{
	uint64_t t0;
	int status;
	pid_t pid;

	if (argc < 1)
		die("usage: time PROGRAM [ARG...]");
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	printf("%.6f\n", (now_ns() - t0) / 1e9);
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status) == 127)
			die("%s: could not be run", argv[0]);
		return WEXITSTATUS(status);
	}
	die("%s: killed by signal %d", argv[0], WTERMSIG(status));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n samples (sorted in place), 0 if there are none. */
static uint64_t median(uint64_t *v, unsigned long n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static int cmd_softrt(int argc, char **argv)
{
	unsigned long chunk, period_ms, secs, chunks, late = 0, i;
	uint64_t size, off = 0, period, t0, worst = 0, io_worst = 0;
	uint64_t wake_worst = 0, *io_ns, *wake_ns, prev_done = 0;
	uint64_t gap_worst = 0, gap_total = 0;
	unsigned long wakes = 0, io_late = 0;
	void *buf;
	int fd;

	if (argc != 4)
		die("usage: softrt TARGET CHUNK_KIB PERIOD_MS SECONDS");
	chunk = arg_ulong("CHUNK_KIB", argv[1], 64 * 1024) * 1024;
	period_ms = arg_ulong("PERIOD_MS", argv[2], 60 * 1000);
	secs = arg_ulong("SECONDS", argv[3], 24 * 3600);
	fd = open_direct(argv[0], &size);
	if (chunk % IO_ALIGN || size < chunk)
		die("%s: %" PRIu64 " bytes cannot hold a chunk of %lu", argv[0],
		    size, chunk);
	buf = io_buffer(chunk);
	period = period_ms * 1000000ull;
	chunks = secs * 1000 / period_ms;
	io_ns = calloc(chunks + 1, sizeof(*io_ns));
	wake_ns = calloc(chunks + 1, sizeof(*wake_ns));
	if (!io_ns || !wake_ns)
		die("out of memory for %lu samples", chunks);

	t0 = now_ns();
	for (i = 0; i < chunks; i++) {
		uint64_t due = t0 + i * period, start, done;

		sleep_until(due);
		start = now_ns();
		/* A reader behind its schedule starts at once: no wake-up. */
		if (start - due < period) {
			wake_ns[wakes++] = start - due;
			if (start - due > wake_worst)
				wake_worst = start - due;
		} else if (i) {
			uint64_t gap = start - (due > prev_done ? due : prev_done);

			gap_total += gap;
			if (gap > gap_worst)
				gap_worst = gap;
		}
		if (off + chunk > size)
			off = 0;
		read_full(fd, argv[0], buf, chunk, off);
		off += chunk;
		done = now_ns();
		prev_done = done;
		io_ns[i] = done - start;
		if (done - start > period)
			io_late++;
		if (done - start > io_worst)
			io_worst = done - start;
		if (done > due + period) {
			late++;
			if (done - due - period > worst)
				worst = done - due - period;
		}
	}
	printf("chunks %lu late %lu worst_ms %.1f io_worst_ms %.1f wake_worst_ms %.1f io_median_ms %.1f wake_median_ms %.1f io_late %lu gap_worst_ms %.1f gap_total_ms %.1f\n",
	       chunks, late, worst / 1e6, io_worst / 1e6, wake_worst / 1e6,
	       median(io_ns, chunks) / 1e6, median(wake_ns, wakes) / 1e6,
	       io_late, gap_worst / 1e6, gap_total / 1e6);
	return 0;
}

/* One process of "shared": read [start, start + len) until @end_ns. */
static void __attribute__((noreturn))
shared_reader(const char *path, uint64_t start, uint64_t len,
	      uint64_t end_ns, int out)
{
	const size_t chunk = 64 * 1024;
	uint64_t off = 0, kib = 0, size;
	void *buf = io_buffer(chunk);
	int fd = open_direct(path, &size);

	while (now_ns() < end_ns) {
		if (off + chunk > len)
			off = 0;
		read_full(fd, path, buf, chunk, start + off);
		off += chunk;
		kib += chunk / 1024;
	}
	if (write(out, &kib, sizeof(kib)) != sizeof(kib))
		die("shared: cannot report to the parent: %s", strerror(errno));
	_exit(0);
}

static int cmd_shared(int argc, char **argv)
{
	unsigned long n, secs, i, done = 0;
	uint64_t size, part, end_ns, kib;
	int fd, pipes[2], status, failed = 0;
	void *buf;
	pid_t *pids;

	if (argc != 3)
		die("usage: shared N TARGET SECONDS");
	n = arg_ulong("N", argv[0], 64);
	secs = arg_ulong("SECONDS", argv[2], 24 * 3600);
	fd = open_direct(argv[1], &size);
	part = size / n / (64 * 1024) * (64 * 1024);
	if (!part)
		die("%s: %" PRIu64 " bytes cannot give %lu readers 64 KiB each",
		    argv[1], size, n);
	/*
	 * A read through the scheduler gives this process its io_context,
	 * which CLONE_IO then shares: without one, each child would get its
	 * own.
	 */
	buf = io_buffer(IO_ALIGN);
	read_full(fd, argv[1], buf, IO_ALIGN, 0);
	close(fd);
	pids = calloc(n, sizeof(*pids));
	if (!pids || pipe(pipes))
		die("shared: %s", strerror(errno ? errno : ENOMEM));
	end_ns = now_ns() + secs * 1000000000ull;
	fflush(stdout);
	for (i = 0; i < n; i++) {
		/* fork(), but sharing the io_context. */
		long pid = syscall(SYS_clone, CLONE_IO | SIGCHLD, 0, NULL, NULL, 0);

		if (pid < 0)
			die("shared: clone: %s", strerror(errno));
		if (!pid) {
			close(pipes[0]);
			shared_reader(argv[1], i * part, part, end_ns, pipes[1]);
		}
		pids[i] = pid;
		printf("pid %ld\n", pid);
		fflush(stdout);
	}
	close(pipes[1]);
	for (i = 0; i < n; i++) {
		if (waitpid(pids[i], &status, 0) < 0)
			die("shared: waitpid: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	while (read(pipes[0], &kib, sizeof(kib)) == sizeof(kib)) {
		printf("kib %" PRIu64 "\n", kib);
		done++;
	}
	if (done != n)
		failed = 1;
	return failed;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: ebfq-io replay|time|softrt|shared ...");
	if (!strcmp(argv[1], "replay"))
		return cmd_replay(argc - 2, argv + 2);
	if (!strcmp(argv[1], "time"))
		return cmd_time(argc - 2, argv + 2);
	if (!strcmp(argv[1], "softrt"))
		return cmd_softrt(argc - 2, argv + 2);
	if (!strcmp(argv[1], "shared"))
		return cmd_shared(argc - 2, argv + 2);
	die("unknown command '%s' (replay, time, softrt, shared)", argv[1]);
}
