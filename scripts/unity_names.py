#!/usr/bin/env python3
"""Fails when two source files of one unity-built target define the same file-local name.

CMake's unity build (COLLSIM_UNITY, on by default) compiles a target's .cpp files in
batches, each batch as one translation unit, so that the Release, sanitizer and WebAssembly
trees each parse the library headers a few times instead of once per file. Names in a
file's anonymous namespace (or declared static) then share one scope with the other files
of the batch. The same name twice with one signature fails to compile, but only in the
trees whose batching puts the two files together; a function of the same name with another
signature compiles everywhere as an overload, and a call can silently pick the other
file's function. Hence this check, over whole targets rather than batches: every
file-local function and type name, and in the simulator every file-local variable, is
defined in one file of its target only. (Repeated identical aliases, such as
using Json = nlohmann::json, are legal and allowed.) Needs universal-ctags.

Usage: scripts/unity_names.py [repository root]
"""
import collections
import pathlib
import re
import shutil
import subprocess
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)


def sources(pattern, exclude=()):
    return sorted(str(p.relative_to(root)) for p in root.glob(pattern)
                  if not any(str(p.relative_to(root)).startswith(e) for e in exclude))


# One entry per group of files that share unity batches somewhere: the simulator and the
# command set (collsim_lib and collsim_cli_lib; together with web/collsim_wasm.cpp in the
# web explorer's one target), the executor, the MPI driver, the unit tests (which compile
# two command-line sources too) and the benchmarks. Variables are checked outside the tests
# only: ctags reads a Catch TEST_CASE body's locals as file-scope variables.
GROUPS = [
    ("simulator and command set", sources("sim/**/*.cpp", ("sim/exec/", "sim/mpi/")) + sources("web/*.cpp"), True),
    ("executor", sources("sim/exec/*.cpp"), True),
    ("MPI driver", sources("sim/mpi/*.cpp"), True),
    ("unit tests", sources("tests/unit/*.cpp") + ["sim/cli/option_fields.cpp", "sim/cli/validators.cpp"], False),
    ("benchmarks", sources("tests/bench/*.cpp"), True),
]
KINDS = {"function", "prototype", "variable", "struct", "class", "typedef", "enum", "union"}
HEADERS = sources("sim/**/*.hpp") + sources("tests/unit/*.hpp")


def tags(files):
    if shutil.which("ctags") is None:
        sys.exit("unity_names: needs universal-ctags (scripts/setup.sh installs it)")
    out = subprocess.run(["ctags", "-f", "-", "--fields=+sZKnS", "--c++-kinds=fvpstcgu", "--extras=-q",
                          "--language-force=C++", *files], cwd=root, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("!_"):
            continue
        parts = line.split("\t")
        name, path, pattern, kind = parts[0], parts[1], parts[2], parts[3]
        fields = dict(p.split(":", 1) for p in parts[4:] if ":" in p)
        scope = fields.get("scope", "")
        if kind not in KINDS or name.startswith("__anon") or (scope and not scope.startswith("namespace:")):
            continue
        local = "__anon" in scope or "file" in fields
        qualified = re.sub(r"(::)?__anon\w+", "", scope.removeprefix("namespace:"))
        yield f"{qualified}::{name}" if qualified else name, kind, path, int(fields.get("line", 0)), pattern, local


def main():
    # Names a header declares at namespace scope: a file-local function of the same name
    # overloads the header's for the rest of its batch, a file-local type or variable makes
    # the name ambiguous there.
    public = {}
    for name, kind, path, line, _, local in tags(HEADERS):
        if not local:
            public.setdefault(name, f"{path}:{line}")
    failures = 0
    for title, files, variables in GROUPS:
        seen = collections.defaultdict(list)
        for name, kind, path, line, pattern, local in tags(files):
            if not local or kind == "prototype" or (kind == "variable" and not variables):
                continue
            seen[name].append((path, line, kind, pattern))
        for name, defs in sorted(seen.items()):
            where = ", ".join(f"{p}:{l}" for p, l, _, _ in sorted(defs))
            if name in public:
                failures += 1
                print(f"unity_names: {title}: file-local '{name}' ({where}) has the name of {public[name]}")
            if len({p for p, *_ in defs}) < 2:
                continue
            if all(k == "typedef" for _, _, k, _ in defs) and len({pat for *_, pat in defs}) == 1:
                continue
            failures += 1
            print(f"unity_names: {title}: file-local '{name}' is defined in more than one file: {where}")
    if failures:
        print(f"unity_names: {failures} name(s) to rename or share (see the docstring of scripts/unity_names.py)")
        return 1
    print("unity_names: ok (no file-local name defined twice in one target or named as in a header)")
    return 0


sys.exit(main())
