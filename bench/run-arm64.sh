#!/bin/bash
# The benchmark and the CLI on a real arm64 kernel with a PMU: Debian's
# arm64 kernel under qemu-system-aarch64 (TCG, an emulated PMUv3,
# -icount shift=0: exact instruction counts, one virtual ns per
# instruction). The development machines have no PMU; here the hardware
# cases of the benchmark run, and the "+10 instructions" target is checked
# in instructions. The ns are the emulator's virtual time: only the
# instruction counts and the verdicts built on them mean anything.
#
#   bench/run-arm64.sh [--repeats N]     # as root, Debian 12; about a minute
#
# Uses the packages tests/hw/run-arm64.sh caches ($UPMC_HW_CACHE), fetching
# them with `apt-get download` if missing; installs nothing arm64.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${UPMC_HW_CACHE:-/var/cache/upmc-hw}
repeats=${2:-31}
[ "${1:-}" = "--repeats" ] || repeats=31
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log() { echo "[bench-arm64 $(date +%T)] $*" >&2; }

host_tools() {
	local p missing=()
	for p in qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio gzip; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get \
		-o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" >&2
}

fetch_debs() {
	local apt=(apt-get -o APT::Architecture=arm64 -o APT::Architectures=arm64
		-o Dir::State::Lists="$cache/lists" -o Dir::State::Status=/dev/null)
	mkdir -p "$cache/lists/partial" "$cache/debs"
	ls "$cache/lists/"*Packages* >/dev/null 2>&1 || "${apt[@]}" -q update >&2
	kernel=$(apt-cache -o APT::Architecture=arm64 -o APT::Architectures=arm64 \
		-o Dir::State::Lists="$cache/lists" -o Dir::State::Status=/dev/null \
		depends linux-image-cloud-arm64 | awk '/Depends: linux-image-/ {print $2; exit}')
	ls "$cache/debs/${kernel}"_*.deb >/dev/null 2>&1 ||
		(cd "$cache/debs" && "${apt[@]}" -q download "$kernel" >&2)
	ls "$cache/debs"/busybox-static_*.deb >/dev/null 2>&1 ||
		(cd "$cache/debs" && "${apt[@]}" -q download busybox-static >&2)
}

# The CLI (its bench is //bench:overhead's code), static, and an initramfs.
build() {
	mkdir -p "$work/rootfs/dev" "$work/rootfs/bin"
	aarch64-linux-gnu-gcc -O2 -static -std=c11 -Wall -Wextra -Werror -fvisibility=hidden \
		-I"$repo" -I"$repo/lib/include" -I"$repo/arch/arm64" -o "$work/rootfs/upmc" \
		"$repo"/tools/*.c "$repo"/bench/cases.c "$repo"/bench/overhead.c \
		"$repo"/bench/report.c "$repo"/lib/*.c "$repo"/os/linux/perf.c \
		"$repo"/os/linux/probe.c -lm
	dpkg -x "$(ls "$cache/debs/${kernel}"_*.deb)" "$work/kernel"
	dpkg -x "$(ls "$cache"/debs/busybox-static_*.deb)" "$work/busybox"
	cp "$work/busybox/bin/busybox" "$work/rootfs/bin/busybox"
	cat > "$work/rootfs/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc 2>/dev/null || { mkdir -p /proc /sys; mount -t proc proc /proc; }
mount -t sysfs sysfs /sys
echo 1 > /proc/sys/kernel/perf_user_access
echo "=== upmc info"; /upmc info
echo "=== upmc stat"; /upmc stat -e cycles,instructions,branches,branch-misses,task-clock -- /bin/busybox true
echo "=== upmc bench"; /upmc bench --repeats $repeats
echo "=== upmc bench exit=\$?"
poweroff -f
INIT
	chmod 755 "$work/rootfs/init" "$work/rootfs/upmc"
	mknod "$work/rootfs/dev/console" c 5 1
	(cd "$work/rootfs" && find . | cpio -o -H newc --owner=0:0 2>/dev/null | gzip -1) \
		> "$work/initrd.gz"
}

log "host tools"
host_tools
log "arm64 kernel and busybox"
fetch_debs
log "cross build ($kernel)"
build
log "boot (-cpu max)"
timeout 600 qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp 1 -m 512 -nographic \
	-no-reboot -net none -icount shift=0 \
	-kernel "$(ls "$work"/kernel/boot/vmlinuz-*)" -initrd "$work/initrd.gz" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 quiet" </dev/null |
	tr -d '\r' | sed -n '/^=== upmc info/,$p' | tee "$work/out.txt"

# Verdicts, one line each (.ci/run counts them): the emulated PMU allows
# every user-space read, so no case may be skipped there.
verdict() {
	if grep -q "$2" "$work/out.txt"; then echo "PASS bench-arm64/$1"; else echo "FAIL bench-arm64/$1"; fi
}
{
	verdict info-user-read '^  2 counters, user-space mrs$'
	verdict stat-counts '^ *[0-9,][0-9,]*      instructions  '
	verdict bench-ran '^=== upmc bench exit=0'
	if grep -q '  skipped \[' "$work/out.txt"; then
		echo "FAIL bench-arm64/no-case-skipped"
	else
		echo "PASS bench-arm64/no-case-skipped"
	fi
} | tee "$work/verdicts.txt"
! grep -q '^FAIL' "$work/verdicts.txt"
