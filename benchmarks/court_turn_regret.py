"""How far a To Court the King network's play within a turn is from the best play of that turn.

To Court the King's search changes few of the network's moves (about 2% at 256 simulations) and
gains about 0.05 head to head: the network is sure of most of its moves, and a move has to look
clearly better in the simulations to be changed. Whether the network is right where it is sure
needs a yardstick that knows the best move. Here it is an exact expectimax over the rest of a
turn: every roll of the turn by its odds (:meth:`~tablezoo.games.core.Game.chance_outcomes`), the
best of the seat's legal moves at each of its decisions, every step of a card's use included.
Where the turn ends (the card taken, or the turn passed), the position is valued as the search
values its leaves (``leaf=turn``): the other seat's turn played by the network's likeliest moves
over ``--worlds`` dice draws, the same draws for every ending of the turn (common random numbers),
then the network's value head at the seat's next turn (or the game's result). The yardstick is
the network's own judgement beyond the turn, and exact within it.

The network plays itself (its likeliest legal move at every seat, as ``agent`` plays). At the start
of each turn whose positions number at most ``--limit`` decisions (a turn with many dice and cards
has millions, and a roll of more than eight dice is not enumerated), the turn is solved: each
decision of the turn with a choice gets its regret, the best move's value less the network's
move's, in win share; the turn gets the regret of the network's whole turn (the turn's value
played best, less its value played by the network, both exact over the turn's dice). Rows by kind
of decision (``play``: set a die aside, roll, use a card; ``step``: a step of a card's use;
``take``: the card to take) give the mean regret, the share above 0.005, 0.02 and 0.05, and the
share of the regret those carry::

    python benchmarks/court_turn_regret.py --games-played 30 --seed 0 \\
        --searcher agent:search=256,others=likeliest,confidence=1 \\
        --out benchmarks/results/search_scaling/court_turn_regret.json

``--searcher NAME`` (a bot of the native core, such as
``agent:search=256,others=likeliest,confidence=1``) is asked at each of the network's solved
decisions too, on the same position (the network's move is still the one played): the share of
decisions it changes, the win share a change gains by the yardstick, the share of its changes
that are better, and the share of the network's errors above 0.02 it mends.

``--advised-games G`` then asks whether the yardstick's values make a better player: in ``G``
games the network plays against itself with one seat (the next in turn) advised, its logits plus
``--heed`` logits for each unit of win share a move's value lies below the best move's (in the
turns the solver takes; the network alone elsewhere), and the row gives that seat's win share, and
the same seat's share in games of the same seeds unadvised (the network against itself; a game
parts from its twin at the first move the advice changes)::

    python benchmarks/court_turn_regret.py --advised-games 400 --seed 0 --heed 100 \\
        --out benchmarks/results/search_scaling/court_turn_regret.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import make_bot, shipped_agent
from tablezoo.evaluation.stats import wilson
from tablezoo.games import make
from tablezoo.games.core import CHANCE, TERMINAL, Game
from tablezoo.games.court import DIE, TAKE

WORLDS = 8
"""The dice draws of the other seats' turns that value each ending of a turn."""

LIMIT = 20_000
"""The most decisions a solved turn may have (a first turn, of three dice and no cards, has
about 600; late turns of eight dice and a dozen cards have millions)."""


class TurnTooLargeError(Exception):
    """The turn has more decisions than the solver may visit, or a roll it does not enumerate."""


