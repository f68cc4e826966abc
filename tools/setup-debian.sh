#!/bin/sh
# Installs what building and testing upmc needs on Debian 12, from Debian's
# repositories only. Run as root; safe to run again.
set -eu
packages="bazel-bootstrap libpfm4-dev zlib1g-dev googletest gcc g++ clang
gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu protobuf-compiler
linux-perf"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=600 update -q
	# shellcheck disable=SC2086
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing
fi
