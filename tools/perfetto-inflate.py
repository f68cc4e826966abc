#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A Perfetto trace on stdin, its compressed chunks inflated, on stdout.

A chunk is a TracePacket whose only field is compressed_packets (50): a
zlib stream of a Trace message's bytes (packets). It is replaced by the
packets it holds; every other packet is copied as it is. So protoc, which
does not inflate, decodes what the trace processor reads:

    tools/perfetto-inflate.py < trace.pftrace |
        protoc --decode=perfetto.protos.Trace --proto_path=tests/perfetto trace_subset.proto

Says on stderr how many chunks it inflated; exits 1 on a trace it cannot
read (a packet cut short, a chunk that does not inflate).
"""
import sys
import zlib


def varint(data, at):
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("a varint cut short at byte %d" % at)
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
        shift += 7


def inflated(trace):
    out, at, chunks = [], 0, 0
    while at < len(trace):
        start = at
        tag, at = varint(trace, at)
        if tag != 0x0A:
            raise ValueError("byte %d: not a Trace.packet (tag %d)" % (start, tag))
        n, body = varint(trace, at)
        at = body + n
        if at > len(trace):
            raise ValueError("byte %d: a packet cut short" % start)
        packet = trace[body:at]
        if packet[:2] == b"\x92\x03":
            size, data = varint(packet, 2)
            if data + size == len(packet):
                out.append(zlib.decompress(packet[data:]))
                chunks += 1
                continue
        out.append(trace[start:at])
    return b"".join(out), chunks


def main():
    try:
        data, chunks = inflated(sys.stdin.buffer.read())
    except (ValueError, zlib.error) as e:
        print("perfetto-inflate: %s" % e, file=sys.stderr)
        return 1
    sys.stdout.buffer.write(data)
    print("perfetto-inflate: %d chunks inflated" % chunks, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
