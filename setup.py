"""The native core's build: the C++ extension tablezoo.games._native (pybind11), and beside it
tablezoo.games._native_testing, the pieces of the core that only the tests call.

Everything else about the package is declared in pyproject.toml. The extension is
optional: where no C++ compiler is found the package installs with the Python engine
alone (tablezoo.games.native.available() is then False). TABLEZOO_SANITIZE=1 builds it
with AddressSanitizer and UndefinedBehaviorSanitizer, under build/sanitize (``make sanitize``
installs that build into a folder of its own, never into the project's environment).
TABLEZOO_COVERAGE=1 adds gcc's line counts (``--coverage``), in a build folder of its own
(``make hostile-fuzz`` builds the sanitized core so and reports the lines its fuzz reached).

The sources, their sections and the include folders are read from native/sources.txt, the one
list every build of the core reads (the Makefile's C++ tests and fuzzer too).
"""

import os
from pathlib import Path

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension
from setuptools import setup

ParallelCompile("TABLEZOO_BUILD_JOBS", default=2).install()

flags = ["-O3"]
link = []
options = {}
if os.environ.get("TABLEZOO_SANITIZE"):
    sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]
    # -fno-wrapv: Python's own CFLAGS carry -fwrapv, under which UBSan never checks a signed
    # overflow (it is defined to wrap); the core's arithmetic is checked for one here.
    flags = ["-O1", "-g", "-fno-wrapv", *sanitize]
    link = sanitize
    # its own build folder: a plain build's objects and extension are never taken for it, nor it for them
    options = {"build": {"build_base": "build/sanitize"}}
if os.environ.get("TABLEZOO_COVERAGE"):
    # gcc's line counts (gcov): which lines of the core and its bindings a run reached, written
    # beside the objects when the process ends (`make hostile-fuzz` reads them); a folder of its own
    flags, link = [*flags, "--coverage"], [*link, "--coverage"]
    base = options["build"]["build_base"] if options else "build/plain"
    options = {"build": {"build_base": base + "-coverage"}}


def native_sources(path: str = "native/sources.txt") -> dict[str, list[str]]:
    """native/sources.txt as {section: [line, ...]}: a `[section]` line opens a section, blank
    lines and `#` comments are skipped."""
    sections: dict[str, list[str]] = {}
    current = None
    for number, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        elif current is None:
            raise ValueError(f"{path}:{number}: {line!r} comes before any [section]")
        else:
            current.append(line)
    return sections


SOURCES = native_sources()


def extension(name: str, sources: list[str]) -> Pybind11Extension:
    return Pybind11Extension(
        name,
        sources,
        include_dirs=SOURCES["include"],
        # a changed header rebuilds the module (setuptools compares only these with the module)
        depends=[*SOURCES["headers"], "native/sources.txt"],
        cxx_std=17,
        define_macros=[("PYBIND11_DETAILED_ERROR_MESSAGES", "1")],  # a wrong argument's type is named
        extra_compile_args=flags,
        extra_link_args=link,
        optional=os.environ.get("TABLEZOO_REQUIRE_NATIVE") != "1",
    )


native = extension("tablezoo.games._native", [*SOURCES["core"], *SOURCES["module"]])
# The pieces only the tests call (numpy's draws, 6 nimmt!'s rollouts, Diamant's simulator),
# kept out of the production module.
testing = extension("tablezoo.games._native_testing", [*SOURCES["core"], *SOURCES["testing"]])

setup(ext_modules=[native, testing], options=options)
