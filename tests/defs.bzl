"""A C test of upmc: one file, the C test shim, linked statically so that
tests can reach the library's internal (hidden) functions."""

load("@rules_cc//cc:defs.bzl", "cc_test")
load("//:copts.bzl", "UPMC_COPTS")

def upmc_test(name, deps = [], size = "small", **kwargs):
    cc_test(
        name = name,
        srcs = [name + ".c"],
        copts = UPMC_COPTS,
        linkstatic = True,
        size = size,
        deps = deps + ["//tests:shim"],
        **kwargs
    )
