#!/bin/bash
# The user-space read path on a real arm64 kernel: boots Debian's arm64
# kernel under qemu-system-aarch64 (TCG, an emulated PMUv3, exact
# instruction counts) and runs tests/hw/hwcheck.c there, then the `upmc`
# CLI (info, stat, and the overhead benchmark, whose hardware cases need a
# PMU; its ns are the emulator's virtual time: one ns per instruction).
#
#   tests/hw/run-arm64.sh            # from a fresh Debian 12 machine, as root
#   UPMC_HW_LAYOUT=1 tests/hw/run-arm64.sh   # only the reads beside their layout's floor
#
# Installs the host tools, fetches the kernel and busybox with `apt-get
# download` (cached in $UPMC_HW_CACHE, never installed), cross-builds the
# library and the check statically, boots two CPU models, and prints one
# line per check: PASS/FAIL/SKIP arm64-<config>-<mode>/<check>, plus the
# FIGURE lines. Exit status 0 when nothing failed.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${UPMC_HW_CACHE:-/var/cache/upmc-hw}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log() { echo "[run-arm64 $(date +%T)] $*" >&2; }
# shellcheck source=tools/ci-lib.sh
. "$repo/tools/ci-lib.sh" # in_parallel; apt_install is this script's own, below

apt_install() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		--no-install-recommends "${missing[@]}" >&2
}

fetch_arm64_debs() {
	# A private arm64 package list: the host's dpkg is not changed.
	local apt=(apt-get -o APT::Architecture=arm64 -o APT::Architectures=arm64
		-o Dir::State::Lists="$cache/lists" -o Dir::State::Status=/dev/null)
	mkdir -p "$cache/lists/partial" "$cache/debs"
	chmod 777 "$cache/debs"
	if [ -z "$(find "$cache/lists" -maxdepth 1 -name '*Packages*' -mmin -1440)" ]; then
		"${apt[@]}" -q update >&2
	fi
	kernel=$(apt-cache -o APT::Architecture=arm64 -o APT::Architectures=arm64 \
		-o Dir::State::Lists="$cache/lists" -o Dir::State::Status=/dev/null \
		depends linux-image-cloud-arm64 | awk '/Depends: linux-image-/ {print $2; exit}')
	ls "$cache/debs/${kernel}"_*.deb >/dev/null 2>&1 ||
		(cd "$cache/debs" && "${apt[@]}" -q download "$kernel" >&2)
	ls "$cache/debs"/busybox-static_*.deb >/dev/null 2>&1 ||
		(cd "$cache/debs" && "${apt[@]}" -q download busybox-static >&2)
}

