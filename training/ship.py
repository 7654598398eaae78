"""Ship an expert-iteration run as the package's agent for its game, with a model card.

    python -m tablezoo.training.ship runs/expert-heckmeck --games 1000 --search 32 --search-games 200

Copies the run's ``net.npz`` to ``bots/agents/<game>.npz`` (the ``agent`` bot at
every seat count) and writes ``<game>.md`` beside it: how the network was
trained (the ``tablezoo expert`` command that reproduces it, from the run's
``config.json``, and its ``log.jsonl``: iterations, decisions, wall time), and how
strong it is, measured here by tournaments of :mod:`tablezoo.training.evaluate`
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

The shipped network records the commands that trained it and this one
(:data:`~tablezoo.training.reproduce.RECIPE` in its ``meta``), where every network its runs
started from (``--init``) was trained by a run whose folder says how: ``tablezoo reproduce
GAME`` (:mod:`tablezoo.training.reproduce`) runs them again in turn.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import AGENTS_DIR, game_bots, make_bot
from tablezoo.games import game_class, make
from tablezoo.games.core import CHANCE, TERMINAL
from tablezoo.training.evaluate import join_parts, play_part, split_tournament
from tablezoo.training.reproduce import RECIPE, reproduce_text, training_chain

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


def opening_section(worms: float, optimum: float) -> str:
    """The card's section on the opening turn: the agent's exact expected worms against the optimum."""
    aim = 0.97 * optimum
    verdict = "met" if worms >= aim else f"not met (short by {aim - worms:.3f})"
    return (
        "## Opening turn\n\n"
        "Expected worms won on the first turn of a 2-seat game, computed exactly (every roll "
        "with its probability, the agent's move at each decision: "
        "`tablezoo.training.ship.opening_turn_worms`); the target is 97% of the exact optimum:\n\n"
        "| player | expected worms | share of the optimum | target |\n|---|---|---|---|\n"
        f"| `agent` | {worms:.3f} | {worms / optimum:.1%} | {aim:.3f}: {verdict} |\n"
        f"| exact turn solver | {optimum:.3f} | 100% | |\n"
    )


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


def _rounds(k: int) -> str:
    return f"{k} round" + ("" if k == 1 else "s")


def _training_text(config: dict[str, Any], rounds: int) -> str:
    """The card's paragraph on how a run of ``rounds`` rounds trained its network."""
    teacher_rounds = min(config.get("teacher_rounds", 1), rounds)
    parts = []
    if config.get("init"):
        parts.append(f"starting from the network `{config['init']}`")
    if teacher_rounds:
        tables: dict[str, list[str]] = {}  # teacher -> the table sizes it teaches
        for item in config.get("teacher_at", []):
            seats, _, bot = item.partition("=")
            tables.setdefault(bot, []).append(seats)
        taught = sum(len(sizes) for sizes in tables.values())  # tables with a teacher of their own
        named = "" if taught >= len(config["seats"]) else f" of the `{config['teacher']}` bot"
        part = f"imitation{named} ({config['teacher_games']} games a round"
        said = "and the teacher saying what it would have played"
        if config.get("init"):  # the network plays from the first round on
            part += f", {_rounds(teacher_rounds)}, each with the network at half the teacher's seats {said}"
        elif teacher_rounds > 1:
            part += (
                f", {_rounds(teacher_rounds)}: the first with the teacher at its seats, the others with "
                f"the network at half of them {said}"
            )
        part += ")"
        if config.get("soft_targets"):
            part += (
                f"; every legal move taught, weighed exp((value - best) / {config['soft_targets']}) by "
                "the teacher's own values of its moves"
            )
        for bot, sizes in tables.items():
            listed = sizes[0] if len(sizes) == 1 else ", ".join(sizes[:-1]) + f" and {sizes[-1]}"
            part += f"; at {listed} seats the teacher is `{bot}`"
        parts.append(part)
    league_rounds = max(0, min(config.get("league_rounds", 0), rounds - teacher_rounds))
    if league_rounds:
        league = ", ".join(f"`{name}`" for name in dict.fromkeys(config["league"]))
        start = config.get("league_learning_rate", 6e-4)
        end = config.get("league_learning_rate_end", start)
        steps = f"step size {start:g}"
        if end != start:
            planned = config["league_rounds"]
            steps += f" falling along a half cosine over {planned} rounds to {end:g}"
            if league_rounds < planned:
                steps += f", stopped after {league_rounds}"
        parts.append(
            f"{_rounds(league_rounds)} of policy gradient (PPO, {config['league_games']} games a round, "
            f"{steps}): the network, its moves sampled, plays against a league of {league} (`self`: the "
            "network itself) and learns from the win shares of those games"
        )
    searched = rounds - teacher_rounds - league_rounds
    if searched > 0:
        parts.append(
            f"{_rounds(searched)} of self-play in which network-guided search "
            f"({config['simulations']} simulations a move) plays every seat and the network learns the "
            "search's visit counts and the games' outcomes"
        )
    text = "- Expert iteration (`tablezoo.training.expert`): " + ", then ".join(parts)
    return text + f". Seat counts {', '.join(map(str, config['seats']))}, in turn."


