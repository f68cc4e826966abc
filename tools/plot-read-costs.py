#!/usr/bin/env python3
"""Draws the cost of a set read against the set's size, as an SVG.

    tests/hw/run-arm64.sh | tools/plot-read-costs.py > docs/read-costs.svg

It takes the harness's FIGURE lines of the `-cpu max` boot (exact
instructions per call: upmc_read_n, upmc_read, the hand-written layout
reader the harness calls "floor" and the uapi loop run once per counter)
and upmc_read of a set whose counters start at PMEVCNTR1 (the layout rows),
and draws them beside upmc_read_n's target, which the same lines carry
("target <= 14": tests/hw/hwcheck.c's read_n_target). Beside them, in
columns, what a region costs: its hot path, and amortised over 10^4 and
10^6 calls with the folds of its statistics.
No plotting library: the SVG is written by hand.
"""
import re
import sys

SERIES = [  # (label in the FIGURE lines, legend, colour, dashed)
    ("uapi loop", "uapi header's loop, once per counter", "#d62728", False),
    ("upmc_read", "upmc_read (size known at run time)", "#1f77b4", False),
    ("upmc_read_n", "upmc_read_n (size a constant)", "#2ca02c", False),
    ("floor", "layout reader written for the set (floor)", "#9467bd", False),
    ("upmc_read from PMEVCNTR1", "upmc_read of a set from PMEVCNTR1 (a thread's second)",
     "#17becf", False),
    ("upmc_read_n usual", "upmc_read_n of the usual layout (cycles first, from PMEVCNTR0)",
     "#bcbd22", False),
    ("target", "target of upmc_read_n", "#7f7f7f", True),
]
LINE = re.compile(
    r"^FIGURE arm64-max: (upmc_read_n|upmc_read|floor), (\d+) counters?: ([\d.]+) instructions")
REGION = re.compile(
    r"^FIGURE arm64-max: region begin\+end, (time only|4 counters)(, amortised over 10\^(\d) calls)?: "
    r"([\d.]+) instructions")
COLUMNS = [("hot", "hot path", "#2ca02c"), ("4", "10^4 calls", "#ff7f0e"),
           ("6", "10^6 calls", "#1f77b4")]
# upmc_read of a set whose counters start at PMEVCNTR1, cycles second where
# it has two counters or more (the harness's layout rows).
LAYOUT_ROW = re.compile(
    r"^FIGURE arm64-max: layout row: upmc_read, (\d+) counters? from PMEVCNTR1( with cycles second)?: "
    r"([\d.]+) instructions")
# upmc_read_n of a set in the layout it is compiled for (the first event
# cycles, the others from PMEVCNTR0), and of one counter.
USUAL_ROW = re.compile(
    r"^FIGURE arm64-max: layout row: upmc_read_n, (\d+) counters? from PMEVCNTR0( with cycles first)?: "
    r"([\d.]+) instructions")
UAPI = re.compile(r"uapi loop ([\d.]+)")
TARGET = re.compile(r"target <= (\d+)")


def read_points(lines):
    points = {label: {} for label, _, _, _ in SERIES}
    for line in lines:
        row = LAYOUT_ROW.match(line.strip())
        if row and (row.group(2) or row.group(1) == "1"):
            points["upmc_read from PMEVCNTR1"][int(row.group(1))] = float(row.group(3))
        row = USUAL_ROW.match(line.strip())
        if row and (row.group(2) or row.group(1) == "1"):
            points["upmc_read_n usual"][int(row.group(1))] = float(row.group(3))
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


def read_regions(lines):
    regions = {"time only": {}, "4 counters": {}}
    for line in lines:
        m = REGION.match(line.strip())
        if m:
            regions[m.group(1)][m.group(3) or "hot"] = float(m.group(4))
    return regions


def columns(regions, x0, width, height, top, bottom):
    """Region begin+end: hot path and amortised, a group of columns per kind."""
    top_v = max([v for r in regions.values() for v in r.values()] or [1])
    top_v = (int(top_v) // 100 + 1) * 100
    base = height - bottom

    def y(v):
        return base - v / top_v * (base - top)

    out = ['<text x="%.1f" y="%d" text-anchor="middle">region begin+end, instructions</text>'
           % (x0 + width / 2, top - 4)]
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>' % (x0, base, x0 + width, base))
    group = width / len(regions)
    for g, (kind, r) in enumerate(sorted(regions.items(), reverse=True)):
        gx = x0 + g * group
        for c, (key, _, colour) in enumerate(COLUMNS):
            if key not in r:
                continue
            bx, bw = gx + 10 + c * (group - 20) / len(COLUMNS), (group - 20) / len(COLUMNS) - 4
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                       % (bx, y(r[key]), bw, base - y(r[key]), colour))
            out.append('<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10">%.0f</text>'
                       % (bx + bw / 2, y(r[key]) - 3, r[key]))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (gx + group / 2, base + 16, kind))
    for c, (_, legend, colour) in enumerate(COLUMNS):
        ly = base + 52 + 16 * c
        out.append('<rect x="%d" y="%d" width="12" height="10" fill="%s"/>' % (x0, ly - 9, colour))
        out.append('<text x="%d" y="%d">%s</text>' % (x0 + 18, ly, legend))
    return out


def svg(points, regions):
    width, height, left, right, top, bottom = 640, 440, 60, 20, 20, 160
    panel = 300 if any(regions.values()) else 0
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
           'font-family="sans-serif" font-size="12">' % (width + panel, height),
           '<rect width="100%" height="100%" fill="white"/>']
    if panel:
        out += columns(regions, width + 10, panel - 30, height, top + 20, bottom)
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
    lines = sys.stdin.readlines()
    sys.stdout.write(svg(read_points(lines), read_regions(lines)))
