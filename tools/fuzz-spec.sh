#!/bin/bash
# Fuzzes the event spec parser with libFuzzer (clang, ASan, UBSan) for
# FUZZ_SECONDS (default 60) on tests/fuzz/corpus. Prints "PASS fuzz-spec" or
# "FAIL fuzz-spec: ..." (a crash leaves its input in the scratch folder).
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for p in clang libclang-rt-14-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
			--no-install-recommends "$p" >&2
done

# The parser and the Linux sysfs resolver (not libpfm4, whose own parser is
# not ours to fuzz); the perf layer only links, it is never called.
if ! clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I. -Ilib/include -Iarch/x86 -Iarch/arm64 -Iarch/generic \
	lib/{core,measure,zone}/*.c os/linux/*.c os/portable/{file,thread}.c \
	tests/fuzz/spec_fuzz.c -lpthread -o "$work/spec_fuzz" 2> "$work/build.log"; then
	cat "$work/build.log" >&2
	echo "FAIL fuzz-spec: the fuzz target did not build"
	exit 1
fi
cp -r tests/fuzz/corpus "$work/corpus"
if "$work/spec_fuzz" -max_total_time="$seconds" -timeout=10 -artifact_prefix="$work/" \
	"$work/corpus" > "$work/fuzz.log" 2>&1; then
	echo "PASS fuzz-spec: $(grep -o 'Done [0-9]* runs[^$]*' "$work/fuzz.log" | tail -1)"
else
	tail -40 "$work/fuzz.log" >&2
	echo "FAIL fuzz-spec: a crash (see the log above)"
	exit 1
fi
