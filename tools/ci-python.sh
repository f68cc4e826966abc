#!/bin/bash
# The Python package as a user gets it (docs/python.md): the library
# installed into a temporary prefix, a venv, `pip install
# --no-build-isolation` of a copy of python/, then python/tests (pytest,
# the examples of docs/python.md among them) against the installed package
# and library, and python/bench.py for the log.
#
# Prints one line per check: "PASS <name>" or "FAIL <name>". Details go to
# $out/*.log; pytest's own summary stays there too (the CI's closing line
# is the only "passed" count it prints). Installs what it needs from Debian
# (as root); safe to rerun.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

out=${UPMC_PYTHON_OUT:-/tmp/upmc-python}
rm -rf "$out"
mkdir -p "$out"

missing=""
for p in python3-venv python3-pip python3-pytest; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
	# shellcheck disable=SC2086
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing \
		>"$out/apt.log" 2>&1
fi

# check NAME COMMAND...: runs it with its output in $out/NAME.log.
check() {
	local name=$1
	shift
	if "$@" >"$out/$name.log" 2>&1; then
		echo "PASS $name"
	else
		echo "FAIL $name"
		tail -n 30 "$out/$name.log" | sed 's/^/    /' >&2
	fi
}

prefix=$out/prefix
venv=$out/venv
# Debian's interpreter, whatever python3 comes first on PATH.
python=/usr/bin/python3

install() {
	bazel run //:install -- "$prefix" &&
		mkdir "$out/src" && cp -r python/pyproject.toml python/upmc "$out/src" &&
		rm -rf "$out/src/upmc/__pycache__" &&
		"$python" -m venv --system-site-packages "$venv" &&
		"$venv/bin/pip" install --no-build-isolation "$out/src"
}

# The installed package, finding the installed library by its soname.
installed() {
	(cd "$out" && LD_LIBRARY_PATH=$prefix/lib "$venv/bin/python" -c '
import sys, upmc
print(upmc.__file__, upmc.library, upmc.library_source)
sys.exit(not (upmc.__file__.startswith(sys.prefix) and upmc.library_source == "system"))')
}

# pytest exits 5 when it collects nothing: only 0 passes, with tests run.
tests() {
	(cd "$out" && LD_LIBRARY_PATH=$prefix/lib "$venv/bin/python" -m pytest -p no:cacheprovider \
		-q -rs --junitxml="$out/pytest.xml" "$repo/python/tests") &&
		grep -q '<testsuite [^>]*tests="[1-9]' "$out/pytest.xml"
}

# A copy of the script, away from the source package, imports the installed one.
bench() {
	cp python/bench.py "$out/bench.py" &&
		(cd "$out" && LD_LIBRARY_PATH=$prefix/lib "$venv/bin/python" bench.py 100)
}

check python-install install
check python-installed-library installed
check python-tests tests
check python-bench bench
# The table, for the log.
cat "$out/python-bench.log"
