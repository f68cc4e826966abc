"""Rules for the files upmc installs: the shared libraries and the
public headers as //lib:headers declares them."""

load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//:copts.bzl", "UPMC_COPTS")
load("//lib:version.bzl", "UPMC_SOVERSION", "UPMC_VERSION")

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

def _static_archive_impl(ctx):
    objects = []
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for library in linker_input.libraries:
                objects += library.pic_objects or library.objects
    objects = depset(objects).to_list()
    seen = {}
    for o in objects:
        if o.basename in seen:
            fail("%s and %s share a name: the sources must compile flat" % (seen[o.basename], o.path))
        seen[o.basename] = o.path
    toolchain = ctx.attr._cc_toolchain[cc_common.CcToolchainInfo]
    args = ctx.actions.args()
    args.add("rcsD", ctx.outputs.out)
    args.add_all(objects)
    ctx.actions.run(
        executable = toolchain.ar_executable,
        arguments = [args],
        inputs = depset(objects, transitive = [toolchain.all_files]),
        outputs = [ctx.outputs.out],
        mnemonic = "UpmcArchive",
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

# One static library (position-independent objects) of the deps' own
# objects, without the libraries they link (libpfm4).
cc_static_archive = rule(
    implementation = _static_archive_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "out": attr.output(mandatory = True),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
)

def _install_manifest_impl(ctx):
    lines = []
    files = []
    for h in ctx.files.headers:
        if h.dirname.split("/")[-1] != "upmc":
            fail("%s: public headers live in an upmc/ directory" % h.path)
        lines.append("file %s include/upmc/%s 644" % (h.short_path, h.basename))
    lines.append("file %s lib/%s 644" % (ctx.file.static_library.short_path, ctx.file.static_library.basename))
    for lib in ctx.files.shared_libraries:
        real = "%s.%s" % (lib.basename, UPMC_VERSION)
        soname = "%s.%s" % (lib.basename, UPMC_SOVERSION)
        lines.append("file %s lib/%s 755" % (lib.short_path, real))
        lines.append("link %s lib/%s" % (real, soname))
        lines.append("link %s lib/%s" % (soname, lib.basename))
    for template, dest in ctx.attr.templates.items():
        src = template.files.to_list()[0]
        out = ctx.actions.declare_file(ctx.label.name + "/" + dest)
        ctx.actions.expand_template(
            template = src,
            output = out,
            substitutions = {
                "@VERSION@": UPMC_VERSION,
                "@SOVERSION@": UPMC_SOVERSION,
                "@MAJOR@": UPMC_VERSION.split(".")[0],
            },
        )
        files.append(out)
        lines.append("%s %s %s 644" % ("prefixed" if dest.endswith(".pc") else "file", out.short_path, dest))
    manifest = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(manifest, "\n".join(lines) + "\n")
    files += [manifest] + ctx.files.headers + ctx.files.shared_libraries + [ctx.file.static_library]
    return [DefaultInfo(files = depset([manifest]), runfiles = ctx.runfiles(files = files))]

# What //:install copies where: one line per file ("file SRC DEST MODE",
# "prefixed SRC DEST MODE" for a file naming the prefix, "link TARGET
# DEST"), with every file it names in its runfiles.
install_manifest = rule(
    implementation = _install_manifest_impl,
    attrs = {
        "headers": attr.label(mandatory = True, allow_files = True),
        "static_library": attr.label(allow_single_file = True, mandatory = True),
        "shared_libraries": attr.label_list(allow_files = True),
        # template -> where it goes; @VERSION@, @SOVERSION@ and @MAJOR@
        # are filled in, @PREFIX@ in .pc files at install time.
        "templates": attr.label_keyed_string_dict(allow_files = True),
    },
)

_SourcesInfo = provider(fields = ["files"])

def _sources_aspect_impl(target, ctx):
    files = []
    for attr in ["srcs", "hdrs"]:
        for t in getattr(ctx.rule.attr, attr, []):
            files += [f for f in t.files.to_list() if f.is_source]
    deps = [d[_SourcesInfo].files for d in getattr(ctx.rule.attr, "deps", []) if _SourcesInfo in d]
    return [_SourcesInfo(files = depset(files, transitive = deps))]

# The source files of a cc_library and everything it depends on.
_sources_aspect = aspect(
    implementation = _sources_aspect_impl,
    attr_aspects = ["deps"],
)

def _own_sources(ctx, target, public):
    own = ctx.label.workspace_name
    by_path = {}
    for f in target[_SourcesInfo].files.to_list():
        if f.owner.workspace_name == own and f not in public:
            by_path[f.path] = f
    return [by_path[p] for p in sorted(by_path.keys())]

def _amalgamation_impl(ctx):
    public = ctx.files.headers
    systems = [(macro, _own_sources(ctx, t, public)) for t, macro in ctx.attr.systems.items()]
    every = {}
    for _, files in systems:
        for f in files:
            every[f.path] = f
    common = [f for f in every.values() if f.extension == "c" and
              all([f in files for _, files in systems])]
    args = ctx.actions.args()
    args.add_all([ctx.outputs.header, ctx.outputs.source, "--headers"])
    args.add_all(public)
    args.add("--private")
    args.add_all([f for f in every.values() if f.extension == "h"])
    args.add("--sources")
    args.add_all(common)
    for macro, files in systems:
        args.add_all(["--os", macro])
        args.add_all([f for f in files if f.extension == "c" and f not in common])
    ctx.actions.run(
        executable = "python3",
        arguments = [ctx.file._script.path, args],
        inputs = public + every.values() + [ctx.file._script],
        outputs = [ctx.outputs.header, ctx.outputs.source],
        mnemonic = "UpmcAmalgamate",
        use_default_shell_env = True,
    )
    return [DefaultInfo(files = depset([ctx.outputs.source, ctx.outputs.header]))]

# upmc.c and upmc.h from every source file the OS layers' targets are built
# from (this repository's, not libpfm4's) and the public headers: what all
# of them build first, then each OS's own under its #if.
amalgamation = rule(
    implementation = _amalgamation_impl,
    attrs = {
        "headers": attr.label(mandatory = True),
        # an OS layer's library -> the macro its compilers define
        "systems": attr.label_keyed_string_dict(aspects = [_sources_aspect]),
        "header": attr.output(mandatory = True),
        "source": attr.output(mandatory = True),
        "_script": attr.label(default = "//tools/dist:amalgamate.py", allow_single_file = True),
    },
)
