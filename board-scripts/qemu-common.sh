# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by the board launchers (sourced, bash). A launcher sets BOARD,
# BOARD_DRIVES (the disk names it takes) and defines board_args, which adds
# the machine's own options to the qemu array; everything else is here so
# the command line is written once.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$top/build}

die() {
	printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2
	exit 2
}

usage() {
	cat <<USAGE
usage: $(basename "$0") [options]
Boot the $BOARD board in qemu-system-arm.
  --kernel FILE     zImage (default: build/kernel-test/arch/arm/boot/zImage)
  --initrd FILE     initramfs (default: build/rootfs/initramfs.cpio); 'none'
                    boots without one, as a board whose root is on a disk
                    (--append must then name it: root=/dev/mmcblk0p2 rootwait)
  --dtb FILE        device tree (vexpress only; default: the kernel build's
                    dts/vexpress-v2p-ca9-qemu.dtb)
  --bios FILE       boot this firmware (U-Boot) instead of --kernel and
                    --initrd: it loads the kernel from a disk, with the
                    command line the disk's boot script gives (no --append).
                    A boot that ends at the firmware's prompt ('=> ', its
                    boot flow failed) is ended at once, exit status 126
  --dumpdtb FILE    write the device tree QEMU makes for the board (and
                    --bios, if given) and exit
  --disk NAME=IMG   attach IMG as drive NAME (one of: $BOARD_DRIVES)
  --profile NAME    device profile from board-scripts/profiles (default: none)
  --append ARGS     extra kernel command line
  --result FILE     file behind the virtio-serial port 'ebfq.result'
  --log FILE        console log (default: build/logs/$BOARD-console.log)
  --timeout SEC     hard limit on the whole boot (default: 1800)
  --stall SEC       end the boot when neither the console nor the result
                    file has grown for SEC seconds, after saving QEMU's
                    threads to LOG.stall (default: 0, never); such a
                    boot also wakes QEMU's main loop 10 times a second
                    (nudge_main_loop, below)
  --smp N --mem MB  vCPUs (default 1) and memory (default 512)
  --interactive     console on this terminal (Ctrl-A X quits)
  --print           print the qemu command line and exit
USAGE
}

kernel=$BUILD/kernel-test/arch/arm/boot/zImage
initrd=$BUILD/rootfs/initramfs.cpio
bios=
dumpdtb=
profile=none
append=
result=
log=
timeout=1800
stall=0
smp=1
mem=512
interactive=0
print=0
declare -A disks=()

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=${2:?}; shift ;;
		--initrd) initrd=${2:?}; shift ;;
		--dtb) dtb=${2:?}; shift ;;
		--bios) bios=${2:?}; shift ;;
		--dumpdtb) dumpdtb=${2:?}; shift ;;
		--disk)
			local name=${2%%=*} img=${2#*=}
			[ "$name" != "$2" ] || die "--disk wants NAME=IMAGE, got '$2'"
			case " $BOARD_DRIVES " in *" $name "*) ;; *)
				die "$BOARD has no drive '$name' (drives: $BOARD_DRIVES)" ;;
			esac
			[ -f "$img" ] || die "disk image '$img' does not exist"
			disks[$name]=$img
			shift
			;;
		--profile) profile=${2:?}; shift ;;
		--append) append=${2?}; shift ;;
		--result) result=${2:?}; shift ;;
		--log) log=${2:?}; shift ;;
		--timeout) timeout=${2:?}; shift ;;
		--stall) stall=${2:?}; shift ;;
		--smp) smp=${2:?}; shift ;;
		--mem) mem=${2:?}; shift ;;
		--interactive) interactive=1 ;;
		--print) print=1 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
		shift
	done
	if [ -n "$bios" ]; then
		[ -f "$bios" ] || die "firmware '$bios' does not exist (U-Boot: apt-get install u-boot-qemu)"
		[ -z "$append" ] || die "--append does not reach a kernel that --bios boots: the disk's boot script sets the command line"
	elif [ -z "$dumpdtb" ]; then
		[ -f "$kernel" ] || die "kernel '$kernel' does not exist (make kernel)"
		if [ "$initrd" = none ]; then
			case " $append " in *" root="*) ;; *)
				die "--initrd none: the kernel needs its root in --append (root=/dev/mmcblk0p2 rootwait)" ;;
			esac
		else
			[ -f "$initrd" ] || die "initramfs '$initrd' does not exist (make rootfs)"
		fi
	fi
	case $timeout in '' | *[!0-9]*) die "--timeout wants seconds, got '$timeout'" ;; esac
	case $stall in '' | *[!0-9]*) die "--stall wants seconds, got '$stall'" ;; esac
	load_profile "$profile"
}

