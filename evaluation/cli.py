"""The command line of evaluation: ``tablezoo evaluate`` (a tournament of named bots or policy files)
and ``tablezoo benchmark`` (the protocol, a paired comparison, an aggregate over training seeds, a
join of seat counts, a rescore). :mod:`tablezoo.commands` registers both.

    tablezoo benchmark sechs_nimmt runs/ppo/model.zip --out results/ppo-seed0.json
    tablezoo benchmark diamant --compare runs/a/policy.npz runs/b/actor.pt --input-b padded,raw
    tablezoo benchmark diamant --compare results/a-seed0.json results/b-seed0.json
    tablezoo benchmark heckmeck --aggregate results/ppo-seed*.json --versus results/dqn-seed*.json
    tablezoo benchmark heckmeck --rescore results/ppo-seed0.json
    tablezoo evaluate diamant --players 3 --bots heuristic random --json result.json

A bad count, a missing or unreadable file, a policy that cannot be loaded is a one-line message
(a :class:`~tablezoo.games.core.ConfigError`), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablezoo.evaluation.aggregate import aggregate, plot_profile
from tablezoo.evaluation.cli_args import (
    ReadingSettings,
    TableSettings,
    game_of,
    game_setting,
    option_setting,
    players_setting,
)
from tablezoo.evaluation.compare import compare, compare_results
from tablezoo.evaluation.policies import as_bot
from tablezoo.evaluation.progress import ProgressBar
from tablezoo.evaluation.protocol import GAMES_PER_CELL, PROTOCOL, check_counts, run_protocol
from tablezoo.evaluation.results import join_seat_counts, make_portable, read_results, rescore
from tablezoo.evaluation.tournament import format_table, lineup, named_tournament
from tablezoo.games.core import ConfigError
from tablezoo.games.settings import add_arguments, setting


def format_result(result: dict[str, Any]) -> str:
    """A result as a text table: one row a cell."""
    reading = result["policy"].get("input") or {}
    said = (
        f"reads the {reading['observation']} observation {'scaled' if reading['scaled'] else 'raw'} "
        f"(declared by {reading['declared_by']})"
        if reading.get("scaled") is not None
        else "a bot: reads its seat itself"
    )
    lines = [
        f"{result['game']} · {result['policy']['name']} · {result['protocol']}"
        + ("" if result["complete"] else " (not the full protocol)"),
        f"policy {said}",
        f"{'seats':>5}  {'opponent':<12} {'games':>6}  {'win share':>9}  {'95% interval':<16} "
        f"{'fair':>5}  {'mean score':>10}  {'normalised':>10}",
    ]
    for c in result["cells"]:
        low, high = c["win_share_95ci"]
        norm = "" if c["normalised"] is None else f"{c['normalised']:.3f}"
        lines.append(
            f"{c['seats']:>5}  {c['opponent']:<12} {c['games']:>6}  {c['win_share']:>9.3f}  "
            f"[{low:.3f}, {high:.3f}]   {c['fair_share']:>5.3f}  {c['mean_score']:>10.2f}  {norm:>10}"
        )
    if result["normalised_score"] is not None:
        lines.append(f"normalised score (random 0, heuristic 1): {result['normalised_score']:.3f}")
    return "\n".join(lines)


def format_comparison(result: dict[str, Any]) -> str:
    """A paired comparison as a text table."""
    a, b = (p["name"] for p in result["policies"])
    games = result.get("games_per_cell")
    lines = [
        f"{result['game']} · {a} - {b} (win share, paired on the same deals, {games} games a cell)"
        + ("" if result.get("complete") else " (not the full protocol)")
    ]
    for c in result["cells"]:
        low, high = c["difference_95ci"]
        lines.append(
            f"{c['seats']:>3} seats vs {c['opponent']:<10} {c['win_share'][0]:.3f} - {c['win_share'][1]:.3f}"
            f" = {c['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
        )
    low, high = result["difference_95ci"]
    lines.append(f"over the cells: {result['difference']:+.3f} [{low:+.3f}, {high:+.3f}]")
    return "\n".join(lines)


def format_aggregate(result: dict[str, Any]) -> str:
    """An aggregate as text."""
    seeds = [s for s in result["training_seeds"] if s is not None]
    budgets = result.get("training_budgets") or []
    lines = [
        f"{result['game']} · {result['runs']} runs"
        + (f" of {', '.join(map(str, budgets))} decisions" if budgets else "")
        + (f" (training seeds {', '.join(map(str, seeds))})" if seeds else " (training seeds not recorded)")
        + f" · {result['games_per_cell']} games a cell on the protocol's seed lists"
        + f" · cells {', '.join(result['cells'])}"
        + ("" if result.get("complete") else " (not the full protocol)"),
        f"IQM {result['iqm']:.3f} {result['iqm_95ci']} · mean {result['mean']:.3f} {result['mean_95ci']}",
    ]
    if "versus" in result:
        v = result["versus"]
        lines.append(
            f"probability of improvement over the {v['runs']} runs given with --versus "
            f"(paired by {v['paired_by']}): "
            f"{v['probability_of_improvement']:.3f} {v['probability_of_improvement_95ci']}"
        )
    return "\n".join(lines)


def _input(text: str | None, flag: str, args: argparse.Namespace) -> tuple[str, bool | None]:
    """``--input-a``/``--input-b`` (``plain,raw``, ``padded,scaled``, ``auto``) as a reading; without
    it, ``--observation`` and ``--scaled``/``--raw``."""
    if text is None:
        return args.observation, args.scaled
    layout, _, scaling = text.partition(",")
    if layout not in ("auto", "plain", "padded") or scaling not in ("", "raw", "scaled"):
        raise ConfigError(
            f"{flag} is LAYOUT[,SCALING]: plain, padded or auto, then raw or scaled; not {text!r}"
        )
    return layout, None if not scaling else scaling == "scaled"


def _stored(path: str) -> bool:
    return path.endswith(".json")


def cmd_benchmark(args: argparse.Namespace) -> None:
    """``tablezoo benchmark``: run the protocol, a paired comparison, an aggregate or a rescore."""
    options = {name: True for name in args.option}
    command = getattr(args, "command_line", None)
    folder = Path(args.out).resolve().parent if args.out else None
    check_counts(args.games, args.jobs)
    common: dict[str, Any] = {
        "seats": args.players,
        "opponents": args.opponents,
        "games": args.games,
        "jobs": args.jobs,
        "core": args.core,
        "progress": True,
        "options": options,
        "command": command,
        "folder": folder,
    }
    if args.rescore:
        (stored,) = read_results([args.rescore], "--rescore", args.game)
        result, differences = rescore(stored)
        text = (
            format_result(result)
            + "\n"
            + (
                "every figure matches the stored outcomes"
                if not differences
                else "figures that differ from the stored outcomes:\n  " + "\n  ".join(differences)
            )
        )
        if differences:
            print(text)
            raise ConfigError(f"{args.rescore}: {len(differences)} figure(s) differ from the stored outcomes")
    elif args.join:
        parts = read_results(args.join, "--join", args.game)
        for part in parts:
            _check_reading_flags(part, args)
        result = join_seat_counts(parts, command, folder)
        text = format_result(result)
    elif args.aggregate:
        runs = read_results(args.aggregate, "--aggregate", args.game)
        versus = read_results(args.versus, "--versus", args.game) if args.versus else None
        if versus and {Path(p).resolve() for p in args.aggregate} & {Path(p).resolve() for p in args.versus}:
            raise ConfigError("--aggregate and --versus were given the same file")
        for run in runs:
            _check_reading_flags(run, args)
        result = aggregate(
            runs,
            versus=versus,
            pair="position" if args.pair_by_position else "seed",
            mixed_budgets=args.mixed_budgets,
            command=command,
            folder=folder,
        )
        if args.plot:
            plot_profile(result, Path(args.plot))
        text = format_aggregate(result)
    elif args.compare:
        a, b = args.compare
        if _stored(a) and _stored(b):
            stored_a, stored_b = read_results([a, b], "--compare", args.game)
            result = compare_results(stored_a, stored_b, command, folder)
        elif _stored(a) or _stored(b):
            raise ConfigError("--compare takes two policies, or two stored results (.json), not one of each")
        else:
            readings = (_input(args.input_a, "--input-a", args), _input(args.input_b, "--input-b", args))
            result = compare(a, b, args.game, **common, readings=readings)
        text = format_comparison(result)
    elif args.policy:
        result = run_protocol(
            args.policy,
            args.game,
            **common,
            observation=args.observation,
            scaled=args.scaled,
            training_seed=args.training_seed,
            training_budget=args.training_budget,
        )
        text = format_result(result)
    else:
        raise ConfigError(
            "benchmark needs a POLICY, --compare A B, --aggregate RESULT ..., --join RESULT ... "
            "or --rescore RESULT"
        )
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        portable = make_portable(result, folder)
        Path(args.out).write_text(json.dumps(portable, indent=1) + "\n")
    print(json.dumps(result, indent=1) if args.json else text)


def _check_reading_flags(result: dict[str, Any], args: argparse.Namespace) -> None:
    """With ``--aggregate``, ``--observation`` and ``--scaled``/``--raw`` (if given) must be what
    every result's policy read."""
    reading = result.get("policy", {}).get("input") or {}
    if args.observation != "auto" and reading.get("observation") != args.observation:
        raise ConfigError(
            f"{result['policy']['given']} read the {reading.get('observation')} observation, "
            f"not --observation {args.observation}"
        )
    if args.scaled is not None and reading.get("scaled") != args.scaled:
        raise ConfigError(
            f"{result['policy']['given']} read the observation "
            f"{'scaled' if reading.get('scaled') else 'raw'}, not {'--scaled' if args.scaled else '--raw'}"
        )


