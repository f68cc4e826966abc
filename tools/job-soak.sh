#!/bin/bash
# A job system streaming its zones for a while: runs examples/job_zones
# (short-lived threads, four at a time, each job's zone named at run time,
# streamed to a Perfetto file) for at least SECONDS and until THREADS
# threads and NAMES distinct names were made, then checks what
# docs/zones.md promises of memory: the process's peak RSS within the bound
# it states (nothing kept of a thread gone but its track name in the file,
# run-time names capped at UPMC_ZONE_NAMES_MAX), and a trace that protoc
# decodes with as many slice ends as begins.
#
#   tools/job-soak.sh [SECONDS [THREADS [NAMES]]]   (default 10 s, 10^5, 10^5)
#
# Prints the example's lines, the peak RSS and its bound, then
# "PASS job-soak" or "FAIL job-soak: why". Needs protoc. Output in
# $UPMC_SOAK_OUT (default /tmp/upmc-job-soak), replaced.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-10}
threads=${2:-100000}
names=${3:-100000}
out=${UPMC_SOAK_OUT:-/tmp/upmc-job-soak}
rm -rf "$out"
mkdir -p "$out"

fail() {
	echo "FAIL job-soak: $*"
	exit 1
}

command -v protoc >/dev/null || fail "no protoc (apt-get install protobuf-compiler)"
bazel build -c opt //examples:job_zones >"$out/build.log" 2>&1 || fail "build: $out/build.log"
exe=bazel-bin/examples/job_zones

# The program itself (code, libc, the stream's writer): a run of 100 jobs.
/usr/bin/time -f '%M' -o "$out/base-kib" "$exe" "$out" 0 100 100 >"$out/base.txt" ||
	fail "the base run exits $?"
/usr/bin/time -f '%M' -o "$out/rss-kib" "$exe" "$out" "$seconds" "$threads" "$names" >"$out/run.txt"
rc=$?
cat "$out/run.txt"
[ "$rc" -eq 0 ] || fail "the example exits $rc (a stream error)"
made=$(awk '/^made:/ { print $2 }' "$out/run.txt")
base=$(tail -n 1 "$out/base-kib")
peak=$(tail -n 1 "$out/rss-kib")
# docs/zones.md's bound, for the example's options (16 KiB blocks, 4 MiB
# in all, a stream flushed every 64 threads): the base; the buffers'
# cap and the first blocks of the threads that wait for the next append
# (68 x 16 KiB); the run-time names, at most 16,384 of 192 bytes and their
# table (3.5 MiB); the stream's track names, up to 64 bytes a thread and
# as much again while its table grows; 4 MiB for the allocator's slack.
bound=$((base + 4096 + 68 * 16 + 3584 + made * 128 / 1024 + 4096))
echo "peak RSS: $((peak / 1024)) MiB, bound $((bound / 1024)) MiB ($made threads; the program alone $((base / 1024)) MiB)"
[ "$peak" -le "$bound" ] || fail "peak RSS $peak KiB past the bound, $bound KiB"

trace=$out/jobs.pftrace
echo "trace: $(stat -c %s "$trace") bytes"
# The stream's compressed chunks inflated by Python's zlib, for protoc.
python3 tools/perfetto-inflate.py <"$trace" >"$out/inflated.pftrace" 2>"$out/inflate.err" ||
	fail "the trace does not inflate: $(head -c 300 "$out/inflate.err")"
grep -q ' [1-9][0-9]* chunks inflated' "$out/inflate.err" || fail "no compressed chunk in the trace"
cat "$out/inflate.err"
protoc --decode=perfetto.protos.Trace --proto_path=tests/perfetto trace_subset.proto \
	<"$out/inflated.pftrace" 2>"$out/protoc.err" | awk '
	/^    type: TYPE_SLICE_BEGIN$/ { begins++ }
	/^    type: TYPE_SLICE_END$/ { ends++ }
	END { printf "%d %d\n", begins, ends }' >"$out/decoded.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "protoc cannot decode the trace: $(head -c 300 "$out/protoc.err")"
read -r begins ends <"$out/decoded.txt"
echo "decoded: $begins slice begins, $ends ends"
[ "$begins" -gt 0 ] || fail "no zones in the trace"
[ "$begins" -eq "$ends" ] || fail "$begins begins but $ends ends"
echo "PASS job-soak"