class TurnSolver:
    """The exact expectimax of the rest of ``seat``'s turn, its endings valued by ``net`` one
    turn on over ``worlds`` dice draws (seeded by ``seed``) shared by every ending."""

    def __init__(
        self,
        game: Game[Any],
        net: PolicyValueNet,
        seat: int,
        worlds: int = WORLDS,
        limit: int = LIMIT,
        seed: int = 0,
    ) -> None:
        self.game, self.net, self.seat = game, net, seat
        self.worlds, self.limit, self.seed = worlds, limit, seed
        self.values: dict[bytes, float] = {}  # a position of the turn: its value played best
        self.ends: dict[bytes, float] = {}  # an ending of the turn: its value one turn on
        self.network: dict[bytes, float] = {}  # a position of the turn: its value played by the network
        self.decisions = 0

    def key(self, x: Any) -> bytes:
        return self.game.encode_state(x).tobytes()

    def ended(self, x: Any) -> bool:
        """Whether the seat's turn is over in ``x`` (another seat's turn, its first roll, or the end)."""
        mover = self.game.to_move(x)
        if mover == CHANCE:
            return bool(self.game.view(x, None)["phase"] == "start")
        return mover != self.seat

    def end_value(self, x: Any) -> float:
        """The seat's win share one turn after the ending ``x``: the others' turns played by the
        network's likeliest moves on each world's dice, then the head (or the game's result)."""
        key = self.key(x)
        if key in self.ends:
            return self.ends[key]
        game, total = self.game, 0.0
        for w in range(self.worlds):
            y = game.clone(x)
            rng = np.random.default_rng([self.seed, w])
            while True:
                mover = game.advance(y, rng)
                if mover == TERMINAL:
                    winners = game.winners(y)
                    total += 1.0 / len(winners) if self.seat in winners else 0.0
                    break
                logits, value = self.net.evaluate(self.net.reads(game, game.observe(y, mover)))
                if mover == self.seat:
                    total += float(value)
                    break
                legal = game.legal_actions(y)
                game.apply(y, legal[int(np.argmax(np.asarray(logits)[legal]))], check=False)
        self.ends[key] = total / self.worlds
        return self.ends[key]

    def _outcomes(self, x: Any) -> list[tuple[Any, float]]:
        try:
            return list(self.game.chance_outcomes(x))
        except NotImplementedError as err:
            raise TurnTooLargeError(str(err)) from None

    def _after(self, x: Any, move: int) -> Any:
        y = self.game.clone(x)
        self.game.apply(y, move, check=False)
        return y

    def _expected(self, x: Any, value: Any) -> float:
        total = 0.0
        for outcome, p in self._outcomes(x):
            y = self.game.clone(x)
            self.game.apply_chance(y, outcome, check=False)
            total += p * value(y)
        return total

    def value(self, x: Any, start: bool = False) -> float:
        """The value of ``x`` played best: a position of the turn, one of its endings, or with
        ``start`` the turn's first roll. Raises :class:`TurnTooLargeError` past ``limit``."""
        if not start and self.ended(x):
            return self.end_value(x)
        key = self.key(x)
        if key not in self.values:
            if self.game.to_move(x) == CHANCE:
                self.values[key] = self._expected(x, self.value)
            else:
                self.decisions += 1
                if self.decisions > self.limit:
                    raise TurnTooLargeError(f"more than {self.limit} decisions")
                self.values[key] = max(self.q(x))
        return self.values[key]

    def q(self, x: Any) -> list[float]:
        """The value of each legal move at the seat's decision ``x`` (``legal_actions``' order)."""
        return [self.value(self._after(x, a)) for a in self.game.legal_actions(x)]

    def likeliest(self, x: Any) -> int:
        """The network's move at the seat's decision ``x`` (its likeliest legal move)."""
        legal = self.game.legal_actions(x)
        logits, _ = self.net.evaluate(self.net.reads(self.game, self.game.observe(x, self.seat)))
        return legal[int(np.argmax(np.asarray(logits)[legal]))]

    def network_value(self, x: Any, start: bool = False) -> float:
        """The value of ``x`` with the rest of the turn played by the network's likeliest moves."""
        if not start and self.ended(x):
            return self.end_value(x)
        key = self.key(x)
        if key not in self.network:
            if self.game.to_move(x) == CHANCE:
                self.network[key] = self._expected(x, self.network_value)
            else:
                self.network[key] = self.network_value(self._after(x, self.likeliest(x)))
        return self.network[key]


THRESHOLDS = (0.005, 0.02, 0.05)
"""The regrets (win share) above which the rows count the decisions and the regret they carry."""

KINDS = ("play", "step", "take")


def kind(legal: list[int]) -> str:
    """The kind of a decision, by its legal moves: the card to take, a step of a card's use, or play."""
    if legal[0] >= TAKE:
        return "take"
    return "step" if legal[0] >= DIE else "play"


def regrets(
    net: PolicyValueNet, seats: int, games: int, seed: int, worlds: int, limit: int, searcher: str | None
) -> dict[str, Any]:
    """The regrets of ``net``'s decisions and turns over ``games`` games of it against itself."""
    game = make("court", seats, core="native")
    bot = make_bot(searcher, game) if searcher else None
    decisions: dict[str, list[tuple[float, float]]] = {k: [] for k in KINDS}  # (regret, logit gap)
    turns: list[float] = []
    pairs: list[tuple[float, float]] = []
    skipped, solve_seconds = 0, 0.0
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        if bot is not None:
            bot.reset(int(np.random.default_rng([seed, g, 1]).integers(2**31)))
        state = game.initial_state()
        solver: TurnSolver | None = None
        for _ in range(100_000):
            mover = game.to_move(state)
            if mover == TERMINAL:
                break
            if mover == CHANCE:
                if game.view(state, None)["phase"] == "start":
                    start = time.perf_counter()
                    seat = int(game.view(state, None)["turn"])
                    solver = TurnSolver(game, net, seat, worlds, limit, seed=int(rng.integers(2**31)))
                    try:
                        best = solver.value(state, start=True)
                        turns.append(best - solver.network_value(state, start=True))
                    except TurnTooLargeError:
                        solver, skipped = None, skipped + 1
                    solve_seconds += time.perf_counter() - start
                game.step_chance(state, rng)
                continue
            at = Seat.of(game, state, mover)
            logits, _ = net.evaluate(net.reads(game, at.observation))
            chosen = np.asarray(logits)[at.legal]
            move = at.legal[int(np.argmax(chosen))]
            if solver is not None and len(at.legal) > 1:
                q = solver.q(state)
                regret = max(q) - q[at.legal.index(move)]
                gap = float(np.sort(chosen)[-1] - np.sort(chosen)[-2])
                decisions[kind(at.legal)].append((regret, gap))
                if bot is not None:
                    searched = bot.act(at)
                    pairs.append((regret, max(q) - q[at.legal.index(searched)]))
            game.apply(state, move)
    return {
        "decisions": decisions,
        "turns": turns,
        "pairs": pairs,
        "turns_skipped": skipped,
        "solve_seconds": solve_seconds,
    }