@dataclass
class BenchmarkSettings:
    """The flags of ``tablezoo benchmark`` (the reading of a policy: :class:`ReadingSettings`)."""

    game: str = game_setting()
    policy: str | None = setting(
        None,
        positional=True,
        nargs="?",
        help="a bot name, a .npz, an SB3 .zip, a torch .pt (TorchScript or a whole module), an RLlib "
        "checkpoint folder, an .onnx file, or module:name (a callable, a module, a class; "
        "module:Class@state_dict.pt)",
    )
    compare: list[str] | None = setting(None, nargs=2, metavar=("A", "B"))
    """two policies on the same deals and seats, or two stored results (.json) paired game by game"""
    input_a: str | None = setting(None, metavar="LAYOUT[,SCALING]")
    """with --compare: what A reads where it does not declare it (plain,raw; padded,scaled; ...)"""
    input_b: str | None = setting(None, metavar="LAYOUT[,SCALING]")
    """with --compare: what B reads"""
    aggregate: list[str] | None = setting(None, metavar="RESULT")
    """results (JSON) of one policy's training seeds"""
    versus: list[str] | None = setting(None, metavar="RESULT")
    """with --aggregate: another policy's results, for the probability of improvement (paired with the
    first's by training seed, in any order)"""
    pair_by_position: bool = setting(False, action="store_true")
    """with --versus: pair the runs in the order given (for runs without a common set of seeds)"""
    mixed_budgets: bool = setting(False, action="store_true")
    """with --aggregate: sum up runs of different training budgets (refused by default)"""
    plot: str | None = setting(None)
    """with --aggregate: the performance profile (and --versus's) as a PNG"""
    rescore: str | None = setting(None, metavar="RESULT")
    """recompute every figure of a result from its outcomes"""
    join: list[str] | None = setting(None, metavar="RESULT")
    """one training seed's results at different seat counts, as one protocol result (with --out)"""
    players: list[int] | None = players_setting("seat counts (default: the protocol's)")
    opponents: list[str] | None = setting(None)
    """opponent bots (default: the protocol's panel)"""
    games: int = setting(GAMES_PER_CELL)
    """games a cell (default: the protocol's)"""
    jobs: int = setting(1)
    """processes to share the games among"""
    core: str | None = setting(None, choices=("python", "native"))
    """the engine (default: native if built)"""
    option: list[str] = option_setting()


