"""Typed settings: a dataclass states each setting once, and its command line follows from it.

Every ``tablezoo`` subcommand (and every ``python -m tablezoo...`` program) declares its flags
this one way: a settings dataclass (:class:`~tablezoo.training.expert.config.ExpertConfig`,
:class:`~tablezoo.training.ppo.config.TrainConfig`, :class:`~tablezoo.release.ship.ShipConfig`,
or a small one beside the command that has no config of its own) declares every field with
:func:`setting`: its default, the range it must lie in, and how the command line shows it.
The docstring under a field (read from the source with :mod:`ast`) is the field's
documentation and its ``--help`` text, so that a setting is named, typed, defaulted and
explained in one place:

    @dataclass
    class Config:
        games: int = setting(150, at_least=1)
        \"\"\"Self-play games per round.\"\"\"

:func:`add_arguments` gives a parser one argument per field: a ``--flag`` (a list or tuple
field takes one or more values; ``action="append"`` one a time, repeated), a positional
(``positional=True``), or a few flags that each set the field to a constant (``switches``, one
at most of them); ``group`` puts it in an argument group of that title. By default every flag
defaults to ``None``, so that :func:`given` returns only what the command line said and the
dataclass's own defaults (or a saved run's settings) fill the rest; ``defaults=True`` makes the
parsed namespace hold every setting, the field's default where the command line is silent.
:func:`given` also reads a value where the command line's form is not the field's
(``read``: ``--hp KEY=VALUE`` items into a dict). :func:`check_ranges` refuses values outside
the ranges the fields declare.

The module lies on the bottom floor, beside the engine contract, so that a command of any
floor (:mod:`tablezoo.tables` too) declares its flags with it; it needs the standard library
alone. Every argument it adds carries the field it came from (:data:`FROM`), which
``tests/tools/test_layout.py`` checks of every subcommand.
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import itertools
import sys
import textwrap
import types
import typing
import warnings
from collections.abc import Callable, Sequence
from dataclasses import MISSING, Field, field, fields
from typing import Any

from tablezoo.games.core import ConfigError

FROM = "setting"
"""The attribute of every argparse action :func:`add_arguments` adds: ``(dataclass, field name)``."""


def setting(
    default: Any = MISSING,
    *,
    factory: Any = MISSING,
    at_least: float | None = None,
    at_most: float | None = None,
    above: float | None = None,
    positional: bool = False,
    choices: Sequence[str] | None = None,
    metavar: str | tuple[str, ...] | None = None,
    default_text: str | None = None,
    flag: str | None = None,
    deprecated: tuple[str, ...] = (),
    convert: Callable[[str], Any] | None = None,
    help: str | None = None,
    action: str | None = None,
    const: Any = None,
    nargs: int | str | None = None,
    required: bool = False,
    group: str | None = None,
    switches: tuple[tuple[str, Any, str], ...] = (),
    read: Callable[[Any], Any] | None = None,
) -> Any:
    """A dataclass field with what the command line and :func:`check_ranges` need.

    ``at_least``/``at_most`` bound the value inclusively, ``above`` exclusively.
    ``default_text`` says in words what a default that stands for something
    else (an empty name, a negative "unset") means; other defaults are shown
    as they are. ``flag`` names the field on the command line where its name does not (the field
    ``num_players`` as ``--players``); ``deprecated`` lists old flags that still work, with a warning;
    ``convert`` reads the command line's text where the type alone does not (a game named either
    way; a :class:`~tablezoo.games.core.ConfigError` it raises is the parser's error).

    ``help`` is the ``--help`` text as it stands, where the field's docstring documents the field
    for Python rather than for the command line (no default is added to it). ``action`` (argparse's:
    ``store_true``, ``store_false``, ``store_const`` with ``const``, ``append``), ``nargs`` (where
    the type does not imply it: ``"?"``, ``2``), ``required`` and ``metavar`` are argparse's own.
    ``group`` is the title of the argument group the flag is listed in. ``switches`` replaces the
    flag by flags that each set the field to a constant, one at most of them given:
    ``(("--scaled", True, "help"), ("--raw", False, "help"))``. ``read`` turns what the parser
    gives into the field's value in :func:`given` (``--hp`` items into a dict)."""
    metadata = {
        "convert": convert,
        "flag": flag,
        "deprecated": deprecated,
        "at_least": at_least,
        "at_most": at_most,
        "above": above,
        "positional": positional,
        "choices": tuple(choices) if choices is not None else None,
        "metavar": metavar,
        "default_text": default_text,
        "help": help,
        "action": action,
        "const": const,
        "nargs": nargs,
        "required": required,
        "group": group,
        "switches": switches,
        "read": read,
    }
    if factory is not MISSING:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


@functools.cache
def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of the dataclass ``cls`` (and of the dataclasses it derives
    from), by field name, on one line each."""
    docs: dict[str, str] = {}
    for klass in reversed([k for k in cls.__mro__ if "__dataclass_fields__" in vars(k)]):
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        body = tree.body[0].body  # type: ignore[attr-defined]
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


def help_text(cls: type, f: Field[Any], show_default: bool = True) -> str:
    """A field's ``--help`` line: its ``help``, else its docstring and (``show_default``) its default."""
    if f.metadata.get("help") is not None:
        return str(f.metadata["help"])
    text = field_docs(cls).get(f.name, "")
    default = _default(f)
    said = f.metadata.get("default_text")
    if said and show_default:
        text += f" (default: {said})"
    elif show_default and default is not MISSING and default not in ("", [], (), None):
        text += f" (default: {_shown(default)})"
    return text.replace("%", "%%")


