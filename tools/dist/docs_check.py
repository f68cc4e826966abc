#!/usr/bin/env python3
"""Checks for the docs, run by tools/ci-dist.sh.

docs_check.py blocks OUTDIR FILE.md...
    Writes every ```c block of the files to OUTDIR/<file>-<line>.c and
    prints "<kind> <path> <source>:<line>" per block. A ```c block is a
    complete program: CI compiles, links and runs it. A ```c fragment
    block is statements: it is compiled and linked inside main(), after
    the includes of FRAGMENT_PRELUDE below. A block that is not C is not
    tagged c.

docs_check.py names FILE.md... -- HEADER...
    Prints every public name of the headers (functions, macros, structs
    and their fields, enum constants) that no file mentions, and fails if
    there is one. A mention of "prefix*" covers every name it begins.
    Names ending in "_" are a header's own helpers and are not checked.
"""
import os
import re
import sys

FRAGMENT_PRELUDE = """#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <upmc/call.h>
#include <upmc/prof.h>
#include <upmc/upmc.h>

int main(void)
{
"""


def blocks(outdir, files):
    for md in files:
        lines = open(md).read().split("\n")
        i = 0
        while i < len(lines):
            fence = re.match(r"^```c( fragment)?\s*$", lines[i])
            if not fence:
                i += 1
                continue
            start = i + 1
            end = start
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            body = "\n".join(lines[start:end]) + "\n"
            kind = "fragment" if fence.group(1) else "program"
            name = "%s-%d.c" % (os.path.basename(md)[:-3], start + 1)
            path = os.path.join(outdir, name)
            with open(path, "w") as f:
                f.write('#line 1 "%s"\n' % md if kind == "program" else "")
                if kind == "fragment":
                    f.write(FRAGMENT_PRELUDE + '#line %d "%s"\n' % (start + 1, md))
                    f.write(body + "return 0;\n}\n")
                else:
                    f.write('#line %d "%s"\n' % (start + 1, md) + body)
            print("%s %s %s:%d" % (kind, path, md, start + 1))
            i = end + 1


def public_names(path):
    text = open(path).read()
    names = set()
    for m in re.finditer(r"^UPMC_API [^(]*?\b(\w+)\(", text, re.M):
        names.add(m.group(1))
    for m in re.finditer(r"^static [^(]*inline[^(]*?\b(\w+)\(", text, re.M | re.I):
        names.add(m.group(1))
    for m in re.finditer(r"^#define (\w+)", text, re.M):
        if not m.group(1).endswith("_H"):  # include guards
            names.add(m.group(1))
    for m in re.finditer(r"^enum (\w+) \{(.*?)\};", text, re.M | re.S):
        names.add(m.group(1))
        names.update(re.findall(r"^\s*(UPMC_\w+)", m.group(2), re.M))
    for m in re.finditer(r"^struct (\w+) \{(.*?)\n\};", text, re.M | re.S):
        names.add(m.group(1))
        body = re.sub(r"/\*.*?\*/", "", m.group(2), flags=re.S)
        for decl in body.split(";"):
            decl = re.sub(r"\[[^\]]*\]", "", decl).strip()
            if "(" in decl:  # a function pointer: its name is in (*name)
                fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
                if fp:
                    names.add(fp.group(1))
                continue
            for part in decl.split(",")[1:] + decl.split(",")[:1]:
                word = re.findall(r"(\w+)\s*$", part.strip())
                if word and word[0] not in ("const", "volatile"):
                    names.add(word[0])
    return names


def names(docs, headers):
    text = "".join(open(d).read() for d in docs)
    words = set(re.findall(r"\w+", text))
    prefixes = re.findall(r"`(\w+)\*`", text)
    missing = []
    for h in headers:
        for name in sorted(public_names(h)):
            if name.endswith("_"):
                continue
            if name not in words and not any(name.startswith(p) for p in prefixes):
                missing.append("%s: %s" % (h, name))
    for m in missing:
        print("undocumented: " + m)
    return 1 if missing else 0


def main(argv):
    if argv[1] == "blocks":
        blocks(argv[2], argv[3:])
        return 0
    split = argv.index("--")
    return names(argv[2:split], argv[split + 1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