@dataclass
class BenchmarkRecord:
    """What ``tablezoo benchmark`` records beside a result, and where it writes it."""

    training_seed: int | None = setting(None)
    """the seed the policy was trained with (recorded)"""
    training_budget: int | None = setting(None)
    """the decisions the policy was trained on (recorded; --aggregate refuses runs of different ones)"""
    out: str | None = setting(None)
    """also write the result (JSON) to this file"""
    json: bool = setting(False, action="store_true")
    """print the result as JSON instead of a table"""


def add_benchmark_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``benchmark`` to the ``tablezoo`` command's subparsers."""
    p = subparsers.add_parser(
        "benchmark",
        help="score a policy by the benchmark protocol, compare two, aggregate training seeds, "
        "join seat counts or rescore",
        description=f"Score a policy by {PROTOCOL}: against random, the heuristic and the game's strongest "
        "bot, at the smallest, 4 and the largest seat count, 1,000 games a cell on fixed seeds.",
    )
    add_arguments(p, BenchmarkSettings, defaults=True, show_defaults=False)
    add_arguments(p, ReadingSettings, defaults=True)
    add_arguments(p, BenchmarkRecord, defaults=True, show_defaults=False)
    p.set_defaults(func=cmd_benchmark)
    return p


def cmd_evaluate(args: argparse.Namespace) -> None:
    """A tournament of the bots named on the command line: its table, or with ``--json`` its result
    as JSON (on standard output, or into a file beside the table); a terminal shows its progress."""
    game = game_of(args)
    names = lineup(game, args.bots)
    if args.jobs < 1:
        raise ConfigError(f"--jobs is the number of processes, at least 1, not {args.jobs}")
    if args.games < 1:
        raise ConfigError(f"--games is the number of games to play, at least 1, not {args.games}")
    reading = (args.observation, args.scaled)
    inputs = {}
    for name in dict.fromkeys(names):
        bot = as_bot(name, game, None, *reading)  # a bad name fails here, with its message, not in a worker
        got = getattr(bot, "reading", None)
        if got is not None:
            inputs[name] = got.as_dict()
    progress = ProgressBar(args.games, sys.stderr, label="evaluate")
    n, options = game.num_seats, dict(game.options)
    standings = named_tournament(
        args.game, n, names, args.games, args.seed, options, args.jobs, progress, reading
    )
    result = {
        "game": game.info.name,
        "num_players": n,
        "options": [k for k, v in game.options.items() if v],
        "games": args.games,
        "seed": args.seed,
        "lineup": names,
        "inputs": inputs,
        "fair_share": 1 / n,
        "standings": [s.as_dict() for s in standings],
    }
    text = json.dumps(result, indent=2)
    if args.json == "-":
        print(text)
        return
    print(format_table(standings, 1 / n))
    if args.json:
        Path(args.json).write_text(text + "\n")


@dataclass
class EvaluateSettings(TableSettings):
    """The flags of ``tablezoo evaluate`` (the reading of a policy: :class:`ReadingSettings`)."""

    bots: list[str] | None = setting(None, required=True)
    """one bot per seat, the last fills the rest: a bot name, or a policy file (.npz, SB3 .zip, .onnx,
    an RLlib checkpoint folder)"""
    games: int = setting(200)
    """games to play"""
    seed: int = setting(0)
    """tournament seed"""
    json: str | None = setting(None, nargs="?", const="-", metavar="FILE")
    """the result as JSON: into FILE (the table still printed), or alone, without FILE, on standard
    output instead of the table"""
    jobs: int = setting(1)
    """processes sharing the games (the same results, sooner)"""


def add_evaluate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo evaluate`` to the sub-commands of the command line."""
    p = subparsers.add_parser("evaluate", help="a tournament with rotated seats and fixed seeds")
    add_arguments(p, EvaluateSettings, defaults=True, show_defaults=False)
    add_arguments(p, ReadingSettings, defaults=True)
    p.set_defaults(func=cmd_evaluate)
    return p
