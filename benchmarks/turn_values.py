"""Heckmeck's turn played exactly over its dice, each way it can end valued by the network's head.

Does the network leave strength behind within a turn (which face to keep, when to stop), or is
it its values that bound the search? Heckmeck's turn is small enough to solve: the turn solver
(:class:`tablezoo.bots.heckmeck.TurnSolver`) enumerates every roll with its odds. Here its claims
are not valued in worms but by the shipped network's win share for the mover right after the
turn ends that way (each tile it may take, each top it may steal, or a bust), so that the turn
is played to maximise exactly what the search's ``leaf=turn`` averages by sampling. This player
(``turn-solver``) and the network alone (``agent``) each meet the network alone in the same
seeded games (the seat taken in turn), and the row gives both win shares and the paired gain::

    python benchmarks/turn_values.py --games-played 1000 \\
        --out benchmarks/results/search_scaling/turn_values.json

Measured (2 seats, 1,000 games, seed 0, 316 s): the exact turn wins 0.447 [0.416, 0.478], the
network alone 0.534 in the same games, a paired loss of 0.087 (95% interval 0.043 to 0.131).
Played to the letter of the head's values the turn is worse than the network's own play: an
exact maximum over a value's errors finds them. The head's values, not the network's play
within a turn, are what a search that trusts them cannot go past.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.heckmeck import TurnSolver, kept_mask
from tablezoo.bots.net import PolicyValueNet, win_share
from tablezoo.bots.registry import shipped_agent
from tablezoo.evaluation.stats import wilson
from tablezoo.games import make
from tablezoo.games.core import TERMINAL
from tablezoo.games.heckmeck import KEEPING, OVER, ROLL, STEAL, TAKE, Heckmeck, HeckmeckState


class ValuedTurn(TurnSolver):
    """A :class:`TurnSolver` whose claims are worth the network's win share for the mover after
    the turn ends with them (and a bust what it leaves), instead of worms."""

    def __init__(self, game: Heckmeck, state: HeckmeckState, value: Any) -> None:
        me = state.turn

        def after(end: Any) -> float:
            x = game.clone(state)
            end(x)
            return float(value(x, me))

        def take(t: int) -> Any:
            def end(x: HeckmeckState) -> None:
                x.grill.remove(t)
                x.stacks[me].append(t)
                game._end_turn(x, "")  # the engine's own end of a turn, as a claim makes it

            return end

        def steal(victim: int) -> Any:
            def end(x: HeckmeckState) -> None:
                x.stacks[me].append(x.stacks[victim].pop())
                game._end_turn(x, "")

            return end

        self.bust_value = after(lambda x: game._bust(x, ""))
        self.take = {t: after(take(t)) for t in state.grill}
        self.steal = {s[-1]: after(steal(v)) for v, s in enumerate(state.stacks) if s and v != me}
        self.claim: list[float | None] = [None] * 41
        for total in range(41):
            below = [t for t in state.grill if t <= total]
            options = ([self.take[max(below)]] if below else []) + (
                [self.steal[total]] if total in self.steal else []
            )
            self.claim[total] = max(options) if options else None
        self.after_keep = functools.cache(self._after_keep)
        self.before_roll = functools.cache(self._before_roll)


class ValuedTurnBot:
    """Plays each turn by :class:`ValuedTurn`, solved once a turn."""

    def __init__(self, game: Heckmeck, net: PolicyValueNet) -> None:
        self.game, self.net = game, net
        self.solved: tuple[Any, ValuedTurn] | None = None

    def reset(self, seed: int | None = None) -> None:
        self.solved = None

    def value(self, x: HeckmeckState, seat: int) -> float:
        if x.phase == OVER:
            return win_share(self.game, x, seat)
        return self.net.evaluate(self.net.reads(self.game, self.game.observe(x, seat)))[1]

    def act(self, seat: Seat) -> int:
        state: HeckmeckState = seat.public_state()
        board = (tuple(state.grill), tuple(map(tuple, state.stacks)), state.turn)
        if self.solved is None or self.solved[0] != board:
            self.solved = (board, ValuedTurn(self.game, state, self.value))
        solver = self.solved[1]
        kept, left, total = kept_mask(state), state.left, state.total
        if state.phase == KEEPING:
            return solver.best_keep(kept, left, total, state.roll)[0]
        tile, _ = self.game.claims(state)
        options = {
            TAKE: lambda: solver.take[tile],
            STEAL: lambda: solver.steal[state.total],
            ROLL: lambda: solver.before_roll(kept, left, total),
        }
        return max(seat.legal, key=lambda a: options[a]())


class NetworkBot:
    def __init__(self, game: Heckmeck, net: PolicyValueNet) -> None:
        self.game, self.net = game, net

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, seat: Seat) -> int:
        return int(self.net.act(self.net.reads(self.game, seat.observation), seat.mask))


def credits(player: str, games: int, seed: int) -> list[float]:
    """The player's credit in each of ``games`` seeded games against the network alone, 2 seats."""
    game = make("heckmeck", 2, core="python")
    net = shipped_agent(game)
    seeds = np.random.SeedSequence(seed).generate_state(games)
    out = []
    for g in range(games):
        me = g % 2
        bots = [
            ValuedTurnBot(game, net) if s == me and player == "turn-solver" else NetworkBot(game, net)
            for s in range(2)
        ]
        chance = np.random.default_rng(int(seeds[g]))
        state = game.initial_state()
        while (mover := game.advance(state, chance)) != TERMINAL:
            game.apply(state, bots[mover].act(Seat.of(game, state, mover)))
        winners = game.winners(state)
        out.append(1.0 / len(winners) if me in winners else 0.0)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-played", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    solved = np.array(credits("turn-solver", args.games_played, args.seed))
    alone = np.array(credits("agent", args.games_played, args.seed))
    n = len(solved)
    gain = solved - alone
    row = {
        "game": "heckmeck",
        "seats": 2,
        "games": n,
        "seed": args.seed,
        "turn_solver_win_share": float(solved.mean()),
        "turn_solver_interval": list(wilson(float(solved.mean()), n)),
        "agent_win_share": float(alone.mean()),
        "paired_gain": float(gain.mean()),
        "paired_gain_half_width": float(1.96 * gain.std(ddof=1) / np.sqrt(n)),
        "wall_seconds": round(time.perf_counter() - start, 1),
    }
    json.dump(row, sys.stdout, indent=2)
    print()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(row, indent=2) + "\n")


if __name__ == "__main__":
    main()
