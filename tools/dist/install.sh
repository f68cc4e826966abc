#!/bin/bash
# bazel run //:install -- PREFIX
#
# Installs upmc under $DESTDIR$PREFIX: include/upmc/*.h, lib/libupmc.a,
# lib/libupmc.so and lib/libupmc-ffi.so (versioned, with their links),
# lib/pkgconfig/upmc.pc and upmc-ffi.pc, lib/cmake/upmc/. A relative
# PREFIX or DESTDIR is taken from the directory Bazel was started in.
# The files and where they go are in the manifest Bazel wrote (the first
# argument); see docs/using.md.
set -euo pipefail

manifest=$1
shift
if [ $# -ne 1 ]; then
	echo "usage: [DESTDIR=DIR] bazel run //:install -- PREFIX" >&2
	exit 2
fi
absolute() {
	case $1 in
	/*) printf '%s\n' "$1" ;;
	*) printf '%s/%s\n' "${BUILD_WORKING_DIRECTORY:-$PWD}" "$1" ;;
	esac
}
prefix=$(absolute "$1")
prefix=${prefix%/}
root=$prefix
[ -n "${DESTDIR:-}" ] && root=$(absolute "$DESTDIR")$prefix

while read -r kind from to mode; do
	case $kind in
	file) install -D -m "$mode" "$from" "$root/$to" ;;
	prefixed)
		install -d "$root/$(dirname "$to")"
		sed "s|@PREFIX@|$prefix|g" "$from" >"$root/$to"
		chmod "$mode" "$root/$to"
		;;
	link) ln -sfn "$from" "$root/$to" ;;
	*)
		echo "install: bad manifest line: $kind $from $to" >&2
		exit 1
		;;
	esac
done <"$manifest"
echo "upmc installed in $root"