PART_GAMES = 50
"""Games of a row played by one task: a long row is shared among the processes, not left to one."""


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


def _row(r: dict[str, Any], target: float | None = None) -> str:
    low, high = r["interval"]
    fair = r["fair_share"]
    verdict = "above" if low > fair else "below" if high < fair else "not clearly above or below"
    cells = [
        str(r["seats"]),
        f"`{r['agent']}`",
        r["against"],
        str(r["games"]),
        f"{r['win_share']:.3f} [{low:.3f}, {high:.3f}]",
        f"{verdict} {fair:.3f}",
    ]
    if target is not None:
        cells.append(f"{target:.3f}: {'met' if low > target else f'not met (short by {target - low:.3f})'}")
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder written by `tablezoo expert`")
    parser.add_argument("--games", type=int, default=1000, help="games per seat count against heuristic")
    parser.add_argument("--target-games", type=int, default=0, help="games per target row (default: --games)")
    parser.add_argument("--search", type=int, default=32, help="agent:search=N rows' N (0: none)")
    parser.add_argument("--search-games", type=int, default=200, help="games per agent:search=N row")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the evaluation tournaments")
    parser.add_argument("--jobs", type=int, default=2, help="processes playing the games")
    parser.add_argument(
        "--round", type=int, default=None, help="ship the network of this round (default: the last)"
    )
    parser.add_argument(
        "--average",
        type=int,
        default=1,
        help="ship the mean of the weights of this many rounds, ending at --round (default 1: that "
        "round's network alone)",
    )
    args = parser.parse_args(argv)

    config = json.loads((args.run / "config.json").read_text())
    log = [json.loads(line) for line in (args.run / "log.jsonl").open()]
    net_file = args.run / "net.npz"
    if args.round is not None:
        if not 0 <= args.round < len(log):
            parser.error(f"--round: the run has rounds 0 to {len(log) - 1}, not {args.round}")
        log = log[: args.round + 1]
        net_file = args.run / f"net-{args.round}.npz"
    averaged = ""
    if args.average != 1:
        last = len(log) - 1
        if not 1 <= args.average <= len(log):
            parser.error(f"--average: 1 to {len(log)} rounds (0 to {last} were played), not {args.average}")
        first = last - args.average + 1
        mean = PolicyValueNet.mean(
            [PolicyValueNet.load(args.run / f"net-{k}.npz") for k in range(first, last + 1)]
        )
        net_file = args.run / f"net-{first}-to-{last}-mean.npz"
        mean.save(net_file)
        averaged = (
            f"- Shipped: the mean of the weights of rounds {first} to {last} (weight averaging, "
            f"`--average {args.average}`), which smooths the noise of single rounds' updates.\n"
        )
    game_name = config["game"]
    info = game_class(game_name).info
    net = PolicyValueNet.load(net_file)
    agent = str(net_file)
    searcher = f"{net_file}:search={args.search}"
    bots = game_bots(game_name)
    targets = [(n, bot if bot in bots else "heuristic", t) for n, bot, t in TARGETS[game_name]]

    tasks = [(game_name, n, agent, "heuristic", args.games, args.seed) for n in info.seat_range]
    target_games = args.target_games or args.games
    tasks += [(game_name, n, agent, bot, target_games, args.seed) for n, bot, _ in targets]
    if args.search:
        tasks += [(game_name, n, searcher, bot, args.search_games, args.seed) for n, bot, _ in targets]
    unique = list(dict.fromkeys(tasks))
    results = dict(zip(unique, measure(unique, args.jobs), strict=True))
    for r in results.values():
        r["agent"] = "agent" if r["agent"] == agent else f"agent:search={args.search}"

    header = "| seats | player | against | games | win share [95% CI] | fair share |"
    every = [header, "|---|---|---|---|---|---|"]
    every += [_row(results[t]) for t in tasks[: len(info.seat_range)]]
    aims = [header + " target |", "|---|---|---|---|---|---|---|"]
    for n, bot, target in targets:
        aims.append(_row(results[(game_name, n, agent, bot, target_games, args.seed)], target))
        if args.search:
            aims.append(_row(results[(game_name, n, searcher, bot, args.search_games, args.seed)], target))

    extra = ""
    if game_name == "heckmeck":
        from tablezoo.bots.heckmeck import TurnSolver

        worms = opening_turn_worms(make_bot(agent, make("heckmeck", 2)))
        exact = TurnSolver(list(range(21, 37)), [], []).before_roll(0, 8, 0)
        extra = "\n" + opening_section(worms, exact)

    latency = [
        (
            n,
            move_times(agent, game_name, n, 200, args.seed),
            move_times(searcher, game_name, n, 50, args.seed),
        )
        for n in (info.min_seats, info.max_seats)
    ]
    timing = "\n".join(f"| {n} | {alone:.2f} | {searching:.1f} |" for n, alone, searching in latency)
    decisions = sum(e.get("decisions", 0) for e in log)
    hours = sum(e["play_seconds"] + e["fit_seconds"] for e in log) / 3600
    iterations = "\n".join(
        f"| {e['iteration']} | {e['player']} | {e.get('decisions', '')} | {e['buffer']} | "
        f"{e['policy_loss']:.3f} | {e['value_loss']:.3f} | {e['play_seconds'] + e['fit_seconds']:.0f} | "
        + ", ".join(f"{k} {v[0]:.2f}" for k, v in e.get("against_heuristic", {}).items())
        + " |"
        for e in log
    )
    hidden = net.meta.get("hidden", [w.shape[0] for w in net.weights[:-1]])
    trained = _training_text(config, len(log))
    policy_layer = f"{net.num_actions} action logits"
    if net.head is not None:
        policy_layer = (
            f"{net.num_actions} action logits (the first {net.head.size} from one action head of "
            f"{len(net.head.bias)} hidden units shared by those actions, reading each one's entries "
            "of the action fields; the others linear)"
        )
    ship_command = " ".join(
        ["python -m tablezoo.training.ship", str(args.run)]
        + [
            f"--{key.replace('_', '-')} {value}"
            for key, value in vars(args).items()
            if key not in ("run", "jobs") and value != parser.get_default(key)
        ]
    )
    chain_text = reproduce_text(config, len(log))
    reproduce_line = f"{chain_text}, then\n  `{ship_command}`."
    # the shipped network carries the commands that train and ship it again (`tablezoo reproduce`)
    chain, unrecorded = training_chain(config, len(log))
    net.meta.pop(RECIPE, None)
    if unrecorded is None:
        net.meta[RECIPE] = [command for command, _ in chain] + [ship_command]
        reproduce_line = (
            f"`tablezoo reproduce {game_name}` runs {chain_text}; with `--ship` it then runs\n"
            f"  `{ship_command}`, which measures the network and ships it with this card."
        )
    net.save(AGENTS_DIR / f"{game_name}.npz")
    card = f"""# {info.title}: shipped agent, every seat count ({info.min_seats} to {info.max_seats})

Seat it with the bot name `agent` (the network alone: about a millisecond a move) or
`agent:search=N` (the network guiding N simulations of search), at a table
(`/bot agent`), in `tablezoo play {game_name} --bot agent` or `tablezoo evaluate`. It runs on
numpy alone (`tablezoo.bots.net.PolicyValueNet.load`); `tablezoo export {game_name} --players N`
writes it as ONNX.

## How it was trained

{trained}
{averaged}- Network: padded observation ({net.observation_size} inputs, the seat count one-hot) -> hidden
  layers {hidden} (ReLU) -> {policy_layer} and a win-share head.
- {len(log)} rounds, {decisions} recorded decisions, {hours:.2f} hours of play and training on
  {config["workers"]} self-play process(es) of a shared 2-core machine.
- Reproduce (from a clean clone, after `make`): {reproduce_line}

| round | player | decisions | buffer | policy loss | value loss | seconds | network alone vs heuristic |
|---|---|---|---|---|---|---|---|
{iterations}

## How strong it is

The agent at one seat (rotated over the seats), every other seat the named bot, tournament
seed {args.seed}. Reproduce a row with `tablezoo evaluate {game_name} --players N --bots agent BOT
--games G --seed {args.seed}` (or `--bots agent:search={args.search} BOT`).

### Every seat count, against `heuristic`

{chr(10).join(every)}

### Strength targets

{chr(10).join(aims)}

### Time a move takes

Median milliseconds per move over positions of random games with more than one legal move, on the
machine that shipped it:

| seats | `agent` | `agent:search={args.search}` |
|---|---|---|
{timing}
{extra}"""
    (AGENTS_DIR / f"{game_name}.md").write_text(card)
    (AGENTS_DIR / f"{game_name}.json").write_text(json.dumps(list(results.values()), indent=1) + "\n")
    print(card)
    print(f"shipped {AGENTS_DIR / game_name}.npz, .md and .json")


if __name__ == "__main__":
    main()
