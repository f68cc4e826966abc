# Helpers of the CI scripts (tools/ci-*.sh), which set $out, their log
# directory, before calling them.

# apt_install PACKAGE...: installs those missing, from Debian (as root).
apt_install() {
	local missing="" p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null &&
		# shellcheck disable=SC2086
		apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing \
			>"$out/apt.log" 2>&1
}

# check NAME COMMAND...: runs it with its output in $out/NAME.log and prints
# "PASS NAME" or "FAIL NAME", then the failed lines of a test program, else
# the end of the log.
check() {
	local name=$1
	shift
	if "$@" >"$out/$name.log" 2>&1; then
		echo "PASS $name"
	else
		echo "FAIL $name"
		{ grep -E '^FAIL ' "$out/$name.log" || tail -n 20 "$out/$name.log"; } |
			sed 's/^/    /' >&2
	fi
}

# in_parallel FUNCTION ARG...: FUNCTION ARG for each ARG, as many at a time
# as there are CPUs (the compiles of a build); fails when one does.
in_parallel() {
	local fn=$1 arg running=0 failed=0 jobs
	shift
	jobs=$(nproc)
	for arg in "$@"; do
		"$fn" "$arg" &
		if ((++running >= jobs)); then
			wait -n || failed=1
			running=$((running - 1))
		fi
	done
	while ((running > 0)); do
		wait -n || failed=1
		running=$((running - 1))
	done
	return "$failed"
}
