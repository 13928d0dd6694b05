# none: no throttling. The device runs as fast as QEMU emulates it.
# For functional tests, where only correctness matters.
PROFILE_DESC="unthrottled (QEMU's own speed)"
PROFILE_BOARDS="vexpress virt"
PROFILE_DRIVES=""
