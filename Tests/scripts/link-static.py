#!/usr/bin/env python3
"""Link tilecut with the Swift runtime static, from the objects of make test's build.

make test compiles the package once, in the release configuration with testing enabled
(Makefile, TEST_FLAGS), and runs its tests, the documentation, the Debian package and the
client against a tilecut linked as make release links it: the Swift runtime and
Foundation static, so that the .deb depends on Debian packages alone. Building that binary
with SwiftPM's --static-swift-stdlib would compile every module a second time (the flag
changes each compile command), about as long as the first build. This script takes the
link command SwiftPM wrote into the build's manifest (SCRATCH/CONFIG.yaml), points it at
OUTPUT and adds -static-stdlib, the libraries the static runtime needs, and the extra
swiftc arguments given (make's linker flags: lld, the symbol order, the commit).

The object files are compiled without -static-stdlib, so their autolink entries name the
dynamic runtime's libraries. The static Foundation modules autolink more (CoreFoundation,
FoundationNetworking, curl, libxml2, …): a probe that imports the toolchain modules the
objects name, compiled with -static-stdlib, lists them, and they are added to the link.

    python3 Tests/scripts/link-static.py SCRATCH CONFIG PRODUCT OUTPUT [SWIFTC ARGS...]
"""
import json
import os
import subprocess
import sys
import tempfile


def link_command(manifest, product, output):
    """The swiftc arguments of PRODUCT's link command in the llbuild manifest, with -o
    OUTPUT. Each command is `  "C.NAME-TRIPLE-CONFIG.exe":` followed by its fields, one per
    line; `args:` is a JSON array."""
    lines = open(manifest, encoding="utf-8").read().split("\n")
    prefix = f'  "C.{product}-'
    for i, line in enumerate(lines):
        if line.startswith(prefix) and line.rstrip().endswith('.exe":'):
            for field in lines[i + 1 : i + 12]:
                field = field.strip()
                if field.startswith("args: "):
                    args = json.loads(field[len("args: ") :])
                    args[args.index("-o") + 1] = output
                    return args
    sys.exit(f"link-static: {manifest} has no link command for {product}: build it first (make build-quiet)")


def autolinked(objects):
    """The -l entries the Swift objects ask the linker for."""
    swift = subprocess.run(["swiftc", "-print-target-info"], check=True, capture_output=True, text=True)
    info = json.loads(swift.stdout)
    extract = os.path.join(os.path.dirname(info["paths"]["runtimeResourcePath"]), "..", "bin", "swift-autolink-extract")
    entries = set()
    for start in range(0, len(objects), 500):
        out = subprocess.run([extract, *objects[start : start + 500], "-o", "-"], check=True, capture_output=True, text=True)
        entries.update(out.stdout.split())
    return entries, info


def static_runtime_libraries(entries, info):
    """The -l entries of the static toolchain modules the objects use: a probe importing
    them, compiled with -static-stdlib, autolinks what they need."""
    static_dir = info["paths"]["runtimeResourcePath"] + "_static"
    platform = info["target"]["unversionedTriple"].split("-")[2]
    modules = sorted(
        e[2:]
        for e in entries
        if e.startswith("-lFoundation") and os.path.exists(os.path.join(static_dir, platform, e[2:] + ".swiftmodule"))
    )
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.swift")
        with open(probe, "w", encoding="utf-8") as f:
            f.write("".join(f"import {m}\n" for m in modules))
        obj = os.path.join(tmp, "probe.o")
        subprocess.run(["swiftc", "-O", "-parse-as-library", "-static-stdlib", "-c", probe, "-o", obj], check=True)
        found, _ = autolinked([obj])
    return sorted(found)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    scratch, config, product, output = sys.argv[1:5]
    extra = sys.argv[5:]
    args = link_command(os.path.join(scratch, f"{config}.yaml"), product, os.path.abspath(output))
    files = [a[1:] for a in args if a.startswith("@") and a.endswith("LinkFileList")]
    objects = [line.strip().strip('"') for f in files for line in open(f, encoding="utf-8") if line.strip()]
    entries, info = autolinked([o for o in objects if o.endswith(".o")])
    if info["target"]["triple"].find("linux") < 0:
        sys.exit("link-static: the static Swift runtime is for Linux; elsewhere use the build's own binary")
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    partial = os.path.abspath(output) + ".partial"
    args[args.index("-o") + 1] = partial
    command = args + ["-static-stdlib"] + static_runtime_libraries(entries, info) + extra
    status = subprocess.run(command).returncode
    if status != 0:
        if os.path.exists(partial):
            os.remove(partial)
        sys.exit(f"link-static: linking {product} failed (status {status})")
    os.replace(partial, output)


if __name__ == "__main__":
    main()
