"""The native core's build: one C++ extension, tablezoo.games._native (pybind11).

Everything else about the package is declared in pyproject.toml. The extension is
optional: where no C++ compiler is found the package installs with the Python engine
alone (tablezoo.games.native.available() is then False). TABLEZOO_SANITIZE=1 builds it
with AddressSanitizer and UndefinedBehaviorSanitizer (``make sanitize``).
"""

import os
from glob import glob

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension
from setuptools import setup

ParallelCompile("TABLEZOO_BUILD_JOBS", default=2).install()

flags = ["-O3"]
link = []
if os.environ.get("TABLEZOO_SANITIZE"):
    sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]
    # -fno-wrapv: Python's own CFLAGS carry -fwrapv, under which UBSan never checks a signed
    # overflow (it is defined to wrap); the core's arithmetic is checked for one here.
    flags = ["-O1", "-g", "-fno-wrapv", *sanitize]
    link = sanitize

native = Pybind11Extension(
    "tablezoo.games._native",
    [*sorted(glob("native/src/*.cc")), "native/src/module.cpp"],
    include_dirs=["native/include"],
    cxx_std=17,
    define_macros=[("PYBIND11_DETAILED_ERROR_MESSAGES", "1")],  # a wrong argument's type is named
    extra_compile_args=flags,
    extra_link_args=link,
    optional=os.environ.get("TABLEZOO_REQUIRE_NATIVE") != "1",
)

setup(ext_modules=[native])
