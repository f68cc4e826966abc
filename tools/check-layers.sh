#!/bin/bash
# Which headers of the repository each folder may include: prints every
# #include that breaks a rule and exits 1, or exits 0. Run by .ci/run.
set -uo pipefail
cd "$(dirname "$0")/.."

broken=0

# forbid DIR PATTERN [ALLOWED]: no C file under DIR includes a header whose
# path starts with PATTERN (an extended regex), except the header ALLOWED.
forbid() {
	local dir=$1 pattern=$2 allowed=${3:-} hit
	while IFS= read -r hit; do
		[ -n "$allowed" ] && [[ $hit == *["\"<"]"$allowed"["\">"]* ]] && continue
		echo "$hit: $dir/ may include no header of ${pattern}${allowed:+ but $allowed}" >&2
		broken=1
	done < <(grep -rnE --include='*.c' --include='*.h' \
		"^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](\.\./)*($pattern)" "$dir")
}

# The library's layers (docs/hacking.md): the core knows none above it,
# and the measure and zone layers do not know each other.
forbid lib/core 'lib/measure|lib/zone|lib/ffi'
forbid lib/measure 'lib/zone'
forbid lib/zone 'lib/measure'
# The bindings and the examples: the public API.
forbid lib/ffi 'lib/core|lib/measure|lib/zone|os/'
forbid examples 'lib/|os/'
# The upmc command: the public API, bench/, and of the library's insides
# only what the one declared header gives it.
forbid cli 'lib/'
forbid cli 'os/' os/linux/upmc_linux.h
# The benchmark (and its JSON writer, which the command uses): the public API.
forbid bench 'lib/|os/'

# Inside the core, calls between files go one way (no file calls, through
# others, back into itself).
python3 tools/core-calls.py lib/core || broken=1

exit "$broken"
