"""A Griffe extension that reads the package's reST-flavoured docstrings as Markdown.

The docstrings are written for people reading the source: Sphinx roles
(``:class:`Game```, ``:meth:`~Game.apply```, ``:mod:`.heckmeck```), literal blocks
after ``::`` and ``>>>`` sessions, beside Google-style ``Args:`` sections and tables
in Markdown. Before mkdocstrings renders them, this extension rewrites

* every role into a cross-reference to the object it names, resolved the way Python
  would from where the docstring stands (the object's own members, its parents', the
  module's imports, relative ``.module`` paths, absolute ``tablezoo.`` paths), or into
  inline code for a name outside the package (numpy, Gymnasium). A role that names a
  ``tablezoo`` object that does not exist is a warning, and so fails a strict build;
* a paragraph ending in ``::`` and the indented block after it into a fenced block;
* a run of ``>>>`` lines (with their ``...`` continuations and output) into a fenced
  ``pycon`` block;
* an ``Args:`` entry that names several parameters (``seed, padded: as ...``, as
  NumPy's style allows) into one entry per parameter.

Every package of ``tablezoo`` is loaded before any docstring is rewritten, so a
reference from one package into another resolves whichever page is built first.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

PACKAGES = ("games", "bots", "envs", "wrappers", "tables", "training")
"""The subpackages of the ``tablezoo`` namespace, all loaded together."""

ROLE = re.compile(r":(?:py:)?(?P<role>[a-z]+):`(?P<body>[^`]+)`")
EXTERNAL = ("numpy", "np", "gymnasium", "pettingzoo", "torch", "ray", "stable_baselines3", "sb3_contrib")
"""Leading names of references outside the package: shown as code, never linked."""


class RestDocstrings(griffe.Extension):
    """Rewrite the docstrings of the whole ``tablezoo`` namespace once it is loaded."""

    def __init__(self) -> None:
        self._busy = False
        self._done = False

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        """Load every subpackage (once), then rewrite every docstring in them."""
        if self._busy or self._done or pkg.path != "tablezoo":
            return
        self._busy = True
        try:
            for name in PACKAGES:
                if name not in pkg.members:
                    loader.load(f"tablezoo.{name}")
        finally:
            self._busy = False
        self._done = True
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = rewrite(obj.docstring.value, obj, loader.modules_collection)


def _walk(obj: griffe.Object) -> list[griffe.Object]:
    """``obj`` and every object defined in it (aliases, that is imports, left out)."""
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias:
            found.extend(_walk(member))  # type: ignore[arg-type]
    return found


def rewrite(text: str, obj: griffe.Object, collection: griffe.ModulesCollection) -> str:
    """``text``, the docstring of ``obj``, in Markdown with its references resolved."""
    text = _fence_literal_blocks(text)
    text = _fence_sessions(text)
    text = _split_shared_arguments(text)
    parts = re.split(r"(```.*?```)", text, flags=re.S)
    for i in range(0, len(parts), 2):  # outside fenced blocks
        parts[i] = ROLE.sub(lambda m: _reference(m, obj, collection), parts[i])
    return "".join(parts)


def _fence_literal_blocks(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.rstrip().endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
            out.append(line.rstrip()[:-1])
            block: list[str] = []
            j = i + 2
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith("    ")):
                block.append(lines[j][4:])
                j += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["", "```", *block, "```", ""]
            i = j
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _fence_sessions(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].startswith(">>> "):
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            out += ["```pycon", *lines[i:j], "```"]
            i = j
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _split_shared_arguments(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        shared = re.fullmatch(r"(?P<indent>\s+)(?P<names>[\w*]+(?:, [\w*]+)+):(?P<rest>.*)", lines[i])
        if shared is None:
            out.append(lines[i])
            i += 1
            continue
        indent = shared.group("indent")
        j = i + 1
        while j < len(lines) and lines[j].startswith(indent + " "):
            j += 1
        description = " ".join([shared.group("rest").strip()] + [line.strip() for line in lines[i + 1 : j]])
        out += [f"{indent}{name}: {description.strip()}" for name in shared.group("names").split(", ")]
        i = j
    return "\n".join(out)


def _reference(match: re.Match[str], obj: griffe.Object, collection: griffe.ModulesCollection) -> str:
    body = match.group("body").strip()
    explicit = re.fullmatch(r"(?P<text>.+?)\s*<(?P<target>[^>]+)>", body)
    if explicit:
        shown, target = explicit.group("text"), explicit.group("target")
    else:
        target = body.lstrip("~")
        shown = target.rsplit(".", 1)[-1] if body.startswith("~") else target.lstrip(".")
    code = f"`{shown}`"
    head = target.split(".")[0]
    imported = obj.module.imports.get(head, "tablezoo")
    if head in EXTERNAL or not imported.startswith("tablezoo"):
        return code
    path = _resolve(target, obj, collection)
    if path is None:
        griffe.logger.warning(f"{obj.path}: {match.group(0)} names nothing in the package")
        return code
    if any(part.startswith("_") for part in path.split(".")):
        return code  # a private name: not in the reference
    return f"[{code}][{path}]"


def _resolve(target: str, obj: griffe.Object, collection: griffe.ModulesCollection) -> str | None:
    """The full path of the object ``target`` names from ``obj``'s docstring, or None.

    As Python would look the name up from where the docstring stands: a relative
    ``.module`` from the docstring's package; else the object's own members (inherited
    ones included), its parents', the module's imports, then an absolute path. A bare
    name found nowhere in reach still resolves when exactly one public object of the
    package has it (as Sphinx's search does).
    """
    parts = target.lstrip(".").split(".")
    if target.startswith("."):
        dots = len(target) - len(target.lstrip("."))
        base: griffe.Object | None = obj.module if obj.module.is_init_module else obj.module.parent
        for _ in range(dots - 1):
            base = base.parent if base is not None else None
        return _walk_path(base, parts) if base is not None else None
    scope: griffe.Object | None = obj
    while scope is not None:
        found = _walk_path(scope, parts)
        if found is not None:
            return found
        scope = scope.parent
    if parts[0] in obj.module.imports:
        found = _lookup(obj.module.imports[parts[0]], collection)
        if found is not None:
            return _walk_path(collection[found], parts[1:])
    found = _lookup(target, collection)
    if found is None and len(parts) == 1:
        named = [o.path for o in _walk(collection["tablezoo"]) if o.name == target and not o.is_module]
        found = named[0] if len(named) == 1 else None
    return found


def _walk_path(scope: griffe.Object, parts: list[str]) -> str | None:
    """The path of ``scope``'s member ``parts[0]``'s member ``parts[1]``... (None: no such)."""
    obj: Any = scope
    try:
        for part in parts:
            members = obj.all_members if obj.is_class else obj.members
            obj = members[part]
            if obj.is_alias:
                obj = obj.final_target
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    return str(obj.path)


def _lookup(path: str, collection: griffe.ModulesCollection) -> str | None:
    try:
        found = collection[path]
        return str(found.final_target.path) if found.is_alias else str(found.path)
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
