#!/usr/bin/env python3
"""Draws the cost of a set read against the set's size, as an SVG.

    tests/hw/run-arm64.sh | tools/plot-read-costs.py > docs/read-costs.svg

It takes the harness's FIGURE lines of the `-cpu max` boot (exact
instructions per call: upmc_read_n, upmc_read and the uapi loop run once
per counter) and draws them beside upmc_read_n's target, which the same
lines carry ("target <= 14": tests/hw/hwcheck.c's read_n_target).
No plotting library: the SVG is written by hand.
"""
import re
import sys

SERIES = [  # (label in the FIGURE lines, legend, colour, dashed)
    ("uapi loop", "uapi header's loop, once per counter", "#d62728", False),
    ("upmc_read", "upmc_read (size known at run time)", "#1f77b4", False),
    ("upmc_read_n", "upmc_read_n (size a constant)", "#2ca02c", False),
    ("target", "target of upmc_read_n", "#7f7f7f", True),
]
LINE = re.compile(
    r"^FIGURE arm64-max: (upmc_read_n|upmc_read), (\d+) counters?: ([\d.]+) instructions")
UAPI = re.compile(r"uapi loop ([\d.]+)")
TARGET = re.compile(r"target <= (\d+)")


def read_points(lines):
    points = {label: {} for label, _, _, _ in SERIES}
    for line in lines:
        m = LINE.match(line.strip())
        if not m:
            continue
        name, k, cost = m.group(1), int(m.group(2)), float(m.group(3))
        uapi = UAPI.search(line)
        target = TARGET.search(line)
        points[name][k] = cost
        if uapi:
            points["uapi loop"][k] = float(uapi.group(1))
        if name == "upmc_read_n" and target:
            points["target"][k] = float(target.group(1))
    return points


def svg(points):
    width, height, left, right, top, bottom = 640, 400, 60, 20, 20, 120
    ks = sorted(points["upmc_read_n"])
    if not ks:
        sys.exit("plot-read-costs: no 'FIGURE arm64-max: upmc_read_n' lines on stdin")
    top_y = max(max(v.values()) for v in points.values() if v)
    top_y = (int(top_y) // 50 + 1) * 50

    def x(k):
        return left + (k - 1) / (max(ks) - 1 or 1) * (width - left - right)

    def y(v):
        return height - bottom - v / top_y * (height - top - bottom)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    for v in range(0, top_y + 1, 50):
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                   % (left, y(v), width - right, y(v)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (left - 6, y(v) + 4, v))
    for k in ks:
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>'
                   % (x(k), height - bottom + 16, k))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">counters in the set</text>'
               % ((left + width - right) / 2, height - bottom + 34))
    out.append('<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">'
               'instructions per read (arm64, exact)</text>'
               % ((top + height - bottom) / 2, (top + height - bottom) / 2))
    for i, (label, legend, colour, dashed) in enumerate(SERIES):
        pts = sorted(points[label].items())
        if label == "target":
            legend += ": " + " / ".join("%d" % v for _, v in pts)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        out.append('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>'
                   % (colour, dash, " ".join("%.1f,%.1f" % (x(k), y(v)) for k, v in pts)))
        for k, v in pts:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (x(k), y(v), colour))
        ly = height - bottom + 52 + 16 * i
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                   % (left, ly - 4, left + 30, ly - 4, colour, dash))
        out.append('<text x="%d" y="%d">%s</text>' % (left + 38, ly, legend))
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(svg(read_points(sys.stdin)))
