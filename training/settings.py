"""Typed settings: a dataclass states each setting once, and its command line follows from it.

A settings dataclass (:class:`~tablezoo.training.expert.config.ExpertConfig`) declares
every field with :func:`setting`: its default, the range it must lie in, and
how the command line shows it. The docstring under a field (read from the
source with :mod:`ast`) is the field's documentation and its ``--help`` text,
so that a setting is named, typed, defaulted and explained in one place:

    @dataclass
    class Config:
        games: int = setting(150, at_least=1)
        \"\"\"Self-play games per round.\"\"\"

:func:`add_arguments` gives a parser one ``--flag`` per field (a list or tuple
field takes one or more values); every flag defaults to ``None``, so that
:func:`given` returns only what the command line said and the dataclass's
own defaults fill the rest. :func:`check_ranges` refuses values outside the
ranges the fields declare.
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import itertools
import textwrap
import typing
from dataclasses import MISSING, Field, field, fields
from typing import Any

from tablezoo.evaluation.cli_args import DeprecatedFlag
from tablezoo.games.core import ConfigError


def setting(
    default: Any = MISSING,
    *,
    factory: Any = MISSING,
    at_least: float | None = None,
    at_most: float | None = None,
    above: float | None = None,
    positional: bool = False,
    choices: tuple[str, ...] | None = None,
    metavar: str | None = None,
    default_text: str | None = None,
    flag: str | None = None,
    deprecated: tuple[str, ...] = (),
    convert: Any = None,
) -> Any:
    """A dataclass field with what the command line and :func:`check_ranges` need.

    ``at_least``/``at_most`` bound the value inclusively, ``above`` exclusively.
    ``default_text`` says in words what a default that stands for something
    else (an empty name, a negative "unset") means; other defaults are shown
    as they are. ``flag`` names the field on the command line where its name does not (the field
    ``seats`` as ``--players``); ``deprecated`` lists old flags that still work, with a warning;
    ``convert`` reads the command line's text where the type alone does not (a game named either
    way)."""
    metadata = {
        "convert": convert,
        "flag": flag,
        "deprecated": deprecated,
        "at_least": at_least,
        "at_most": at_most,
        "above": above,
        "positional": positional,
        "choices": choices,
        "metavar": metavar,
        "default_text": default_text,
    }
    if factory is not MISSING:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of the dataclass ``cls``, by field name, on one line each."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for item, after in itertools.pairwise(body):
        if (
            isinstance(item, ast.AnnAssign)
            and isinstance(item.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[item.target.id] = " ".join(after.value.value.split())
    return docs


def _default(f: Field[Any]) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default


def _shown(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


def help_text(cls: type, f: Field[Any]) -> str:
    """A field's ``--help`` line: its docstring and its default."""
    text = field_docs(cls).get(f.name, "")
    default = _default(f)
    said = f.metadata.get("default_text")
    if said:
        text += f" (default: {said})"
    elif default is not MISSING and default not in ("", [], ()):
        text += f" (default: {_shown(default)})"
    return text.replace("%", "%%")


def add_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """One argument per field of the settings dataclass ``cls`` (see the module's docstring)."""
    hints = typing.get_type_hints(cls)
    for f in fields(cls):
        hint = hints[f.name]
        kind, nargs = hint, None
        if typing.get_origin(hint) in (list, tuple):
            kind, nargs = typing.get_args(hint)[0], "+"
        options: dict[str, Any] = {"type": f.metadata.get("convert") or kind, "help": help_text(cls, f)}
        if f.metadata.get("choices"):
            options["choices"] = list(f.metadata["choices"])
        if f.metadata.get("positional"):
            parser.add_argument(f.name, **options)
            continue
        if f.metadata.get("metavar"):
            options["metavar"] = f.metadata["metavar"]
        parser.add_argument(flag_of(f), dest=f.name, nargs=nargs, default=None, **options)
        for old in f.metadata.get("deprecated", ()):
            parser.add_argument(
                old,
                dest=f.name,
                nargs=nargs,
                type=kind,
                action=DeprecatedFlag,
                instead=flag_of(f),
                help=argparse.SUPPRESS,
            )


def flag_of(f: Field[Any]) -> str:
    """The command line's flag of a settings field: ``--`` and its ``flag``, else its name."""
    return "--" + (f.metadata.get("flag") or f.name).replace("_", "-")


def given(args: argparse.Namespace, cls: type) -> dict[str, Any]:
    """The settings of ``cls`` that the parsed command line ``args`` gives (the others are left out)."""
    parsed = vars(args)
    return {f.name: parsed[f.name] for f in fields(cls) if parsed.get(f.name) is not None}


def check_ranges(settings: Any) -> None:
    """Refuse a field of the dataclass instance ``settings`` that lies outside its declared range
    or is none of its declared choices."""
    for f in fields(settings):
        value, flag = getattr(settings, f.name), flag_of(f)
        low, high, above = (f.metadata.get(k) for k in ("at_least", "at_most", "above"))
        choices = f.metadata.get("choices")
        if choices is not None and value not in choices:
            raise ConfigError(f"{flag} is one of {', '.join(choices)}, not {value!r}")
        if low is not None and high is not None and not low <= value <= high:
            raise ConfigError(f"{flag} is {low} to {high}, not {value}")
        if low is not None and value < low:
            raise ConfigError(f"{flag} is at least {low}, not {value}")
        if above is not None and value <= above:
            raise ConfigError(f"{flag} is above {above}, not {value}")