# load_profile NAME: read board-scripts/profiles/NAME.profile into the
# throttling options of the drives it names, and the kernel arguments
# (KERNEL_ARGS) that drive the emulated controller as the profile needs.
load_profile() {
	local f=$top/board-scripts/profiles/$1.profile
	if [ ! -f "$f" ]; then
		die "no device profile '$1' (have: $(cd "$top/board-scripts/profiles" && ls ./*.profile | sed 's|\./||; s|\.profile||' | tr '\n' ' '))"
	fi
	PROFILE_BOARDS= PROFILE_DRIVES= READ_BPS= WRITE_BPS= READ_IOPS= WRITE_IOPS= QUEUE_DEPTH=
	TOTAL_BPS= TOTAL_IOPS= KERNEL_ARGS= DRIVE_CACHE=
	# shellcheck disable=SC1090
	. "$f"
	case " $PROFILE_BOARDS " in *" $BOARD "*) ;; *)
		die "profile '$1' is for ${PROFILE_BOARDS:-no board}, not $BOARD" ;;
	esac
	# QEMU refuses a total limit beside a read or write limit of its kind.
	if [ -n "$TOTAL_BPS" ] && [ -n "$READ_BPS$WRITE_BPS" ]; then
		die "profile '$1' sets TOTAL_BPS and READ_BPS/WRITE_BPS: one or the other"
	fi
	if [ -n "$TOTAL_IOPS" ] && [ -n "$READ_IOPS$WRITE_IOPS" ]; then
		die "profile '$1' sets TOTAL_IOPS and READ_IOPS/WRITE_IOPS: one or the other"
	fi
	case $DRIVE_CACHE in '' | none | writeback) ;; *)
		die "profile '$1': DRIVE_CACHE is none or writeback, not '$DRIVE_CACHE'" ;;
	esac
	if [ -n "$bios" ] && [ -n "$KERNEL_ARGS" ]; then
		die "profile '$1' has KERNEL_ARGS, which do not reach a kernel that --bios boots"
	fi
}

# drive_opts NAME: the -drive options of one disk, throttled when the
# profile shapes that drive. cache=none keeps the host page cache from
# hiding the device; a profile whose throttle sets the device's rates may
# ask for the host cache instead (DRIVE_CACHE, see sd-uhs.profile).
drive_opts() {
	local name=$1 cache=none shape=""
	case " $PROFILE_DRIVES " in *" $name "*)
		cache=${DRIVE_CACHE:-none}
		[ -z "$READ_BPS" ] || shape+=",throttling.bps-read=$READ_BPS"
		[ -z "$WRITE_BPS" ] || shape+=",throttling.bps-write=$WRITE_BPS"
		[ -z "$READ_IOPS" ] || shape+=",throttling.iops-read=$READ_IOPS"
		[ -z "$WRITE_IOPS" ] || shape+=",throttling.iops-write=$WRITE_IOPS"
		[ -z "$TOTAL_BPS" ] || shape+=",throttling.bps-total=$TOTAL_BPS"
		[ -z "$TOTAL_IOPS" ] || shape+=",throttling.iops-total=$TOTAL_IOPS"
		;;
	esac
	printf '%s\n' "if=none,id=$name,file=${disks[$name]},format=raw,cache=$cache,aio=threads$shape"
}

