#!/usr/bin/env python3
"""The calls between the files of lib/core go one way: prints each circle
(a file that, through the functions it calls, calls itself) and exits 1,
or exits 0. A call is a use of an upmc_ function defined in another file,
comments and string literals left out. Run by tools/check-layers.sh."""
import glob
import os
import re
import sys


def code_of(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def main(folder):
    code = {os.path.basename(p): code_of(p) for p in sorted(glob.glob(folder + "/*.c"))}
    defined = {}
    for name, text in code.items():
        for m in re.finditer(r"^[\w \t\*]*?\b(upmc_\w+)\s*\([^;{]*\)\s*\{", text, re.M):
            defined[m.group(1)] = name
    calls = {name: set() for name in code}
    for name, text in code.items():
        for fn, where in defined.items():
            if where != name and re.search(r"\b" + fn + r"\b", text):
                calls[name].add(where)

    def path_back(start, node, seen):
        for nxt in sorted(calls[node]):
            if nxt == start:
                return [node, nxt]
            if nxt not in seen:
                seen.add(nxt)
                rest = path_back(start, nxt, seen)
                if rest:
                    return [node] + rest
        return None

    broken = 0
    for name in sorted(code):
        circle = path_back(name, name, set())
        if circle:
            print("%s/: calls go round: %s" % (folder, " -> ".join(circle)), file=sys.stderr)
            broken = 1
    return broken


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "lib/core"))
