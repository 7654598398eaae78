"""Diamant's search against the ``search`` bot, with the other seats modelled in different ways.

Against copies of the network the Gumbel root gains more in Diamant than in any other game, yet
against the game's ``search`` bot it loses to the network alone. A simulation models each other
seat twice: its go/camp choice after the searching seat's (the network's move on its own
observation, :data:`tablezoo.bots.search.OTHERS`), and the choice it made in secret earlier in
the same round, which the seat cannot see and the world redraws (the game's ``determinize``:
uniformly, go or camp alike). This plays ``agent:search=N,others=likeliest`` at one seat
against the ``search`` bot at every other, seats rotated, the same seeded games for every model,
and gives each model's win share and its paired gain over the network alone:

* ``alone``: the network alone, no search (the baseline);
* ``network``: the search as it plays, the others by the network's likeliest move;
* ``threshold``: the others' moves after the seat by the threshold rule (the ``heuristic`` bot,
  the rule the ``search`` bot models its opponents by), through an :class:`Evaluator` that
  answers for them;
* ``earlier``: the search as it plays, and the choices made before the seat in the round drawn by
  the network's likeliest move on each of those seats' observation, in the order they chose,
  instead of uniformly::

    python benchmarks/diamant_models.py --seats 4 --models alone network threshold earlier \\
        --games-played 1000 --out benchmarks/results/search_scaling/diamant_models.json

``--first`` starts at a later game, so that a row can be played in parts and joined (the
games' seeds are their numbers).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.diamant import DiamantSearchBot, DiamantThresholdBot
from tablezoo.bots.net import PolicyValueNet, win_share
from tablezoo.bots.registry import shipped_agent
from tablezoo.bots.search import AgentBot, Evaluation, NetworkEvaluator, Request
from tablezoo.evaluation.play import play_out
from tablezoo.evaluation.stats import wilson
from tablezoo.games import make
from tablezoo.games.core import Game
from tablezoo.games.diamant import CAMP, CHOICES, GO, Diamant, DiamantState

MODELS = ("alone", "network", "threshold", "earlier")


class ThresholdOthers(NetworkEvaluator):
    """The network, except that another seat about to move plays the threshold rule: its answer
    for that seat puts the rule's move far above the other."""

    def __init__(self, net: PolicyValueNet) -> None:
        super().__init__(net)
        self.rule = DiamantThresholdBot()

    def evaluate_batch(self, game: Game[Any], requests: Sequence[Request]) -> list[Evaluation]:
        answers = super().evaluate_batch(game, requests)
        out = []
        for (x, mover, observation), (logits, value) in zip(requests, answers, strict=True):
            if observation is None:  # one of the others, about to move
                logits = np.full_like(np.asarray(logits, dtype=np.float32), -30.0)
                logits[self.rule.act(Seat.of(game, x, mover))] = 0.0
            out.append((logits, value))
        return out


class EarlierByNetwork(Diamant):
    """Diamant whose worlds draw the choices made before the seat in the round by the network's
    likeliest move on each chooser's observation, in the order they chose (the engine's own
    ``determinize`` draws them uniformly)."""

    @functools.cached_property
    def evaluator(self) -> NetworkEvaluator:
        return NetworkEvaluator(shipped_agent(self))

    def determinize(self, state: DiamantState, seat: int, rng: np.random.Generator) -> DiamantState:
        world = self.clone(state)
        earlier = [s for s, choice in enumerate(world.choices) if s != seat and choice is not None]
        for s in earlier:  # withdrawn, then made again in order: each chose seeing who had chosen
            world.choices[s] = None
        for s in earlier:
            world.turn = s
            ((logits, _),) = self.evaluator.evaluate_batch(self, [(world, s, self.observe(world, s))])
            world.choices[s] = CHOICES[int(np.argmax(np.asarray(logits)[[GO, CAMP]]))]
        world.turn = state.turn
        return world


def credits(model: str, seats: int, simulations: int, first: int, games: int) -> list[float]:
    """The searching seat's credit in games ``first`` to ``first + games - 1``."""
    # "earlier": a subclass of the Python engine, which plays the same games as the native core
    game: Game[Any] = EarlierByNetwork(seats) if model == "earlier" else make("diamant", seats)
    net = shipped_agent(game)
    if model == "alone":
        me = AgentBot(net, seed=1)
    elif model == "threshold":
        me = AgentBot(ThresholdOthers(net), search=simulations, seed=1, others="likeliest")
    else:
        me = AgentBot(net, search=simulations, seed=1, others="likeliest")
    out = []
    for g in range(first, first + games):
        seat = g % seats
        players: list[Any] = [DiamantSearchBot(seed=1000 * g + s) for s in range(seats)]
        players[seat] = me
        me.reset(seed=g)
        state = game.initial_state()
        play_out(game, state, np.random.default_rng(g), lambda at, players=players: players[at.seat].act(at))
        out.append(win_share(game, state, seat))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--games-played", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0, help="the first game's number (its seed)")
    parser.add_argument("--out", type=Path, help="a JSON file: its rows are joined with these, game by game")
    args = parser.parse_args(argv)
    if args.out and args.out.exists():
        stored = json.loads(args.out.read_text())
    else:
        command = "python benchmarks/diamant_models.py " + " ".join(argv or sys.argv[1:])
        stored = {"command": command, "rows": []}
    played: dict[str, dict[str, float]] = {
        row["model"]: row["credits"] for row in stored["rows"] if row["seats"] == args.seats
    }
    for model in ["alone", *(m for m in args.models if m != "alone")]:
        start = time.perf_counter()
        got = credits(model, args.seats, args.simulations, args.first, args.games_played)
        games = played.setdefault(model, {})
        games.update({str(args.first + i): c for i, c in enumerate(got)})
        print(f"{model}: {len(got)} games in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    alone = played["alone"]
    rows = [row for row in stored["rows"] if row["seats"] != args.seats]
    for model, games in played.items():
        common = sorted(set(games) & set(alone), key=int)
        mine = np.array([games[g] for g in common])
        gain = mine - np.array([alone[g] for g in common])
        n = len(common)
        searched = f"agent:search={args.simulations},others=likeliest"
        half = round(float(1.96 * gain.std(ddof=1) / np.sqrt(n)), 4) if n > 1 else None
        rows.append(
            {
                "seats": args.seats,
                "model": model,
                "searcher": "agent" if model == "alone" else searched,
                "opponent": "search",
                "games": n,
                "win_share": round(float(mine.mean()), 4),
                "win_share_95ci": [round(v, 4) for v in wilson(float(mine.mean()), n)],
                "paired_gain": round(float(gain.mean()), 4),
                "paired_gain_half_width": half,
                "credits": games,
            }
        )
    stored["rows"] = rows
    for row in rows:
        print(
            f"{row['seats']} seats {row['model']:9s} {row['games']:5d} games  {row['win_share']:.3f} "
            f"{row['win_share_95ci']}  gain {row['paired_gain']:+.3f} ± {row['paired_gain_half_width']}"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(stored, indent=1) + "\n")


if __name__ == "__main__":
    main()
