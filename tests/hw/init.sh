#!/bin/busybox sh
# /init of the arm64 test initramfs: runs the hardware check with user
# access on (and, when asked, off), then powers off.
/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
arg() { sed -n "s/.*upmc_$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
echo "=== $(dmesg | grep -m1 'hw perfevents')"
echo 1 > /proc/sys/kernel/perf_user_access
echo 1 > /proc/sys/debug/exception-trace # a crash's pc in dmesg
if [ "$(arg layout)" = 1 ]; then
	echo "=== hwcheck layout"
	/hwcheck --layout-rows
	echo "=== hwcheck layout exit=$?"
	poweroff -f
fi
echo "=== hwcheck user"
/hwcheck --expect user --width "$(arg width)" $( [ "$(arg wrap)" = 1 ] && echo --wrap )
echo "=== hwcheck user exit=$?"
if [ "$(arg cli)" = 1 ]; then
	echo "=== upmc info"; /upmc info
	echo "=== upmc stat"; /upmc stat -e cycles,instructions,branches,branch-misses,task-clock -- /bin/busybox true
	echo "=== upmc bench"; /upmc bench --repeats 31
	rc=$?
	echo "=== upmc bench exit=$rc"
	# A crash: the kernel's line of it (pc, lr), for run-arm64.sh's addr2line.
	[ "$rc" -lt 128 ] || dmesg | grep -A6 'unhandled' | sed 's/^/=== dmesg: /'
	echo "=== upmc stat -M"; /upmc stat -M IPC,branch-miss-ratio -- /bin/busybox true
	echo "=== upmc stat -M exit=$?"
	echo "=== upmc stat --rotate"; /upmc stat --rotate -r 2 -M IPC,branch-miss-ratio -- /bin/busybox true
	echo "=== upmc stat --rotate exit=$?"
fi
if [ "$(arg denied)" = 1 ]; then
	echo 0 > /proc/sys/kernel/perf_user_access
	echo "=== hwcheck denied"
	/hwcheck --expect syscall
	echo "=== hwcheck denied exit=$?"
fi
poweroff -f
