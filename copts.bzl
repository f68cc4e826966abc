"""Compiler flags shared by every C target of upmc."""

UPMC_COPTS = [
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fvisibility=hidden",
]
