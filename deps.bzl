"""What a Bazel workspace that uses upmc declares (docs/using.md):

    local_repository(name = "upmc", path = "/path/to/upmc")
    load("@upmc//:deps.bzl", "upmc_dependencies")
    upmc_dependencies()

upmc_dependencies() declares @libpfm, libpfm4 where the C compiler finds
it (Debian's multiarch directory on x86_64 and arm64 alike, /usr/local,
...), @zlib the same way (unless the workspace has one), and, unless the workspace declares them already, local stand-ins for
@rules_cc, @rules_java and @remote_coverage_tools, which Bazel 4 would
otherwise download: the build stays offline."""

def _upmc_root(rctx):
    return rctx.path(rctx.attr._workspace).dirname

def _standin_impl(rctx):
    src = _upmc_root(rctx).get_child("third_party").get_child(rctx.attr.dir)
    for child in src.readdir():
        rctx.symlink(child, child.basename)

_standin = repository_rule(
    implementation = _standin_impl,
    attrs = {
        "dir": attr.string(mandatory = True),
        "_workspace": attr.label(default = Label("//:WORKSPACE")),
    },
    local = True,
)

def _run(rctx, cmd):
    result = rctx.execute(["sh", "-c", cmd])
    return result.stdout.strip() if result.return_code == 0 else ""

def _libpfm_impl(rctx):
    cc = rctx.os.environ.get("CC", "cc")
    lib = _run(rctx, "%s -print-file-name=libpfm.a" % cc)
    deps = _run(rctx, "echo '#include <perfmon/pfmlib.h>' | %s -M -x c -" % cc)
    words = deps.replace("\\\n", " ").replace("\n", " ").split(" ")
    headers = [w for w in words if w.endswith("/perfmon/pfmlib.h")]
    if not lib.startswith("/") or not headers:
        fail("libpfm4 not found by '%s' (libpfm.a: '%s'): install it (Debian and " % (cc, lib) +
             "Ubuntu: apt-get install libpfm4-dev) or set CC to a compiler that finds it")
    rctx.symlink(lib, "lib/libpfm.a")
    rctx.symlink(rctx.path(headers[0]).dirname, "include/perfmon")
    rctx.symlink(_upmc_root(rctx).get_child("third_party").get_child("libpfm.BUILD"), "BUILD")

_libpfm = repository_rule(
    implementation = _libpfm_impl,
    attrs = {"_workspace": attr.label(default = Label("//:WORKSPACE"))},
    environ = ["CC"],
    local = True,
)

def _zlib_impl(rctx):
    cc = rctx.os.environ.get("CC", "cc")
    lib = _run(rctx, "%s -print-file-name=libz.a" % cc)
    deps = _run(rctx, "echo '#include <zlib.h>' | %s -M -x c -" % cc)
    words = deps.replace("\\\n", " ").replace("\n", " ").split(" ")
    headers = [w for w in words if w.endswith("/zlib.h")]
    zconf = [w for w in words if w.endswith("/zconf.h")]  # zlib.h includes it
    if not lib.startswith("/") or not headers or not zconf:
        fail("zlib not found by '%s' (libz.a: '%s'): install it (Debian and " % (cc, lib) +
             "Ubuntu: apt-get install zlib1g-dev) or set CC to a compiler that finds it")
    rctx.symlink(lib, "lib/libz.a")
    rctx.symlink(headers[0], "include/zlib.h")
    rctx.symlink(zconf[0], "include/zconf.h")
    rctx.symlink(_upmc_root(rctx).get_child("third_party").get_child("zlib.BUILD"), "BUILD")

_zlib = repository_rule(
    implementation = _zlib_impl,
    attrs = {"_workspace": attr.label(default = Label("//:WORKSPACE"))},
    environ = ["CC"],
    local = True,
)

def upmc_dependencies():
    _libpfm(name = "libpfm")
    if not native.existing_rule("zlib"):
        _zlib(name = "zlib")
    for name in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        if not native.existing_rule(name):
            _standin(name = name, dir = name)
