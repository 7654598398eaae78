"""Tournaments between bots: rotated seats, fixed seeds, win rates with 95% intervals.

Every game of a tournament seats the line-up rotated by one more place, so each
bot plays every seat equally often, and uses its own seed (split from the
tournament's seed), so a tournament is repeatable to the move. A win shared by
``k`` seats counts ``1/k`` to each.

Two bots that never end a game (possible in To Court the King, where only
seven of a kind brings the end) would hang a tournament: a game is stopped after
``max_decisions`` decisions, counts as shared by every seat, and is reported
as truncated. The rules are never changed.

The game loop, the process pool and the decision limit are those of
:mod:`tablezoo.evaluation.play`, which the trainers play with too; the
tournament's bots are named bots or policy files of any kind
(:func:`~tablezoo.evaluation.policies.as_bot`). ``tablezoo evaluate`` plays one
from the command line (:mod:`tablezoo.evaluation.cli`).

    from tablezoo.evaluation.tournament import named_tournament

    standings = named_tournament("diamant", 4, ["heuristic", "random"], games=200, jobs=2)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from tablezoo.bots.core import Bot
from tablezoo.evaluation.play import MAX_DECISIONS, iter_in_order, one_thread, play_out
from tablezoo.evaluation.policies import as_bot
from tablezoo.evaluation.stats import wilson
from tablezoo.games import make
from tablezoo.games.core import ConfigError, Game

__all__ = [
    "MAX_DECISIONS",
    "PART_GAMES",
    "Part",
    "Standing",
    "format_table",
    "join_parts",
    "lineup",
    "named_tournament",
    "one_against_all",
    "play_game",
    "play_part",
    "split_tournament",
    "tournament",
    "wilson",
]


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
    if play_out(game, state, chance, lambda at: bots[at.seat].act(at), max_decisions):
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
        return wilson(self.win_rate, self.games)

    @property
    def mean_score(self) -> float:
        return float(np.mean(self.scores)) if self.scores else 0.0

    def record(self, seat: int, winners: list[int] | None, num_seats: int, score: float) -> None:
        """Count one game played at ``seat``: its win credit (``1/k`` of a ``k``-way win; ``1/n``
        of a game stopped at the decision limit, ``winners`` None) and its score."""
        if winners is None:
            self.credits.append(1.0 / num_seats)
            self.truncated += 1
        else:
            self.credits.append(1.0 / len(winners) if seat in winners else 0.0)
        self.scores.append(score)

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
    first: int = 0,
) -> list[Standing]:
    """Play ``games`` games of ``lineup`` (one (name, bot factory) per seat), seats rotated.

    Entrants with the same name are pooled (e.g. three "random" seats). With
    ``first``, the games are numbers ``first`` to ``first + games - 1`` of the
    tournament of ``seed``: the same deals, dice and seats as in one long run
    (how :func:`named_tournament` shares a tournament among processes).
    """
    n = game.num_seats
    if len(lineup) != n:
        raise ValueError(f"{game.info.title} with {n} seats needs {n} entrants, not {len(lineup)}")
    bots = [factory() for _, factory in lineup]
    standings: dict[str, Standing] = {}
    for name, _ in lineup:
        standings.setdefault(name, Standing(name))
    seeds = np.random.SeedSequence(seed).generate_state(first + games)
    for g in range(first, first + games):
        shift = g % n
        order = [(k + shift) % n for k in range(n)]  # order[seat] = entrant index at that seat
        winners, scores = play_game(game, [bots[i] for i in order], int(seeds[g]), max_decisions)
        for seat, entrant in enumerate(order):
            standings[lineup[entrant][0]].record(seat, winners, n, scores[seat])
    return list(standings.values())


class Part(NamedTuple):
    """A share of a tournament of named bots, for a process of its own (:func:`play_part`)."""

    game: str
    """The game's name."""
    seats: int
    """Its seat count."""
    options: dict[str, bool]
    """Its options."""
    names: tuple[str, ...]
    """The bot at each seat of the tournament's first game."""
    seed: int
    """The tournament's seed."""
    first: int
    """The number of the part's first game in the tournament."""
    games: int
    """The part's games."""
    reading: tuple[str, bool | None] = ("auto", None)
    """How a policy file reads its seat (:func:`~tablezoo.evaluation.policies.as_bot`'s
    ``observation`` and ``scaled``), where it does not declare it."""