# objects SOURCE...: their objects' paths (a source's path in the
# repository, "/" as "-", in $work/obj).
objects() {
	local src
	for src in "$@"; do
		src=${src#"$repo"/}
		echo "$work/obj/${src//\//-}.o"
	done
}

# compile_one SOURCE: its object, with build()'s ${cc[@]}.
compile_one() {
	"${cc[@]}" -c "$1" -o "$(objects "$1")"
}

build() {
	local cc=(aarch64-linux-gnu-gcc -O2 -static -std=c11 -Wall -Wextra -Werror
		-fvisibility=hidden -I"$repo" -I"$repo/lib/include" -I"$repo/arch/arm64"
		-I"$repo/arch/x86" -I"$repo/arch/generic")
	local lib=("$repo"/lib/{core,measure,zone}/*.c "$repo"/os/linux/*.c
		"$repo"/os/portable/{file,thread}.c)
	local check=("$repo/tests/hw/hwcheck.c" "$repo/tests/seccomp_trap.c")
	local cli=("$repo"/cli/*.c "$repo"/bench/{cases,json,overhead,report,zones}.c)
	# UPMC_HW_LAYOUT=1 runs the layout rows alone: no CLI to build.
	[ -z "${UPMC_HW_LAYOUT:-}" ] || cli=()
	mkdir -p "$work/rootfs/dev" "$work/obj"
	# Each source compiled once (the library's objects go into both
	# programs), as many at a time as there are CPUs; hwcheck.c, the
	# longest, first.
	in_parallel compile_one "${check[@]}" "${lib[@]}" "${cli[@]}" &&
		"${cc[@]}" -o "$work/rootfs/hwcheck" $(objects "${check[@]}" "${lib[@]}") -lpthread ||
		return 1
	[ -n "${UPMC_HW_LAYOUT:-}" ] ||
		"${cc[@]}" -o "$work/rootfs/upmc" $(objects "${cli[@]}" "${lib[@]}") -lpthread -lm ||
		return 1
	dpkg -x "$(ls "$cache/debs/${kernel}"_*.deb)" "$work/kernel"
	dpkg -x "$(ls "$cache"/debs/busybox-static_*.deb)" "$work/busybox"
	mkdir -p "$work/rootfs/bin"
	cp "$work/busybox/bin/busybox" "$work/rootfs/bin/busybox"
	cp "$repo/tests/hw/init.sh" "$work/rootfs/init"
	chmod 755 "$work/rootfs/init" "$work/rootfs/hwcheck"
	mknod "$work/rootfs/dev/console" c 5 1
	(cd "$work/rootfs" && find . | cpio -o -H newc --owner=0:0 2>/dev/null | gzip -1) \
		> "$work/initrd.gz"
}

# boot NAME CPU ARGS: one boot; its verdict lines, prefixed with NAME.
boot() {
	local name=$1 cpu=$2 args=$3 start=$SECONDS
	timeout 300 qemu-system-aarch64 -M virt -cpu "$cpu" -smp 1 -m 2048 -nographic \
		-no-reboot -net none -icount shift=0 \
		-kernel "$(ls "$work"/kernel/boot/vmlinuz-*)" -initrd "$work/initrd.gz" \
		-append "console=ttyAMA0 rdinit=/init panic=-1 quiet $args" \
		</dev/null > "$work/$name.log" 2>&1 || true
	tr -d '\r' < "$work/$name.log" > "$work/$name.txt"
	log "$name: $((SECONDS - start)) s; $(grep -m1 'hw perfevents' "$work/$name.txt" || echo 'no PMU line')"
	awk -v cfg="$name" '
		/^=== hwcheck [a-z]+$/ { mode = $3; done[mode] = 0; next }
		/^=== hwcheck [a-z]+ exit=/ { sub(/.*exit=/, ""); done[mode] = 1; mode = ""; next }
		mode != "" && /^(PASS|FAIL|SKIP) / {
			v = $1; sub(/^[A-Z]+ /, ""); print v " arm64-" cfg "-" mode "/" $0; next }
		mode != "" && /^FIGURE / { sub(/^FIGURE /, ""); print "FIGURE arm64-" cfg ": " $0 }
		END { for (m in done) if (!done[m]) print "FAIL arm64-" cfg "-" m "/finished: no exit line (crash or timeout)" }
	' "$work/$name.txt"
	grep -Eq '=== hwcheck (user|layout)' "$work/$name.txt" ||
		{ echo "FAIL arm64-$name/boot: the check never ran"; tail -20 "$work/$name.txt" >&2; }
	case $args in *upmc_cli=1*) cli_verdicts "$name" "$work/$name.txt" ;; esac
	layout_missed "$work/$name.txt"
	cost_missed "$work/$name.txt"
}

# disassemble FUNCTION: its disassembly in the check's binary, to stderr.
disassemble() {
	echo "--- $1" >&2
	aarch64-linux-gnu-objdump -d --no-show-raw-insn --disassemble="$1" \
		"$work/rootfs/hwcheck" | sed -n '/^[0-9a-f]* <'"$1"'>:/,/^$/p' >&2
}

# For a region or a zone that misses its goal, the disassembly of the
# functions its instructions go through.
cost_missed() {
	{ grep -E '^FIGURE (region|zone) missed: disassembly: ' "$1" || true; } | sed 's/.*disassembly: //' |
		tr ' ' '\n' | sort -u | while read -r f; do disassemble "$f"; done
}

# For each read that misses its goal beside the layout's floor, the
# disassembly of one call of it and of the floor: where its instructions go;
# and what every layout's reader inline would weigh at a call site: the
# layout readers of lib/core/read.c, their count and bytes for each size.
layout_missed() {
	grep -q '^FIGURE layout missed: ' "$1" || return 0
	grep '^FIGURE layout missed: ' "$1" | sed 's/.*disassembly: //; s/ beside / /' | sort -u |
		while read -r one floor; do
			for f in $one $floor; do
				case $f in one_*) disassemble "$f" ;; esac
			done
		done
	aarch64-linux-gnu-nm -S "$work/rootfs/hwcheck" |
		sed -n 's/^[0-9a-f]* \([0-9a-f]*\) t read_\([0-9]\)_cycles_[0-9]*_from_[0-9]*$/\2 \1/p' |
		while read -r n size; do echo "$n $((16#$size))"; done |
		awk '{k[$1]++; b[$1] += $2} END {for (n in k) printf "layout readers: %d counters: %d layouts, %d bytes\n", n, k[n], b[n]}' |
		sort -n -k3 >&2
}

# A CLI crash: the kernel's lines of it (init.sh's "=== dmesg:") and the
# source lines of its pc and lr in the static binary, to stderr.
crash_lines() {
	grep '^=== dmesg: ' "$1" >&2 || return 0
	sed -n 's/^=== dmesg: .*\(pc\|lr\) : \([0-9a-f]\{16\}\).*/\2/p' "$1" | while read -r addr; do
		echo "--- 0x$addr" >&2
		aarch64-linux-gnu-addr2line -f -i -e "$work/rootfs/upmc" "0x$addr" >&2
	done
}

# The CLI on the emulated PMU: every user-space read is allowed there, so
# no case of the benchmark may be skipped.
cli_verdicts() {
	local name=$1 log=$2
	sed -n '/^=== upmc info/,/^=== upmc stat --rotate exit/p' "$log" | sed 's/^/  /' >&2
	verdict() {
		if grep -q "$3" "$log"; then echo "PASS arm64-$1-cli/$2"; else echo "FAIL arm64-$1-cli/$2"; fi
	}
	verdict "$name" info-user-read '^  2 counters, user-space mrs$'
	verdict "$name" stat-counts '^ *[0-9,][0-9,]*      instructions  '
	verdict "$name" stat-metrics '^ *[0-9,][0-9,]*      instructions  *#  *[0-9.][0-9.]* insn per cycle'
	verdict "$name" stat-rotate '^ *[0-9,][0-9,]*      instructions  *#  *[0-9.][0-9.]* insn per cycle .*(pass 1/2[,)]'
	verdict "$name" bench-ran '^=== upmc bench exit=0'
	crash_lines "$log"
	if grep -q '  skipped \[' "$log"; then
		echo "FAIL arm64-$name-cli/bench-no-case-skipped"
	else
		echo "PASS arm64-$name-cli/bench-no-case-skipped"
	fi
}

log "host tools"
apt_install qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio gzip
log "arm64 kernel and busybox"
fetch_arm64_debs
log "cross build ($kernel)"
build || { echo "FAIL arm64/build: the cross build failed"; exit 1; }
log "boots"
if [ -n "${UPMC_HW_LAYOUT:-}" ]; then
	boot max "max,pauth-impdef=on" "upmc_layout=1" | tee "$work/verdicts.txt"
	! grep -q '^FAIL' "$work/verdicts.txt"
	exit
fi
{
	boot max "max,pauth-impdef=on" "upmc_width=32 upmc_wrap=0 upmc_denied=1 upmc_cli=1"
	boot a72 "cortex-a72" "upmc_width=32 upmc_wrap=1 upmc_denied=0"
} | tee "$work/verdicts.txt"
! grep -q '^FAIL' "$work/verdicts.txt"