run_qemu() {
	local cmdline="console=ttyAMA0 panic=-1 panic_on_warn=1 ${append}${KERNEL_ARGS:+ $KERNEL_ARGS}"
	qemu=(qemu-system-arm -nodefaults -no-reboot -smp "$smp" -m "$mem")
	if [ -n "$dumpdtb" ]; then
		# The tree depends on the firmware: with --bios, QEMU leaves PSCI
		# to it and the tree has no psci node.
		[ -z "$bios" ] || qemu+=(-bios "$bios")
		board_args
		qemu+=(-machine "dumpdtb=$dumpdtb" -display none)
		"${qemu[@]}" >/dev/null 2>&1 || die "QEMU could not dump the device tree to '$dumpdtb'"
		return 0
	fi
	if [ -n "$bios" ]; then
		qemu+=(-bios "$bios")
		board_args
	else
		qemu+=(-kernel "$kernel")
		[ "$initrd" = none ] || qemu+=(-initrd "$initrd")
		board_args
		qemu+=(-append "$cmdline")
	fi
	if [ -n "$result" ]; then
		: >"$result"
		qemu+=(-device virtio-serial-device
			-chardev "file,id=result,path=$result"
			-device "virtserialport,chardev=result,name=ebfq.result")
	fi
	# A boot watched for stalls has a monitor socket, for watch_stall;
	# it and an interactive boot have a second one that nudge_main_loop
	# writes to.
	local mon="" wake=""
	if [ "$interactive" = 1 ]; then
		wake=$(mktemp -u "${TMPDIR:-/tmp}/ebfq-wake.XXXXXX")
		qemu+=(-nographic -serial mon:stdio
			-chardev "socket,id=wake,path=$wake,server=on,wait=off"
			-mon "chardev=wake,mode=readline")
	elif [ "$stall" != 0 ] && [ "$print" = 0 ] && [ -z "$dumpdtb" ]; then
		mon=$(mktemp -u "${TMPDIR:-/tmp}/ebfq-mon.XXXXXX")
		wake=$mon.wake
		qemu+=(-display none -monitor "unix:$mon,server=on,wait=off"
			-chardev "socket,id=wake,path=$wake,server=on,wait=off"
			-mon "chardev=wake,mode=readline" -serial stdio)
	else
		qemu+=(-display none -monitor none -serial stdio)
	fi
	if [ "$print" = 1 ]; then
		local a
		for a in "${qemu[@]}"; do
			case $a in *[[:space:]]*) printf "'%s' " "$a" ;; *) printf '%s ' "$a" ;; esac
		done
		echo
		return 0
	fi
	if [ "$interactive" = 1 ]; then
		# QEMU takes this shell's PID.
		{
			nudge_main_loop $$ "$wake"
			rm -f "$wake"
		} </dev/null &
		exec "${qemu[@]}"
	fi
	log=${log:-$BUILD/logs/$BOARD-console.log}
	mkdir -p "$(dirname "$log")"
	# The hard timeout covers the whole boot; a hang ends as exit 124.
	if [ "$stall" = 0 ] && [ -z "$bios" ]; then
		timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$log" 2>&1
		return
	fi
	rm -f "$log.stall" "$log.prompt"
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null >"$log" 2>&1 &
	local tpid=$! rc=0 wpid="" ppid="" npid=""
	if [ "$stall" != 0 ]; then
		watch_stall "$tpid" "$mon" &
		wpid=$!
	fi
	if [ -n "$wake" ]; then
		nudge_main_loop "$tpid" "$wake" &
		npid=$!
	fi
	if [ -n "$bios" ]; then
		watch_prompt "$tpid" &
		ppid=$!
	fi
	wait "$tpid" || rc=$?
	for p in $wpid $ppid $npid; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -z "$mon" ] || rm -f "$mon" "$wake"
	if [ -e "$log.stall" ]; then
		return 125
	elif [ -e "$log.prompt" ]; then
		return 126
	fi
	return "$rc"
}

# qemu_of PID: the QEMU process that timeout(1) PID runs (field 4 of stat
# is the parent).
qemu_of() {
	awk -v p="$1" '$4 == p { print $1; exit }' /proc/[0-9]*/stat 2>/dev/null || true
}

# watch_prompt PID: U-Boot ends at its prompt when its boot flow failed
# (no boot script, a bad one, no kernel): with no one at the console that
# is a hang. When the console log ends with the prompt and has not grown
# for 5 s, note it in $log.prompt and end QEMU; run_qemu returns 126.
watch_prompt() {
	local tpid=$1 qpid last=-1 size
	while kill -0 "$tpid" 2>/dev/null; do
		sleep 5
		size=$(stat -c %s "$log" 2>/dev/null || echo 0)
		if [ "$size" = "$last" ] && [ "$(tail -c 3 "$log")" = "=> " ]; then
			echo "the boot loader gave up at its prompt" >"$log.prompt"
			qpid=$(qemu_of "$tpid")
			[ -z "$qpid" ] || kill -TERM "$qpid" 2>/dev/null
			return 0
		fi
		last=$size
	done
}