def _kind(hint: Any) -> tuple[Any, bool]:
    """The type one value of a field of type ``hint`` has, and whether the field holds several."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(h for h in typing.get_args(hint) if h is not type(None))
    if typing.get_origin(hint) in (list, tuple):
        return typing.get_args(hint)[0], True
    if typing.get_origin(hint) is dict:
        return str, True
    return hint, False


def _converter(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """``convert`` as argparse's ``type``: its :class:`ConfigError` is the parser's error message."""

    @functools.wraps(convert)
    def read(text: str) -> Any:
        try:
            return convert(text)
        except ConfigError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    return read


class DeprecatedFlag(argparse.Action):
    """An old spelling of a flag (``--seats`` for ``--players``): it still works for one release,
    saying so on stderr and with a :class:`DeprecationWarning`. Give it ``help=argparse.SUPPRESS``."""

    def __init__(self, option_strings: list[str], dest: str, instead: str = "", **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.instead = instead

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        message = f"{option_string} is deprecated and goes in the next release: say {self.instead}"
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        print(f"{parser.prog}: {message}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_arguments(
    parser: argparse.ArgumentParser,
    cls: type,
    *,
    only: Sequence[str] | None = None,
    defaults: bool = False,
    show_defaults: bool = True,
) -> None:
    """One argument per field of the settings dataclass ``cls`` (see the module's docstring), or
    per field ``only`` names, in that order. ``defaults``: a flag's default is its field's (else
    ``None``); ``show_defaults``: a docstring's help ends with the field's default."""
    hints = typing.get_type_hints(cls)
    by_name = {f.name: f for f in fields(cls)}
    unknown = sorted(set(only or ()) - set(by_name))
    if unknown:
        raise TypeError(f"{cls.__name__} has no settings {unknown}")
    groups: dict[str, Any] = {}
    for name in only or by_name:
        f = by_name[name]
        meta = f.metadata
        title = meta.get("group")
        target: Any = parser
        if title:
            if title not in groups:
                known = {g.title: g for g in parser._action_groups}
                groups[title] = known.get(title) or parser.add_argument_group(title)
            target = groups[title]
        for action in _add(target, cls, f, hints[f.name], defaults, show_defaults):
            setattr(action, FROM, (cls, f.name))


def _add(
    parser: Any, cls: type, f: Field[Any], hint: Any, defaults: bool, show_defaults: bool
) -> list[argparse.Action]:
    """The arguments of the field ``f`` of ``cls``, added to ``parser`` (a parser or a group)."""
    meta = f.metadata
    kind, several = _kind(hint)
    action = meta.get("action")
    default = _default(f) if defaults and _default(f) is not MISSING else None
    if meta.get("switches"):
        exclusive = parser.add_mutually_exclusive_group()
        return [
            exclusive.add_argument(
                switch, dest=f.name, action="store_const", const=const, default=default, help=text
            )
            for switch, const, text in meta["switches"]
        ]
    options: dict[str, Any] = {"help": help_text(cls, f, show_defaults)}
    if action in ("store_true", "store_false", "store_const"):
        if action == "store_const":
            options["const"] = meta.get("const")
        options["action"] = action
    else:
        options["type"] = _converter(meta["convert"]) if meta.get("convert") else kind
        if action:
            options["action"] = action
        nargs = meta.get("nargs") or ("+" if several and action != "append" else None)
        if nargs is not None:
            options["nargs"] = nargs
        if meta.get("const") is not None:
            options["const"] = meta["const"]
        if meta.get("choices"):
            options["choices"] = list(meta["choices"])
    if meta.get("metavar"):
        options["metavar"] = meta["metavar"]
    if meta.get("positional"):
        if options.get("nargs") == "?":
            options["default"] = default
        return [parser.add_argument(f.name, **options)]
    if meta.get("required"):
        options["required"] = True
    added = [parser.add_argument(flag_of(f), dest=f.name, default=default, **options)]
    for old in meta.get("deprecated", ()):
        copied = {k: v for k, v in options.items() if k in ("type", "nargs", "metavar")}
        added.append(
            parser.add_argument(
                old, dest=f.name, action=DeprecatedFlag, instead=flag_of(f), help=argparse.SUPPRESS, **copied
            )
        )
    return added


def flag_of(f: Field[Any]) -> str:
    """The command line's flag of a settings field: ``--`` and its ``flag``, else its name."""
    return "--" + (f.metadata.get("flag") or f.name).replace("_", "-")


def given(args: argparse.Namespace, cls: type) -> dict[str, Any]:
    """The settings of ``cls`` that the parsed command line ``args`` gives (the others are left out),
    each read by its field's ``read`` where it has one."""
    parsed = vars(args)
    found = {f: parsed[f.name] for f in fields(cls) if parsed.get(f.name) is not None}
    return {f.name: f.metadata["read"](v) if f.metadata.get("read") else v for f, v in found.items()}


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