def advised_games(
    net: PolicyValueNet, seats: int, games: int, seed: int, worlds: int, limit: int, heed: float
) -> dict[str, Any]:
    """``games`` games of ``net`` against itself, one seat advised by the turn's values (none:
    ``heed`` 0): that seat's credits, and the share of its decisions with a choice in solved turns
    where the advice changed the network's move."""
    game = make("court", seats, core="native")
    credits, changed, advised, solved, skipped = [], 0, 0, 0, 0
    for g in range(games):
        me = g % seats
        rng = np.random.default_rng([seed, g])
        state = game.initial_state()
        solver: TurnSolver | None = None
        for _ in range(100_000):
            mover = game.to_move(state)
            if mover == TERMINAL:
                break
            if mover == CHANCE:
                view = game.view(state, None)
                if view["phase"] == "start":
                    solver = None
                    if view["turn"] == me and heed > 0:
                        solver = TurnSolver(game, net, me, worlds, limit, seed=int(rng.integers(2**31)))
                        try:
                            solver.value(state, start=True)
                            solved += 1
                        except TurnTooLargeError:
                            solver, skipped = None, skipped + 1
                game.step_chance(state, rng)
                continue
            at = Seat.of(game, state, mover)
            logits, _ = net.evaluate(net.reads(game, at.observation))
            prior = np.asarray(logits, dtype=np.float64)[at.legal]
            if mover == me and solver is not None and len(at.legal) > 1:
                q = np.asarray(solver.q(state))
                advised_prior = prior + heed * (q - q.max())
                advised += 1
                changed += int(np.argmax(advised_prior)) != int(np.argmax(prior))
                prior = advised_prior
            game.apply(state, at.legal[int(np.argmax(prior))])
        if game.to_move(state) == TERMINAL:
            winners = game.winners(state)
            credits.append(1.0 / len(winners) if me in winners else 0.0)
        else:
            credits.append(1.0 / seats)
    return {"credits": credits, "changed": changed / max(advised, 1), "solved": solved, "skipped": skipped}


def summary(values: list[tuple[float, float]], games: int, seats: int) -> dict[str, Any]:
    """The regret of decisions: mean, shares above each threshold and the regret they carry, the
    regret a seat and game, and the network's mean logit gap at the decisions above 0.02."""
    r = np.asarray([v for v, _ in values], dtype=float)
    gaps = np.asarray([g for _, g in values], dtype=float)
    total = float(r.sum())
    row: dict[str, Any] = {"decisions": len(r), "mean_regret": round(float(r.mean()), 5) if len(r) else None}
    for t in THRESHOLDS:
        above = r > t + 1e-9
        row[f"share_above_{t}"] = round(float(above.mean()), 4) if len(r) else None
        row[f"regret_share_above_{t}"] = round(float(r[above].sum()) / total, 4) if total else None
    wrong = r > 0.02 + 1e-9
    row["logit_gap_where_above_0.02"] = round(float(np.median(gaps[wrong])), 2) if wrong.any() else None
    row["regret_per_seat_and_game"] = round(total / (games * seats), 4)
    return row


