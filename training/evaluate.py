"""Tournaments between bots: rotated seats, fixed seeds, win rates with 95% intervals.

Every game of a tournament seats the line-up rotated by one more place, so each
bot plays every seat equally often, and uses its own seed (split from the
tournament's seed), so a tournament is repeatable to the move. A win shared by
``k`` seats counts ``1/k`` to each.

Two bots that never end a game (possible in To Court the King, where only
seven of a kind brings the end) would hang a tournament: a game is stopped after
``max_decisions`` decisions, counts as shared by every seat, and is reported
as truncated. The rules are never changed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.games.core import TERMINAL, Game

MAX_DECISIONS = 20_000


def play_game(
    game: Game[Any], bots: Sequence[Bot], seed: int, max_decisions: int = MAX_DECISIONS
) -> tuple[list[int] | None, list[float]]:
    """One game with ``bots[s]`` at seat ``s``: the winners (``None`` if it was
    stopped after ``max_decisions``) and the scores."""
    seeds = np.random.SeedSequence(seed).generate_state(len(bots) + 1)
    chance = np.random.default_rng(int(seeds[0]))
    for bot, bot_seed in zip(bots, seeds[1:], strict=True):
        bot.reset(int(bot_seed))
    state = game.initial_state()
    for _ in range(max_decisions):
        mover = game.advance(state, chance)
        if mover == TERMINAL:
            return game.winners(state), game.scores(state)
        game.apply(state, bots[mover].act(Seat.of(game, state, mover)))
    if game.advance(state, chance) == TERMINAL:
        return game.winners(state), game.scores(state)
    return None, game.scores(state)


@dataclass
class Standing:
    """One entrant's results over a tournament."""

    name: str
    credits: list[float] = field(default_factory=list)  # win credit per game (1/k for a k-way tie)
    scores: list[float] = field(default_factory=list)
    truncated: int = 0  # games stopped at the decision limit (each seat credited 1/n)

    @property
    def games(self) -> int:
        return len(self.credits)

    @property
    def win_rate(self) -> float:
        return float(np.mean(self.credits)) if self.credits else 0.0

    def interval(self) -> tuple[float, float]:
        """95% Wilson score interval of the win rate (sound at 0 and at 1, unlike the normal one)."""
        n, p, z = self.games, self.win_rate, 1.96
        if n == 0:
            return 0.0, 1.0
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    @property
    def mean_score(self) -> float:
        return float(np.mean(self.scores)) if self.scores else 0.0

    def as_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        return {
            "name": self.name,
            "games": self.games,
            "win_rate": round(self.win_rate, 4),
            "win_rate_95ci": [round(low, 4), round(high, 4)],
            "mean_score": round(self.mean_score, 3),
            "truncated_games": self.truncated,
        }


def tournament(
    game: Game[Any],
    lineup: Sequence[tuple[str, Callable[[], Bot]]],
    games: int,
    seed: int = 0,
    max_decisions: int = MAX_DECISIONS,
) -> list[Standing]:
    """Play ``games`` games of ``lineup`` (one (name, bot factory) per seat), seats rotated.

    Entrants with the same name are pooled (e.g. three "random" seats).
    """
    n = game.num_seats
    if len(lineup) != n:
        raise ValueError(f"{game.info.title} with {n} seats needs {n} entrants, not {len(lineup)}")
    bots = [factory() for _, factory in lineup]
    standings: dict[str, Standing] = {}
    for name, _ in lineup:
        standings.setdefault(name, Standing(name))
    seeds = np.random.SeedSequence(seed).generate_state(games)
    for g in range(games):
        shift = g % n
        order = [(k + shift) % n for k in range(n)]  # order[seat] = entrant index at that seat
        winners, scores = play_game(game, [bots[i] for i in order], int(seeds[g]), max_decisions)
        for seat, entrant in enumerate(order):
            standing = standings[lineup[entrant][0]]
            if winners is None:
                standing.credits.append(1.0 / n)
                standing.truncated += 1
            else:
                standing.credits.append(1.0 / len(winners) if seat in winners else 0.0)
            standing.scores.append(scores[seat])
    return list(standings.values())


def one_against_all(
    game: Game[Any], agent: Callable[[], Bot], others: Callable[[], Bot], games: int, seed: int
) -> Standing:
    """The standing of ``agent`` at one seat (rotated) with every other seat played by ``others``."""
    lineup = [("agent", agent)] + [("others", others)] * (game.num_seats - 1)
    return next(s for s in tournament(game, lineup, games, seed) if s.name == "agent")


def format_table(standings: Sequence[Standing], fair_share: float) -> str:
    """The standings as a text table."""
    lines = [f"{'bot':<16}{'games':>7}{'win rate':>10}{'95% CI':>18}{'mean score':>12}"]
    for s in sorted(standings, key=lambda s: -s.win_rate):
        low, high = s.interval()
        ci = f"[{low:.3f}, {high:.3f}]"
        lines.append(f"{s.name:<16}{s.games:>7}{s.win_rate:>10.3f}{ci:>18}{s.mean_score:>12.2f}")
    lines.append(f"(fair share of wins: {fair_share:.3f} per seat)")
    stopped = max((s.truncated for s in standings), default=0)
    if stopped:
        lines.append(f"({stopped} game(s) stopped at the decision limit and counted as shared)")
    return "\n".join(lines)
