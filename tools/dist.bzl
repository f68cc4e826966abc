"""Rules for the files upmc installs: the shared libraries and the
public headers as //lib:headers declares them."""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//:copts.bzl", "UPMC_COPTS")
load("//lib:version.bzl", "UPMC_SOVERSION")

def upmc_shared_library(name, srcs = [], deps = []):
    """lib<name>.so: deps linked into one shared object with the soname
    lib<name>.so.<UPMC_SOVERSION>, exporting upmc_* only, and linked
    against the system's shared libpfm4."""
    cc_binary(
        name = "lib%s.so" % name,
        srcs = srcs,
        copts = UPMC_COPTS,
        linkshared = True,
        additional_linker_inputs = ["//lib:libupmc.map"],
        linkopts = [
            "-Wl,-soname,lib%s.so.%s" % (name, UPMC_SOVERSION),
            "-Wl,--version-script=$(location //lib:libupmc.map)",
            "-Wl,--no-undefined",
            # Not the C++ runtime and libm the toolchain adds to every link.
            "-Wl,--as-needed",
            "-lpfm",
            "-pthread",
        ],
        deps = deps,
    )

def _headers_impl(ctx):
    headers = ctx.attr.lib[CcInfo].compilation_context.headers.to_list()
    sources = [h for h in headers if h.is_source]
    return [DefaultInfo(files = depset(sources), runfiles = ctx.runfiles(files = sources))]

# The source files of every header a cc_library exposes, its arch headers
# included (not the copies strip_include_prefix makes).
cc_headers = rule(
    implementation = _headers_impl,
    attrs = {"lib": attr.label(providers = [CcInfo])},
)
