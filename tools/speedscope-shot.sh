#!/bin/bash
# A zone trace shown by speedscope (from the npm registry) in headless
# Chromium (Debian's): the screenshot, and a check that the zones are drawn
# rather than a blank page, the landing page or an import error.
#
#   tools/speedscope-shot.sh TRACE.speedscope.json OUT.png [VIEW]
#
# VIEW is speedscope's time-ordered (the default), left-heavy or sandwich.
# Installs what it needs (as root) and caches it in $UPMC_CACHE
# (/var/cache/upmc). Prints "PASS speedscope-view" or "FAIL speedscope-view:
# <why>"; exit status 0 on PASS.
set -uo pipefail
trace=$1
out=$2
view=${3:-time-ordered}
cache=${UPMC_CACHE:-/var/cache/upmc}
pkg=speedscope@1.25.0
release=$cache/speedscope/node_modules/speedscope/dist/release
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

fail() {
	echo "FAIL speedscope-view: $*"
	exit 1
}

apt_install() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed" && return 0
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		--no-install-recommends "$1" >"$work/apt.log" 2>&1 ||
		{ apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
				--no-install-recommends "$1" >"$work/apt.log" 2>&1; }
}

[ -s "$trace" ] || fail "no trace at $trace"
apt_install chromium || fail "chromium did not install: $(tail -1 "$work/apt.log")"
if [ ! -f "$release/index.html" ]; then
	command -v npm >/dev/null || apt_install npm || fail "npm did not install"
	mkdir -p "$cache/speedscope"
	npm install --ignore-scripts --no-audit --no-fund --prefix "$cache/speedscope" "$pkg" \
		>"$work/npm.log" 2>&1 || fail "npm install $pkg: $(tail -1 "$work/npm.log")"
fi

# speedscope's own way to open a local file (its CLI does the same): a
# script that hands the file over, named in the page's hash.
python3 - "$trace" "$work/profile.js" <<'PY'
import base64, json, os, sys
data = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "w") as f:
    f.write("speedscope.loadFileFromBase64(%s, %s)" % (
        json.dumps(os.path.basename(sys.argv[1])), json.dumps(base64.b64encode(data).decode())))
PY
url="file://$release/index.html#localProfilePath=$work/profile.js&view=$view"
# speedscope draws with WebGL: Chromium's software renderer, asked for by name.
chrome=(chromium --headless=new --no-sandbox --disable-gpu --enable-unsafe-swiftshader
	--hide-scrollbars --mute-audio
	--user-data-dir="$work/profile" --window-size=1400,520 --virtual-time-budget=8000)
timeout 120 "${chrome[@]}" --screenshot="$out" "$url" >"$work/shot.log" 2>&1 && [ -s "$out" ] ||
	fail "no screenshot (an import error's dialog stops the page); chromium said: $(tail -1 "$work/shot.log")"
timeout 120 "${chrome[@]}" --dump-dom "$url" >"$work/dom.html" 2>"$work/dom.log" ||
	fail "chromium --dump-dom: $(tail -1 "$work/dom.log")"

# Loaded: speedscope names the page after the profile; the landing page and
# an import error do not.
title=$(sed -n 's:.*<title>\(.*\)</title>.*:\1:p' "$work/dom.html" | head -1)
case $title in
*"upmc profile"*) ;;
*) fail "the profile did not load (page title '$title')" ;;
esac

# Drawn: the flame chart paints each zone in a colour of its own; a blank or
# grey page has none.
python3 - "$out" <<'PY' || exit 1
import struct, sys, zlib

def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

w, h, bpp, rows = pixels(sys.argv[1])
colours, coloured = set(), 0
for line in rows:
    for x in range(0, w * bpp, bpp * 2):
        r, g, b = line[x], line[x + 1], line[x + 2]
        if max(r, g, b) - min(r, g, b) > 40:
            coloured += 1
            colours.add((r >> 4, g >> 4, b >> 4))
share = coloured / (w * h / 2)
if share < 0.05 or len(colours) < 8:
    print("FAIL speedscope-view: %.1f%% of the page is coloured, %d colours: nothing drawn"
          % (100 * share, len(colours)))
    sys.exit(1)
print("PASS speedscope-view: %.0f%% of the page in %d colours" % (100 * share, len(colours)))
PY