def split_tournament(
    game_name: str,
    num_seats: int,
    names: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict[str, bool] | None = None,
    parts: int = 1,
    reading: tuple[str, bool | None] = ("auto", None),
) -> list[Part]:
    """The tournament of ``names`` (``names[s]`` at seat ``s`` of the first game) cut
    into ``parts`` runs of consecutive games, to play side by side (:func:`play_part`)
    and join again (:func:`join_parts`)."""
    if parts < 1:
        raise ValueError(f"a tournament is cut into at least 1 part, not {parts}")
    parts = max(1, min(parts, games))
    bounds = [games * k // parts for k in range(parts + 1)]
    return [
        Part(game_name, num_seats, dict(options or {}), tuple(names), seed, lo, hi - lo, reading)
        for lo, hi in itertools.pairwise(bounds)
    ]


def play_part(part: Part) -> list[Standing]:
    """The standings of one part of a tournament (the bots made by name or from a policy file:
    :func:`~tablezoo.evaluation.policies.as_bot`)."""
    game = make(part.game, part.seats, **part.options)

    def factory(name: str) -> Callable[[], Bot]:
        return lambda: as_bot(name, game, None, *part.reading)

    lineup = [(name, factory(name)) for name in part.names]
    with one_thread():
        return tournament(game, lineup, part.games, part.seed, first=part.first)


def join_parts(results: Sequence[list[Standing]]) -> list[Standing]:
    """The standings of a whole tournament from those of its parts, in the parts' order."""
    joined = [Standing(s.name) for s in results[0]]
    for part in results:
        for standing, more in zip(joined, part, strict=True):
            standing.credits += more.credits
            standing.scores += more.scores
            standing.truncated += more.truncated
    return joined


PART_GAMES = 50
"""Games one task plays at most: a long tournament is played in parts of this many, which the
processes share (none is left with a long tail) and which count its progress as they end."""


def named_tournament(
    game_name: str,
    num_seats: int,
    names: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict[str, bool] | None = None,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    reading: tuple[str, bool | None] = ("auto", None),
) -> list[Standing]:
    """:func:`tournament` of bots given by name, its games shared among ``jobs`` processes.

    The games are played in parts of at most :data:`PART_GAMES`, and ``progress`` (if given) is
    called with the number of games played so far: 0 first, then as each part ends, in order.
    Every game has its own seeds, so the standings are the same game by game whatever ``jobs`` is
    and however the games are cut; only the wall time changes.
    """
    if jobs < 1:
        raise ValueError(f"jobs is the number of processes, at least 1, not {jobs}")
    cut = max(jobs, -(-games // PART_GAMES))
    parts = split_tournament(game_name, num_seats, names, games, seed, options, cut, reading)
    return _join_counted(parts, iter_in_order(play_part, parts, min(jobs, len(parts))), progress)


def _join_counted(
    parts: Sequence[Part], played: Iterable[list[Standing]], progress: Callable[[int], None] | None
) -> list[Standing]:
    """:func:`join_parts` of the standings of ``parts`` as they come, counting their games (from 0)."""
    results, done = [], 0
    if progress is not None:
        progress(0)
    for part, standings in zip(parts, played, strict=True):
        results.append(standings)
        done += part.games
        if progress is not None:
            progress(done)
    return join_parts(results)


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


def lineup(game: Game[Any], bots: Sequence[str]) -> list[str]:
    """The bot at each seat of ``game``: ``bots`` in order, the last filling the seats left."""
    n = game.num_seats
    names = list(bots) + [bots[-1]] * (n - len(bots))
    if len(names) > n:
        raise ConfigError(f"{len(names)} bots for {n} seats")
    return names