# watch_stall PID MONITOR: PID is timeout(1) running QEMU, MONITOR its
# monitor socket. When neither the console log nor the result file grew
# for $stall seconds, the guest is stuck so deep that its own watchdogs
# (hung task, the test runner's) could not speak: save what QEMU's threads
# are doing to $log.stall (their kernel state and wait channel, their
# stacks when gdb is installed, and the guest CPU's registers), then end
# the boot; run_qemu returns 125.
watch_stall() {
	local tpid=$1 mon=$2 qpid="" last=-1 size quiet=0 t
	while kill -0 "$tpid" 2>/dev/null; do
		sleep 5
		[ -n "$qpid" ] || qpid=$(qemu_of "$tpid")
		size=$(($(stat -c %s "$log" 2>/dev/null || echo 0) + $(stat -c %s "${result:-/dev/null}" 2>/dev/null || echo 0)))
		if [ "$size" != "$last" ]; then
			last=$size quiet=0
			continue
		fi
		quiet=$((quiet + 5))
		[ "$quiet" -ge "$stall" ] || continue
		{
			echo "no console or result output for ${quiet}s; QEMU pid ${qpid:-?}"
			if [ -n "$qpid" ]; then
				echo "CPU ticks (utime stime): $(cut -d' ' -f14,15 "/proc/$qpid/stat")"
				for t in /proc/"$qpid"/task/*; do
					echo "thread ${t##*/} $(cat "$t/comm") state $(cut -d' ' -f3 "$t/stat") wchan $(cat "$t/wchan")"
				done
				if command -v gdb >/dev/null; then
					timeout 60 gdb -batch -p "$qpid" -ex 'thread apply all bt' 2>&1 | grep -v '^\[New LWP'
				fi
			fi
			# Where the guest is: a guest that spins with its timer
			# interrupt lost shows the same PC again and again.
			if [ -n "$mon" ] && [ -S "$mon" ] && command -v socat >/dev/null; then
				echo "guest registers, 5 samples 1 s apart (arm: R15 is the PC, R14 the LR; look them up in the kernel's System.map):"
				for t in 1 2 3 4 5; do
					printf 'info registers\n' | timeout 10 socat - "UNIX-CONNECT:$mon" 2>/dev/null |
						grep -E '^(R12|PSR)=' || true
					sleep 1
				done
			fi
		} >"$log.stall.tmp" 2>&1 || true
		mv "$log.stall.tmp" "$log.stall"
		[ -z "$qpid" ] || kill -KILL "$qpid" 2>/dev/null
		return 0
	done
}

# nudge_main_loop PID SOCKET: while PID (timeout(1) running QEMU) lives,
# write an empty line to the idle HMP monitor on SOCKET every
# $nudge_period seconds, which wakes QEMU's main loop and does nothing
# else. QEMU 7.2's main loop can miss the guest timer's new deadline and
# sleep with none: the SD card model reads and writes synchronously from
# the vCPU thread, polling the main loop's event notifier, and can
# consume the wake-up meant for the main loop. Until some other event
# wakes it, the guest then gets no timer interrupt: a halted guest stays
# halted (005 on the virt board's mmcblk0: "rcu_sched kthread timer
# wakeup didn't happen for 5195 jiffies"), and a busy one runs on with
# its clock stopped, for minutes under buffered writers on sd-uhs
# ("soft lockup - CPU#0 stuck for 339s!", 5 boots of 5 on 2026-12-06,
# with the vCPU busy in the SD host driver). Nudged, a lost timer
# interrupt comes at most $nudge_period s late; a wake of a main loop
# that had nothing to do costs QEMU a few microseconds.
nudge_period=0.1
nudge_main_loop() {
	local tpid=$1 sock=$2
	command -v socat >/dev/null || return 0
	# QEMU makes the socket as it starts.
	while [ ! -S "$sock" ]; do
		kill -0 "$tpid" 2>/dev/null || return 0
		sleep 0.1
	done
	while kill -0 "$tpid" 2>/dev/null; do
		echo
		sleep "$nudge_period"
	done | socat - "UNIX-CONNECT:$sock" >/dev/null 2>&1 || true
}
