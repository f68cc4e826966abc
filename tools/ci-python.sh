#!/bin/bash
# The Python package as a user gets it (docs/python.md): the library
# installed into a temporary prefix, a venv, `pip install` of a copy of
# python/ (offline: its build backend is its own, standard library only),
# then python/tests (pytest, the examples of docs/python.md among them)
# against the installed package and library, and python/bench.py for the
# log. The same install in a venv that has pip and nothing else (no wheel,
# no setuptools), with no package index. The tests of the calls that race,
# again against the library built with ASan.
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

. tools/ci-lib.sh

prefix=$out/prefix
venv=$out/venv
# Debian's interpreter, whatever python3 comes first on PATH.
python=/usr/bin/python3

# --system-site-packages for Debian's pytest; the build takes nothing from it.
install() {
	bazel run //:install -- "$prefix" &&
		mkdir "$out/src" && cp -r python/pyproject.toml python/backend python/upmc "$out/src" &&
		rm -rf "$out/src/upmc/__pycache__" "$out/src/backend/__pycache__" &&
		"$python" -m venv --system-site-packages "$venv" &&
		"$venv/bin/pip" install --no-index "$out/src"
}

# A venv with pip alone (the wheel and setuptools packages absent, as in a
# venv of Python 3.12 or later), no index: `pip install ./python` as
# docs/python.md has it.
pip_only() {
	local bare=$out/venv-pip-only
	"$python" -m venv "$bare" &&
		"$bare/bin/pip" uninstall -q -y setuptools wheel &&
		! "$bare/bin/python" -c 'import setuptools' 2>/dev/null &&
		! "$bare/bin/python" -c 'import wheel' 2>/dev/null &&
		"$bare/bin/pip" install --no-index "$out/src" &&
		(cd "$out" && LD_LIBRARY_PATH=$prefix/lib "$bare/bin/python" -c '
import sys, upmc
print(upmc.__file__, upmc.library)
sys.exit(not upmc.__file__.startswith(sys.prefix))')
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

# The tests of the calls that race (measured's stats() and close(), a call
# and its stats(); zones from threads) against the library built with ASan
# and UBSan: python3 itself is not, so the sanitizers' runtime is preloaded;
# Python's own allocations at exit are no leak of upmc's (detect_leaks=0).
# About 20 s. The plain build is made again last, for bazel-bin's link.
asan_tests() {
	local lib=$out/asan/libupmc-ffi.so runtime
	mkdir -p "$out/asan" &&
		bazel build --config=asan //:libupmc-ffi.so &&
		cp "$(bazel info --config=asan bazel-bin)/libupmc-ffi.so" "$lib" &&
		bazel build //:libupmc-ffi.so &&
		runtime=$(ldd "$lib" | awk '/libasan/ { print $3 }') && [ -n "$runtime" ] &&
		(cd "$out" && UPMC_LIBRARY=$lib LD_PRELOAD=$runtime \
			ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
			UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			"$venv/bin/python" -m pytest -p no:cacheprovider -q -rs \
			--junitxml="$out/pytest-asan.xml" \
			"$repo/python/tests/test_bench.py" "$repo/python/tests/test_zones.py") &&
		grep -q '<testsuite [^>]*tests="[1-9]' "$out/pytest-asan.xml"
}

# A copy of the script, away from the source package, imports the installed one.
bench() {
	cp python/bench.py "$out/bench.py" &&
		(cd "$out" && LD_LIBRARY_PATH=$prefix/lib "$venv/bin/python" bench.py 100)
}

if apt_install python3-venv python3-pip python3-pytest; then
	check python-install install
	check python-install-pip-only pip_only
	check python-installed-library installed
	check python-tests tests
	check python-tests-asan asan_tests
	check python-bench bench
	# The table, for the log.
	cat "$out/python-bench.log"
else
	echo "FAIL python-apt"
	tail -n 20 "$out/apt.log" | sed 's/^/    /' >&2
fi
