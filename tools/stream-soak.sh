#!/bin/bash
# A game streaming its zones for a while: runs examples/stream_zones (a
# game thread and THREADS-1 render threads recording flat out, streamed to
# a Perfetto file) for SECONDS, then checks what docs/zones.md promises of
# a stream: nothing dropped, the buffers under their cap, and a trace that
# protoc decodes, with as many slice ends as begins and every frame mark
# the example made.
#
#   tools/stream-soak.sh [SECONDS [THREADS]]     (default 5 s, 2 threads)
#
# Prints the example's lines, the process's peak RSS, the trace's size and
# what it decoded to, then "PASS stream-soak" or "FAIL stream-soak: why".
# Needs protoc (Debian's protobuf-compiler). Output in $UPMC_SOAK_OUT
# (default /tmp/upmc-soak), replaced.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-5}
threads=${2:-2}
out=${UPMC_SOAK_OUT:-/tmp/upmc-soak}
rm -rf "$out"
mkdir -p "$out"

fail() {
	echo "FAIL stream-soak: $*"
	exit 1
}

command -v protoc >/dev/null || fail "no protoc (apt-get install protobuf-compiler)"
bazel build -c opt //examples:stream_zones >"$out/build.log" 2>&1 || fail "build: $out/build.log"
exe=bazel-bin/examples/stream_zones

/usr/bin/time -f '%M' -o "$out/rss-kib" "$exe" "$out" "$seconds" "$threads" >"$out/run.txt"
rc=$?
cat "$out/run.txt"
echo "peak RSS: $(($(tail -n 1 "$out/rss-kib") / 1024)) MiB"
[ "$rc" -eq 0 ] || fail "the example exits $rc (a drop, the cap passed, or a stream error)"

trace=$out/stream.pftrace
echo "trace: $(stat -c %s "$trace") bytes"
# protoc's text: each packet's track_event at two spaces. A frame mark is
# an instant on the thread's own track (the sequence's default: no
# track_uuid); the drop counts' instant names the process track.
# The stream's compressed chunks inflated by Python's zlib, for protoc.
python3 tools/perfetto-inflate.py <"$trace" >"$out/inflated.pftrace" 2>"$out/inflate.err" ||
	fail "the trace does not inflate: $(head -c 300 "$out/inflate.err")"
grep -q ' [1-9][0-9]* chunks inflated' "$out/inflate.err" || fail "no compressed chunk in the trace"
cat "$out/inflate.err"
protoc --decode=perfetto.protos.Trace --proto_path=tests/perfetto trace_subset.proto \
	<"$out/inflated.pftrace" 2>"$out/protoc.err" | awk '
	/^  track_event \{$/ { ev = 1; instant = 0; own = 1; next }
	ev && /^    type: TYPE_SLICE_BEGIN$/ { begins++ }
	ev && /^    type: TYPE_SLICE_END$/ { ends++ }
	ev && /^    type: TYPE_INSTANT$/ { instant = 1 }
	ev && /^    track_uuid:/ { own = 0 }
	ev && /^  \}$/ { ev = 0; frames += instant && own }
	END { printf "%d %d %d\n", begins, ends, frames }' >"$out/decoded.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "protoc cannot decode the trace: $(head -c 300 "$out/protoc.err")"
read -r begins ends frames <"$out/decoded.txt"
echo "decoded: $begins slice begins, $ends ends, $frames frame marks"

made=$(awk '/^frames:/ { gsub(",", ""); print $3 + $5 }' "$out/run.txt")
[ "$begins" -gt 0 ] || fail "no zones in the trace"
[ "$begins" -eq "$ends" ] || fail "$begins begins but $ends ends"
[ "$frames" -eq "$made" ] || fail "$frames frame marks in the trace, the example made $made"
echo "PASS stream-soak"
