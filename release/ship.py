"""Ship an expert-iteration run as the package's agent for its game, with a model card.

    tablezoo ship runs/expert-heckmeck --games 1000 --search 32 --search-games 200

``python -m tablezoo.release.ship`` with the same arguments is the same command
(:func:`main`). Shipping is three steps: :func:`select` the network (a round, or
the mean of rounds), :func:`measure_strength` of it, and :func:`ship_run` writes
it with its card, made of the measured data (:func:`training_section`,
:func:`strength_section`, :func:`card_text`).

Copies the run's ``net.npz`` to ``bots/agents/<game>.npz`` (the ``agent`` bot at
every seat count) and writes ``<game>.md`` beside it: how the network was
trained (the ``tablezoo expert`` command that reproduces it, from the run's
``config.json``, and its ``log.jsonl``: iterations, decisions, wall time), and how
strong it is, measured here by tournaments of :mod:`tablezoo.evaluation.tournament`
(the agent at one seat, rotated; every other seat the named bot; fixed seeds):

* at every seat count the game allows, against ``heuristic``;
* the game's strength targets (:data:`TARGETS`): against its strongest bots;
* the same targets for ``agent:search=N`` beside the network alone.

For Heckmeck the card also gives the agent's expected worms on the opening turn
next to the exact solver's. Every row names the command that reproduces it.

``--round K`` ships round ``K``'s network instead of the last; ``--average M``
ships the mean of the weights of the ``M`` rounds that end there
(:meth:`~tablezoo.bots.net.PolicyValueNet.mean`, saved in the run folder as
``net-<first>-to-<K>-mean.npz``). League rounds of PPO move the weights by noisy
steps, and averaging them is the usual way to smooth that out; measure before
shipping one (To Court the King's mean of five rounds played level with the last
round alone over 2,000 games at 2 and 4 seats).

``tablezoo ship GAME`` (a game's name instead of a run folder) measures the agent already
shipped for it again, with the settings given (more games a row, a stronger yardstick where a
bot's native port makes one affordable): :func:`remeasure` rewrites the card's strength
section and its ``.json`` and keeps the network and the card's section on its training.

``--refit-value 2 3 ...`` first refits the network's win-share head to its own games at those
seat counts (:mod:`tablezoo.release.refit`; the policy, and so ``agent``'s moves, unchanged):
a run's network before it ships, or with a game's name the shipped agent in place, its recipe
then ending with this command. The card's training section says so.

The shipped network records the commands that trained it and this one
(:data:`~tablezoo.release.recipe.RECIPE` in its ``meta``; this one in its ``python -m``
form, :data:`~tablezoo.release.recipe.SHIP`, which every shipped network has recorded),
where every network its runs started from (``--init``) was trained by a run whose folder says
how: ``tablezoo reproduce GAME`` (:mod:`tablezoo.release.reproduce`) runs them again in turn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import AGENTS_DIR, game_bots, make_bot
from tablezoo.evaluation.cli_args import players_setting
from tablezoo.evaluation.tournament import PART_GAMES, join_parts, play_part, split_tournament
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import CHANCE, TERMINAL, ConfigError, TablezooError
from tablezoo.games.settings import add_arguments, setting
from tablezoo.release.cards import (
    LEAGUE_MARK,
    _network_text,
    _rounds_table,
    _row,
    _training_text,
    card_text,
    opening_section,
)
from tablezoo.release.recipe import RECIPE, SHIP, reproduce_text, training_chain
from tablezoo.release.refit import refit_text, refit_value, with_refit_lines

TARGETS: dict[str, list[tuple[int, str, float]]] = {
    "heckmeck": [(2, "solver", 0.55), (4, "solver", 0.30)],
    "sechs_nimmt": [(2, "search", 0.55), (4, "search", 0.30)],
    "diamant": [(n, "search", 1.5 / n) for n in (3, 4, 6, 8)],
    "court": [(2, "heuristic", 0.60), (4, "heuristic", 0.30)],
}
"""Per game: (seats, the bot at every other seat, the win share the agent's interval must clear)."""


def opening_turn_worms(bot: Bot, num_seats: int = 2) -> float:
    """The exact expected worms a deterministic ``bot`` wins on the first turn of a Heckmeck game.

    Expectimax over the turn: every roll with its exact probability
    (``chance_outcomes``), the bot's own move at each decision, each position
    valued once. Sampled turns would leave a standard error of about 0.03
    worms after 2,000 turns, as wide as the gap to the target; this is exact
    (the solver's value comes out as the turn solver's optimum) and takes
    seconds. The bot must choose the same move in the same position, as the
    network alone and the solver do.
    """
    game = make("heckmeck", num_seats)
    values: dict[str, float] = {}

    def value(state: Any) -> float:
        mover = game.to_move(state)
        if mover == TERMINAL or state.turn != 0:  # the first turn is over
            return float(game.scores(state)[0])
        key = game.to_json(state)
        known = values.get(key)
        if known is not None:
            return known
        if mover == CHANCE:
            total = 0.0
            for outcome, p in game.chance_outcomes(state):
                child = game.clone(state)
                game.apply_chance(child, outcome, check=False)
                total += p * value(child)
        else:
            child = game.clone(state)
            game.apply(child, bot.act(Seat.of(game, state, 0)))
            total = value(child)
        values[key] = total
        return total

    return value(game.initial_state())


def move_times(bot_name: str, game_name: str, seats: int, positions: int, seed: int) -> float:
    """The median milliseconds ``bot_name`` takes for a move, over positions of random games.

    Only positions with a choice count: where one move is legal a bot answers at once, and in
    Heckmeck more than half of all positions are such."""
    game = make(game_name, seats)
    bot = make_bot(bot_name, game)
    rng = np.random.default_rng(seed)
    times: list[float] = []
    state = game.initial_state()
    while len(times) < positions:
        mover = game.advance(state, rng)
        if mover == TERMINAL:
            state = game.initial_state()
            continue
        legal = game.legal_actions(state)
        if len(legal) > 1:
            start = time.perf_counter()
            bot.act(Seat.of(game, state, mover))
            times.append(1000 * (time.perf_counter() - start))
        game.apply(state, legal[int(rng.integers(len(legal)))])
    return float(np.median(times))


def measure(tasks: list[tuple[str, int, str, str, int, int]], jobs: int) -> list[dict[str, Any]]:
    """The rows ``(game, seats, agent bot name, opponent bot name, games, seed)``: the agent's
    standing in each, its games played in parts of :data:`PART_GAMES` by ``jobs`` processes."""
    cuts = [
        split_tournament(game, n, [agent] + [opponent] * (n - 1), games, seed, parts=-(-games // PART_GAMES))
        for game, n, agent, opponent, games, seed in tasks
    ]
    flat = [part for parts in cuts for part in parts]
    with ProcessPoolExecutor(jobs) as pool:
        played = iter(list(pool.map(play_part, flat)))
    rows = []
    for (_, n, agent, opponent, _, _), parts in zip(tasks, cuts, strict=True):
        s = join_parts([next(played) for _ in parts])[0]
        low, high = s.interval()
        rows.append(
            {
                "seats": n,
                "agent": agent,
                "against": opponent,
                "games": s.games,
                "win_share": round(s.win_rate, 4),
                "interval": [round(low, 4), round(high, 4)],
                "fair_share": round(1 / n, 4),
            }
        )
    return rows


Task = tuple[str, int, str, str, int, int]
"""A row of the card's tables: ``(game, seats, agent bot name, opponent bot name, games, seed)``."""


@dataclass(frozen=True)
class ShipConfig:
    """The settings of ``tablezoo ship``: which network of a run, and how long to measure it. Each
    field is a ``tablezoo ship`` flag (:mod:`tablezoo.games.settings`; ``help`` is the flag's text)."""

    run: Path = setting(
        positional=True,
        help="a run folder written by `tablezoo expert`, or a game's name: measure its shipped agent again",
    )
    """A run folder written by ``tablezoo expert``."""
    games: int = setting(1000, help="games per seat count against heuristic")
    """Games per seat count against ``heuristic``."""
    target_games: int = setting(0, help="games per target row (default: --games)")
    """Games per strength target's row (0: :attr:`games`)."""
    search: int = setting(32, help="agent:search=N rows' N (0: none)")
    """The N of the ``agent:search=N`` rows (0: none)."""
    search_games: int = setting(200, help="games per agent:search=N row")
    """Games per ``agent:search=N`` row."""
    seed: int = setting(2026, help="seed of the evaluation tournaments")
    """Seed of the tournaments and of the positions timed."""
    jobs: int = setting(2, help="processes playing the games")
    """Processes playing the games (the results do not depend on it)."""
    round: int | None = setting(None, help="ship the network of this round (default: the last)")
    """The round whose network ships (None: the last)."""
    average: int = setting(
        1,
        help="ship the mean of the weights of this many rounds, ending at --round (default 1: that "
        "round's network alone)",
    )
    """Ship the mean of the weights of this many rounds, ending at :attr:`round` (1: that round's alone)."""
    num_players: tuple[int, ...] = players_setting(
        "seat counts played against heuristic (default: every one the game allows)", default=()
    )
    """The seat counts of the table against ``heuristic`` (empty: every one the game allows)."""
    refit_value: tuple[int, ...] = setting(
        (),
        metavar="PLAYERS",
        help="first refit the network's win-share head to its own games at these seat counts (the "
        "policy unchanged; with a game's name: its shipped agent, in place)",
    )
    """Before measuring, refit the network's win-share head to its own games at these seat counts
    (:func:`~tablezoo.release.refit.refit_value`; the policy, and so ``agent``'s moves, unchanged).
    Empty: no refit."""
    refit_games: int = setting(100, help="games of the refit a seat count")
    """Games of the refit at each of :attr:`refit_value`'s seat counts."""
    refit_seed: int = setting(11, help="seed of the refit's games")
    """Seed of the refit's games."""

    @property
    def row_games(self) -> int:
        """Games per strength target's row of the network alone."""
        return self.target_games or self.games

    def command(self) -> str:
        """The command that ships the run again with these settings: the settings that are not the
        defaults, but ``jobs`` (it changes no result). Cards and recipes record it in the form of
        :data:`~tablezoo.release.recipe.SHIP`, which every recipe has had and :func:`reproduce` runs."""

        def flag(f: Any) -> str:
            return f"--{f.name.replace('_', '-')} {getattr(self, f.name)}"

        changed = [
            f for f in fields(self) if f.name not in ("run", "jobs") and getattr(self, f.name) != f.default
        ]
        flags = [flag(f) for f in changed if f.name != "num_players" and not f.name.startswith("refit_")]
        if self.num_players:
            flags.append("--players " + " ".join(map(str, self.num_players)))
        if self.refit_value:
            flags.append("--refit-value " + " ".join(map(str, self.refit_value)))
            flags += [flag(f) for f in changed if f.name in ("refit_games", "refit_seed")]
        return " ".join([SHIP.strip(), str(self.run), *flags])


@dataclass
class Selection:
    """The network of a run that ships, and the run's record up to it."""

    config: dict[str, Any]
    """The run's settings (its ``config.json``)."""
    log: list[dict[str, Any]]
    """The run's ``log.jsonl``, one entry per round, up to the round shipped."""
    net_file: Path
    """The network's file in the run folder."""
    averaged: tuple[int, int] | None = None
    """The first and last round whose weights the network averages (None: one round's network)."""


def select(ship: ShipConfig) -> Selection:
    """The network :attr:`~ShipConfig.round` and :attr:`~ShipConfig.average` choose from the run;
    a mean of rounds is saved in the run folder as ``net-<first>-to-<last>-mean.npz``."""
    config = json.loads((ship.run / "config.json").read_text())
    log = [json.loads(line) for line in (ship.run / "log.jsonl").open()]
    net_file = ship.run / "net.npz"
    if ship.round is not None:
        if not 0 <= ship.round < len(log):
            raise ConfigError(f"--round: the run has rounds 0 to {len(log) - 1}, not {ship.round}")
        log = log[: ship.round + 1]
        net_file = ship.run / f"net-{ship.round}.npz"
    if ship.average == 1:
        return Selection(config, log, net_file)
    last = len(log) - 1
    if not 1 <= ship.average <= len(log):
        raise ConfigError(f"--average: 1 to {len(log)} rounds (0 to {last} were played), not {ship.average}")
    first = last - ship.average + 1
    rounds = [PolicyValueNet.load(ship.run / f"net-{k}.npz") for k in range(first, last + 1)]
    mean = PolicyValueNet.mean(rounds)
    net_file = ship.run / f"net-{first}-to-{last}-mean.npz"
    mean.save(net_file)
    return Selection(config, log, net_file, (first, last))


@dataclass
class Strength:
    """What :func:`measure_strength` measured of a network: the card's tables, and its ``.json``."""

    rows: list[dict[str, Any]]
    """Every row measured, once each (:func:`measure`'s rows, the player named as on the card)."""
    every: list[dict[str, Any]]
    """The network alone against ``heuristic``, at every seat count."""
    aims: list[tuple[dict[str, Any], float]]
    """Per strength target: the network alone's row, then (with search) the searching one's, each
    with the win share its interval must clear."""
    latency: list[tuple[int, float, float]]
    """At the fewest and the most seats: the seats, the median milliseconds of a move of the network
    alone and of the searching one."""
    opening: tuple[float, float] | None
    """Heckmeck's: the network's exact expected worms on the opening turn, and the optimum."""


def measure_strength(game_name: str, net_file: Path, ship: ShipConfig) -> Strength:
    """Play the card's tournaments of the network in ``net_file`` and time its moves."""
    info = game_class(game_name).info
    agent, searcher = str(net_file), f"{net_file}:search={ship.search}"
    bots = game_bots(game_name)
    targets = [(n, bot if bot in bots else "heuristic", t) for n, bot, t in TARGETS[game_name]]
    seat_counts = ship.num_players or tuple(info.seat_range)
    every = [(game_name, n, agent, "heuristic", ship.games, ship.seed) for n in seat_counts]
    alone = [(game_name, n, agent, bot, ship.row_games, ship.seed) for n, bot, _ in targets]
    searching = [(game_name, n, searcher, bot, ship.search_games, ship.seed) for n, bot, _ in targets]
    tasks: list[Task] = every + alone + (searching if ship.search else [])
    unique = list(dict.fromkeys(tasks))
    results = dict(zip(unique, measure(unique, ship.jobs), strict=True))
    for r in results.values():
        r["agent"] = "agent" if r["agent"] == agent else f"agent:search={ship.search}"
    aims = []
    for (_, _, target), one, searched in zip(targets, alone, searching, strict=True):
        aims.append((results[one], target))
        if ship.search:
            aims.append((results[searched], target))
    opening = opening_worms(agent) if game_name == "heckmeck" else None
    seed = ship.seed
    latency = [
        (n, move_times(agent, game_name, n, 200, seed), move_times(searcher, game_name, n, 50, seed))
        for n in (info.min_seats, info.max_seats)
    ]
    return Strength(list(results.values()), [results[t] for t in every], aims, latency, opening)


def opening_worms(agent: str) -> tuple[float, float]:
    """The Heckmeck bot ``agent``'s exact expected worms on the opening turn of 2 seats
    (:func:`opening_turn_worms`), and the turn solver's optimum."""
    from tablezoo.bots.heckmeck import TurnSolver

    worms = opening_turn_worms(make_bot(agent, make("heckmeck", 2)))
    return worms, TurnSolver(list(range(21, 37)), [], []).before_roll(0, 8, 0)


def with_recipe(selection: Selection, ship: ShipConfig) -> tuple[PolicyValueNet, str]:
    """The network to ship, carrying the commands that train and ship it again (:data:`RECIPE`,
    what ``tablezoo reproduce`` runs) where every network its runs started from was trained by a
    recorded run; and the card's line on how to reproduce it."""
    net = PolicyValueNet.load(selection.net_file)
    command = ship.command()
    rounds = len(selection.log)
    chain_text = reproduce_text(selection.config, rounds)
    chain, unrecorded = training_chain(selection.config, rounds)
    net.meta.pop(RECIPE, None)
    if unrecorded is not None:
        return net, f"{chain_text}, then\n  `{command}`."
    net.meta[RECIPE] = [c for c, _ in chain] + [command]
    line = (
        f"`tablezoo reproduce {selection.config['game']}` runs {chain_text}; with `--ship` it then runs\n"
        f"  `{command}`, which measures the network and ships it with this card."
    )
    return net, line


def training_section(selection: Selection, net: PolicyValueNet, reproduce_line: str) -> str:
    """The card's section on how the network was trained, from the run's settings and log."""
    log, config = selection.log, selection.config
    averaged = ""
    if selection.averaged:
        first, last = selection.averaged
        averaged = (
            f"- Shipped: the mean of the weights of rounds {first} to {last} (weight averaging, "
            f"`--average {last - first + 1}`), which smooths the noise of single rounds' updates.\n"
        )
    decisions = sum(e.get("decisions", 0) for e in log)
    hours = sum(e["play_seconds"] + e["fit_seconds"] for e in log) / 3600
    played = f"{len(log)} rounds, {decisions} recorded decisions, {hours:.2f} hours of play and training on"
    return f"""## How it was trained

{_training_text(config, len(log))}
{averaged}{_network_text(net)}{refit_text(net)}- {played}
  {config["workers"]} self-play process(es) of a shared 2-core machine.
- Reproduce (from a clean clone, after `make`): {reproduce_line}

{_rounds_table(log)}
"""


def strength_section(game_name: str, ship: ShipConfig, strength: Strength) -> str:
    """The card's section on how strong the network is: the tournaments' tables, its move times and
    (Heckmeck) its opening turn."""
    header = "| seats | player | against | games | win share [95% CI] | fair share |"
    every = "\n".join([header, "|---|---|---|---|---|---|", *map(_row, strength.every)])
    aims = [header + " target |", "|---|---|---|---|---|---|---|"]
    aims += [_row(row, target) for row, target in strength.aims]
    timing = "\n".join(f"| {n} | {alone:.2f} | {searching:.1f} |" for n, alone, searching in strength.latency)
    opening = "\n" + opening_section(*strength.opening) if strength.opening else ""
    return f"""## How strong it is

The agent at one seat (rotated over the seats), every other seat the named bot, tournament
seed {ship.seed}. Reproduce a row with `tablezoo evaluate {game_name} --players N --bots agent BOT
--games G --seed {ship.seed}` (or `--bots agent:search={ship.search} BOT`).

### Every seat count, against `heuristic`

{every}

### Strength targets

{chr(10).join(aims)}

### Time a move takes

Median milliseconds per move over positions of random games with more than one legal move, on the
machine that shipped it:

| seats | `agent` | `agent:search={ship.search}` |
|---|---|---|
{timing}
{opening}"""


def ship_run(ship: ShipConfig) -> tuple[Path, str]:
    """Measure a run's network and ship it: ``bots/agents/<game>.npz`` with its card ``.md`` and its
    measured rows ``.json``. Returns the network's file and the card."""
    selection = select(ship)
    game_name = selection.config["game"]
    if ship.refit_value:
        refit_file = selection.net_file.with_name(selection.net_file.stem + "-refit.npz")
        refit_value(
            selection.net_file, game_name, ship.refit_value, ship.refit_games, ship.refit_seed, refit_file
        )
        selection.net_file = refit_file
    strength = measure_strength(game_name, selection.net_file, ship)
    net, reproduce_line = with_recipe(selection, ship)
    training = training_section(selection, net, reproduce_line)
    card = card_text(game_name, training, strength_section(game_name, ship, strength))
    shipped = AGENTS_DIR / f"{game_name}.npz"
    net.save(shipped)
    shipped.with_suffix(".md").write_text(card)
    shipped.with_suffix(".json").write_text(json.dumps(strength.rows, indent=1) + "\n")
    return shipped, card


def remeasure(game_name: str, ship: ShipConfig) -> tuple[Path, str]:
    """Measure the agent shipped for ``game_name`` again (``ship``'s games, search and seed;
    its run, round and average are not read): rewrite its card's strength section, naming the
    command, and its ``.json``; the network, the card's training section and its strength league
    section stay as they are."""
    shipped = AGENTS_DIR / f"{game_name}.npz"
    if not shipped.exists():
        raise ConfigError(
            f"no agent is shipped for {game_name!r}: ship a run folder of `tablezoo expert` first"
        )
    if ship.round is not None or ship.average != 1:
        raise ConfigError(
            "--round and --average choose a run's network: a shipped agent is measured as it is"
        )
    old = shipped.with_suffix(".md").read_text()
    start, end = old.find("## How it was trained"), old.find("## How strong it is")
    if start < 0 or end < start:
        raise ConfigError(f"{shipped.with_suffix('.md')} is not a model card of `tablezoo ship`")
    league = old.find(LEAGUE_MARK)  # the strength league's section (release.cards.update_card)
    training = old[start:end].rstrip("\n") + "\n"
    if ship.refit_value:
        net = refit_value(shipped, game_name, ship.refit_value, ship.refit_games, ship.refit_seed, shipped)
        if net.meta.get(RECIPE):  # reproduced by running this command after the recorded ones
            net.meta[RECIPE] = [*net.meta[RECIPE], ship.command()]
            net.save(shipped)
        training = with_refit_lines(training, net, ship.command())
    strength = measure_strength(game_name, shipped, ship)
    measured = f"Measured by `{ship.command()}`.\n\n"
    section = strength_section(game_name, ship, strength).replace("\n\n", "\n\n" + measured, 1)
    card = card_text(game_name, training, section)
    if league >= 0:
        card = card.rstrip("\n") + "\n\n" + old[league:]
    shipped.with_suffix(".md").write_text(card)
    shipped.with_suffix(".json").write_text(json.dumps(strength.rows, indent=1) + "\n")
    return shipped, card


def cmd_ship(args: argparse.Namespace) -> None:
    """``tablezoo ship``: ship the run as the command line says (or measure a game's shipped agent
    again), and print the card."""
    settings = {f.name: getattr(args, f.name) for f in fields(ShipConfig)}
    ship = ShipConfig(
        **{**settings, "num_players": tuple(args.num_players), "refit_value": tuple(args.refit_value)}
    )
    name = str(args.run)
    if name in GAMES and not args.run.is_dir():
        shipped, card = remeasure(name, ship)
        print(card)
        print(f"measured {shipped} again: .md and .json rewritten")
        return
    shipped, card = ship_run(ship)
    print(card)
    print(f"shipped {shipped}, .md and .json")


def add_ship_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo ship`` to the sub-commands of the command line: a flag per :class:`ShipConfig`
    setting."""
    p = subparsers.add_parser(
        "ship",
        help="measure an expert-iteration run's network and ship it as its game's agent, with a model card",
        description=__doc__.splitlines()[0],
    )
    add_arguments(p, ShipConfig, defaults=True)
    p.set_defaults(func=cmd_ship)
    return p


def main(argv: list[str] | None = None) -> None:
    """``python -m tablezoo.release.ship ARGS``: the same as ``tablezoo ship ARGS`` (the form shipped
    networks record, see :data:`~tablezoo.release.recipe.SHIP`)."""
    commands = argparse.ArgumentParser(prog="python -m tablezoo.release.ship").add_subparsers()
    parser = add_ship_parser(commands)
    parser.prog = "python -m tablezoo.release.ship"
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        cmd_ship(args)
    except TablezooError as err:
        sys.exit(f"tablezoo: {err}")


if __name__ == "__main__":
    main()
