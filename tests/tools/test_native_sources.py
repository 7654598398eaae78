"""The native core's build is defined once, in ``native/sources.txt``: it names every file of
``native/src`` and ``native/include`` (each in one section) and nothing that is missing, and the
builds take their sources from it, not from lists of their own (``setup.py`` for the extension
modules, the Makefile for the C++ tests and the fuzzer)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIST = ROOT / "native" / "sources.txt"
SECTIONS = {"include": "folder", "core": ".cc", "headers": ".h", "module": ".cc", "testing": ".cc"}
"""Each section of the list and what its lines name: include folders, translation units, headers."""
TREES = ("native/src", "native/include")
"""The folders whose every file the list names."""


def read_list(text: str) -> dict[str, list[str]]:
    """The list's sections, as setup.py reads them: ``[section]`` opens one; blank lines and
    ``#`` comments are skipped."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        else:
            assert current is not None, f"sources.txt:{number}: {line!r} comes before any [section]"
            current.append(line)
    return sections


def problems(sections: dict[str, list[str]], root: Path) -> list[str]:
    """What is wrong with the list against the files under ``root``: each problem in words."""
    found = []
    unknown = set(sections) - set(SECTIONS)
    missing_sections = set(SECTIONS) - set(sections)
    if unknown or missing_sections:
        found.append(f"sections {sorted(sections)}, expected {sorted(SECTIONS)}")
    named: dict[str, str] = {}
    for section, lines in sections.items():
        for line in lines:
            if line in named:
                found.append(f"{line} is named in [{named[line]}] and again in [{section}]")
            named[line] = section
            path = root / line
            kind = SECTIONS.get(section)
            if kind == "folder":
                if not path.is_dir():
                    found.append(f"[{section}] names {line}, which is no folder")
            elif not path.is_file():
                found.append(f"[{section}] names {line}, which is no file")
            elif kind is not None and path.suffix not in ((kind,) if kind == ".h" else (".cc", ".cpp")):
                found.append(f"[{section}] names {line}, which is not a {kind} file")
    for tree in TREES:
        for path in sorted((root / tree).rglob("*")):
            relative = path.relative_to(root).as_posix()
            if path.is_file() and relative not in named:
                found.append(f"{relative} is under {tree} but native/sources.txt does not name it")
    return found


def test_the_list_names_every_source_file_once_and_no_missing_one() -> None:
    assert problems(read_list(LIST.read_text()), ROOT) == []


def test_a_file_the_list_does_not_name_or_a_name_without_a_file_is_found(tmp_path: Path) -> None:
    """The check above is not blind: a copy of the tree with a file added, or a name whose file is
    gone, fails it."""
    for tree in TREES:
        shutil.copytree(ROOT / tree, tmp_path / tree)
    sections = read_list(LIST.read_text())
    assert problems(sections, tmp_path) == []
    stray = tmp_path / "native/src/search/mcts.h"
    stray.write_text("// not named\n")
    assert problems(sections, tmp_path) == [
        "native/src/search/mcts.h is under native/src but native/sources.txt does not name it"
    ]
    stray.unlink()
    (tmp_path / "native/src/net/net.cc").unlink()
    assert problems(sections, tmp_path) == ["[core] names native/src/net/net.cc, which is no file"]


@pytest.mark.parametrize("build", ["setup.py", "Makefile"])
def test_no_build_names_a_source_of_its_own(build: str) -> None:
    """setup.py and the Makefile name no file of native/src or native/include (they read the
    list), nor glob those folders; the Makefile's pattern rules (``native/src/%.cc``) name none."""
    text = (ROOT / build).read_text()
    assert re.findall(r"native/(?:src|include)/[\w/.*-]*\.(?:cc|cpp|h)\b", text) == []
    assert "glob(" not in text and "wildcard native/src" not in text
    assert "native/sources.txt" in text


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_the_makefile_builds_the_core_the_list_names() -> None:
    """The Makefile's objects for the C++ tests and the fuzzer are the list's [core], its header
    dependencies the list's [headers], its include folders the list's [include]."""
    database = subprocess.run(
        ["make", "--no-print-directory", "-pn", "-f", "Makefile", "native-test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    values = dict(re.findall(r"^(NATIVE_(?:CORE|HEADERS|INCLUDE)) := (.*)$", database, re.MULTILINE))
    sections = read_list(LIST.read_text())
    assert values["NATIVE_CORE"].split() == sections["core"]
    assert values["NATIVE_HEADERS"].split() == sections["headers"]
    assert values["NATIVE_INCLUDE"].split() == [f"-I{folder}" for folder in sections["include"]]


def test_a_source_distribution_carries_every_file_the_build_reads() -> None:
    """MANIFEST.in carries native/sources.txt and every file it names into an sdist (setup.py
    reads the list and builds from those files), as setuptools reads the manifest."""
    from setuptools._distutils.filelist import FileList

    files = FileList()
    files.allfiles = [str(p.relative_to(ROOT)) for p in (ROOT / "native").rglob("*") if p.is_file()]
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    carried = set(files.files)
    named = {
        line
        for section, lines in read_list(LIST.read_text()).items()
        if section != "include"
        for line in lines
    }
    assert "native/sources.txt" in carried
    assert named - carried == set()
    assert not [name for name in carried if name.endswith((".o", ".gcda", ".gcno"))]


def test_a_changed_header_rebuilds_the_extension_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """setuptools rebuilds a module only when a file it is told of is newer than the module: every
    header of the list (and the list) is one, so that a build after a change to a header (say
    bind/fast.h) is not the module of before."""
    import runpy

    import setuptools

    given: dict[str, Any] = {}
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: given.update(kwargs))  # what it would build
    runpy.run_path(str(ROOT / "setup.py"))
    sections = read_list(LIST.read_text())
    assert given["ext_modules"]
    for module in given["ext_modules"]:
        assert set(sections["headers"]) <= set(module.depends), module.name
        assert "native/sources.txt" in module.depends, module.name
