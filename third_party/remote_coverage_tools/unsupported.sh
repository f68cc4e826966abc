#!/bin/sh
echo "bazel coverage is not set up for this offline workspace" >&2
exit 1