def search_summary(pairs: list[tuple[float, float]]) -> dict[str, Any]:
    """Where a searcher's changes of the network's moves land by the turn's yardstick."""
    p = np.asarray(pairs, dtype=float).reshape(-1, 2)
    gain = p[:, 0] - p[:, 1]
    changed = np.abs(gain) > 1e-9
    errors = p[:, 0] > 0.02 + 1e-9
    return {
        "decisions": len(p),
        "changed_in_value": round(float(changed.mean()), 4) if len(p) else None,
        "gain_a_change": round(float(gain[changed].mean()), 4) if changed.any() else None,
        "changes_better": round(float((gain[changed] > 0).mean()), 4) if changed.any() else None,
        "errors_above_0.02": int(errors.sum()),
        "errors_mended": round(float((gain[errors] > 1e-9).mean()), 4) if errors.any() else None,
        "gain_a_decision": round(float(gain.mean()), 5) if len(p) else None,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--net", type=Path, help="a network (.npz); default: the shipped agent")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--games-played", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worlds", type=int, default=WORLDS, help="dice draws valuing each ending of a turn")
    parser.add_argument("--limit", type=int, default=LIMIT, help="most decisions of a solved turn")
    parser.add_argument("--searcher", help="a native bot asked at the network's solved decisions too")
    parser.add_argument("--advised-games", type=int, default=0, help="games of the advised network")
    parser.add_argument("--heed", type=float, default=1000.0, help="logits a unit of win share weighs")
    parser.add_argument("--out", type=Path, help="a JSON file the row is added to")
    args = parser.parse_args(argv)
    game = make("court", args.seats)
    net = PolicyValueNet.load(args.net) if args.net else shipped_agent(game)
    start = time.perf_counter()
    if args.advised_games:
        played = advised_row(net, args)
        played["wall_seconds"] = round(time.perf_counter() - start, 1)
        write(played, args, argv)
        return
    found = regrets(net, args.seats, args.games_played, args.seed, args.worlds, args.limit, args.searcher)
    every = [d for kind_rows in found["decisions"].values() for d in kind_rows]
    turns = np.asarray(found["turns"], dtype=float)
    row: dict[str, Any] = {
        "network": str(args.net or "agent"),
        "seats": args.seats,
        "games": args.games_played,
        "seed": args.seed,
        "worlds": args.worlds,
        "limit": args.limit,
        "turns_solved": len(turns),
        "turns_skipped": found["turns_skipped"],
        "turn_regret_mean": round(float(turns.mean()), 5) if len(turns) else None,
        "turn_regret_share_above_0.02": round(float((turns > 0.02).mean()), 4) if len(turns) else None,
        "turn_regret_per_seat_and_game": round(float(turns.sum()) / (args.games_played * args.seats), 4),
    }
    row |= summary(every, args.games_played, args.seats)
    row["by_kind"] = {k: summary(v, args.games_played, args.seats) for k, v in found["decisions"].items()}
    if args.searcher:
        row["searcher"] = {"name": args.searcher} | search_summary(found["pairs"])
    row["solve_seconds"] = round(found["solve_seconds"], 1)
    row["wall_seconds"] = round(time.perf_counter() - start, 1)
    write(row, args, argv)


def advised_row(net: PolicyValueNet, args: argparse.Namespace) -> dict[str, Any]:
    """The row of ``--advised-games``: the advised seat's win share, and the same seat's unadvised."""
    shares = {}
    for name, heed in (("advised", args.heed), ("alone", 0.0)):
        played = advised_games(net, args.seats, args.advised_games, args.seed, args.worlds, args.limit, heed)
        share = float(np.mean(played["credits"]))
        low, high = wilson(share, len(played["credits"]))
        shares[name] = played | {"share": share, "interval": [round(low, 4), round(high, 4)]}
    gain = np.asarray(shares["advised"]["credits"]) - np.asarray(shares["alone"]["credits"])
    half = 1.96 * float(gain.std(ddof=1)) / np.sqrt(len(gain)) if len(gain) > 1 else float("nan")
    return {
        "network": str(args.net or "agent"),
        "seats": args.seats,
        "advised_games": args.advised_games,
        "seed": args.seed,
        "worlds": args.worlds,
        "limit": args.limit,
        "heed": args.heed,
        "advised_share": round(shares["advised"]["share"], 4),
        "advised_interval": shares["advised"]["interval"],
        "alone_share": round(shares["alone"]["share"], 4),
        "gain": round(float(gain.mean()), 4),
        "gain_interval": [round(float(gain.mean()) - half, 4), round(float(gain.mean()) + half, 4)],
        "changed": round(shares["advised"]["changed"], 4),
        "turns_solved": shares["advised"]["solved"],
        "turns_skipped": shares["advised"]["skipped"],
        "credits": shares["advised"]["credits"],
    }


def write(row: dict[str, Any], args: argparse.Namespace, argv: list[str] | None) -> None:
    """Print ``row``, and add it to ``--out`` with the command that made it."""
    print(json.dumps({k: v for k, v in row.items() if k != "credits"}, indent=1), flush=True)
    if args.out:
        command = " ".join(["benchmarks/court_turn_regret.py", *(argv if argv is not None else sys.argv[1:])])
        body = json.loads(args.out.read_text()) if args.out.exists() else {"rows": []}
        body["rows"].append({"command": command} | row)
        args.out.write_text(json.dumps(body, indent=1) + "\n")


if __name__ == "__main__":
    main()
