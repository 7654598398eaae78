"""The bots' strength league: every bot of a game at tables of 2 and 4 seats, rated by OpenSkill's
Plackett-Luce model from each game's finishing order, and head-to-heads of a bot against the
heuristic at every seat count. ``benchmarks/strength.py`` runs it and writes its JSON, table and
chart; the rules (the tables, the finishing orders, the ratings) are described there.

OpenSkill (the ``eval`` extra) is imported when a league is rated, not before. Bots are made by
name with :func:`~tablezoo.evaluation.policies.named_bot`: any name of the bot registry, and
OpenSpiel's ``ismcts:simulations=N`` (the ``openspiel`` extra) as an extra bot.
"""

from __future__ import annotations

import itertools
import math
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tablezoo.bots import registry
from tablezoo.bots.core import Bot
from tablezoo.evaluation.policies import named_bot
from tablezoo.evaluation.tournament import Standing, one_against_all, play_game
from tablezoo.games import make
from tablezoo.games.core import ConfigError, Game

LEAGUE_SEATS = (2, 4)
"""The seat counts of the leagues (each raised to the game's smallest table if it seats more)."""

OPPONENT = "heuristic"
"""Whom the agent (and the ``--extra`` bots) meet at every seat count."""

LOSERS_BY_SCORE = {"heckmeck": True, "sechs_nimmt": True, "diamant": True, "court": False}
"""Whether a game's score orders the seats that did not win. Heckmeck (worms), 6 nimmt! (bullheads)
and Diamant (banked gems) rank every seat by it; To Court the King's score only shapes rewards
(dice its cards give), the rules name the winner alone. A game not listed: the others tie."""

TAU = 0.0
"""OpenSkill's drift added to sigma before each game: none, a bot does not change during a league."""


def game_seed(seed: int, *parts: str | int) -> int:
    """A seed of its own for each league or head-to-head, split from ``seed`` by names and numbers."""
    keys = [p if isinstance(p, int) else zlib.crc32(p.encode()) for p in parts]
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1)[0])


def league_seats(game_name: str) -> list[int]:
    """The seat counts of ``game_name``'s leagues: :data:`LEAGUE_SEATS` within what the game seats."""
    info = make(game_name).info
    return sorted({min(max(n, info.min_seats), info.max_seats) for n in LEAGUE_SEATS})


def finishing_ranks(game_name: str, winners: Sequence[int], scores: Sequence[float]) -> list[int]:
    """Each seat's place (0 first, equal places for ties): the winners, then the rest by score."""
    n = len(scores)
    if not winners:
        return [0] * n
    by_score = LOSERS_BY_SCORE.get(game_name, False)
    # a loser's key: higher scores finish earlier; without an order they all share one place
    keys = [math.inf if s in winners else (scores[s] if by_score else 0.0) for s in range(n)]
    distinct = sorted(set(keys), reverse=True)
    return [distinct.index(k) for k in keys]


def tables(names: Sequence[str], seats: int, rng: np.random.Generator) -> list[list[str]]:
    """The league's line-ups, seat by seat, in a shuffled order: every combination of ``seats``
    distinct bots, or (fewer bots than seats) all the bots and every choice of the extra copies."""
    if len(names) >= seats:
        lineups = [list(c) for c in itertools.combinations(names, seats)]
    else:
        extra = itertools.combinations_with_replacement(names, seats - len(names))
        lineups = [[*names, *c] for c in extra]
    return [lineups[i] for i in rng.permutation(len(lineups))]


@dataclass
class Entrant:
    """One bot of a league: its rating, its win credits and scores, and its instances (one per copy)."""

    name: str
    rating: Any
    """Its OpenSkill rating (a ``PlackettLuceRating``)."""
    standing: Standing
    bots: list[Bot] = field(default_factory=list)
    rated: int = 0  # games that updated its rating

    def as_dict(self) -> dict[str, Any]:
        low, high = self.standing.interval()
        return {
            "name": self.name,
            "mu": round(self.rating.mu, 3),
            "sigma": round(self.rating.sigma, 3),
            "ordinal": round(self.rating.ordinal(), 3),
            "games": self.standing.games,
            "rated_games": self.rated,
            "win_share": round(self.standing.win_rate, 4),
            "win_share_95ci": [round(low, 4), round(high, 4)],
            "mean_score": round(self.standing.mean_score, 3),
        }


def league(game: Game[Any], names: Sequence[str], games: int, seed: int, model: Any) -> dict[str, Any]:
    """``games`` games among the bots ``names`` (at least two), each rated from its finishing order
    by ``model`` (OpenSkill's ``PlackettLuce``)."""
    n, game_name = game.num_seats, game.info.name
    entrants = {name: Entrant(name, model.rating(name=name), Standing(name)) for name in names}
    rng = np.random.default_rng(seed)
    lineups = tables(names, n, rng)
    seeds = np.random.SeedSequence(seed).generate_state(games)
    truncated = 0
    start = time.perf_counter()
    for g in range(games):
        lineup = lineups[g % len(lineups)]
        shift = (g // len(lineups)) % n  # a table's seats turn one place each time it comes round
        at_seat = lineup[shift:] + lineup[:shift]
        copies: dict[str, int] = {}
        bots: list[Bot] = []
        for name in at_seat:
            entrant, k = entrants[name], copies.get(name, 0)
            copies[name] = k + 1
            if len(entrant.bots) <= k:  # a second copy at one table is a bot of its own
                entrant.bots.append(named_bot(name, game))
            bots.append(entrant.bots[k])
        winners, scores = play_game(game, bots, int(seeds[g]))
        for seat, name in enumerate(at_seat):
            entrants[name].standing.record(seat, winners, n, scores[seat])
        if winners is None:
            truncated += 1
            continue
        ranks = finishing_ranks(game_name, winners, scores)
        # one seat per bot, drawn at random among its copies (see the module docstring)
        rated = {name: int(rng.choice([s for s, m in enumerate(at_seat) if m == name])) for name in copies}
        order = list(rated)
        places = [float(ranks[rated[m]]) for m in order]
        teams = model.rate([[entrants[m].rating] for m in order], ranks=places)
        for m, team in zip(order, teams, strict=True):
            entrants[m].rating = team[0]
            entrants[m].rated += 1
    ranked = sorted(entrants.values(), key=lambda e: -e.rating.ordinal())
    return {
        "seats": n,
        "games": games,
        "tables": len(lineups),
        "truncated_games": truncated,
        "fair_share": round(1 / n, 4),
        "seconds": round(time.perf_counter() - start, 2),
        "bots": [e.as_dict() for e in ranked],
    }


def head_to_head(game: Game[Any], name: str, games: int, seed: int) -> dict[str, Any]:
    """``name`` at one seat (rotated) against the :data:`OPPONENT` at every other seat."""
    start = time.perf_counter()
    standing = one_against_all(
        game, lambda: named_bot(name, game), lambda: named_bot(OPPONENT, game), games, seed
    )
    low, high = standing.interval()
    return {
        "bot": name,
        "against": OPPONENT,
        "seats": game.num_seats,
        "games": standing.games,
        "win_share": round(standing.win_rate, 4),
        "win_share_95ci": [round(low, 4), round(high, 4)],
        "fair_share": round(1 / game.num_seats, 4),
        "truncated_games": standing.truncated,
        "seconds": round(time.perf_counter() - start, 2),
    }


def usable(names: Sequence[str], game: Game[Any], refused: dict[str, dict[int, str]]) -> list[str]:
    """The names :func:`~tablezoo.evaluation.policies.named_bot` accepts for ``game``; a refusal is
    kept in ``refused[name][seats]``."""
    kept = []
    for name in dict.fromkeys(names):  # in order, once each
        try:
            named_bot(name, game)
        except ConfigError as err:
            refused.setdefault(name, {})[game.num_seats] = str(err)
        else:
            kept.append(name)
    return kept


@dataclass(frozen=True)
class Task:
    """One league (``names`` are its bots) or one head-to-head (``names`` is the challenger alone)."""

    kind: str  # "league" or "match"
    game_name: str
    seats: int
    names: tuple[str, ...]
    games: int
    seed: int

    def run(self) -> dict[str, Any]:
        game = make(self.game_name, self.seats)
        if self.kind == "league":
            try:
                from openskill.models import PlackettLuce
            except ImportError:
                raise ConfigError("a rated league needs openskill: pip install 'tablezoo[eval]'") from None
            return league(game, self.names, self.games, self.seed, PlackettLuce(tau=TAU))
        return head_to_head(game, self.names[0], self.games, self.seed)


def pairing_games(games: int, bots: int, seats: int) -> int:
    """The games of a league of ``bots`` bots at ``seats`` seats in which every two bots meet at one
    table ``games`` times on average: a game seats ``seats * (seats - 1) / 2`` of the pairs (all
    of them where there are no more bots than seats)."""
    pairs, per_game = math.comb(bots, 2), math.comb(min(bots, seats), 2)
    return -(-games * pairs // per_game)


def plan(
    game_name: str, extras: Sequence[str], games: int, seed: int, per_pairing: bool = False
) -> tuple[list[Task], list[str]]:
    """The leagues and head-to-heads of one game, and notes on the bots skipped. With ``per_pairing``
    a league plays ``games`` games a pairing of bots (:func:`pairing_games`), else ``games``."""
    info = make(game_name).info
    refused: dict[str, dict[int, str]] = {}
    tasks, notes = [], []
    for n in league_seats(game_name):
        names = usable([*registry.game_bots(game_name), "agent", *extras], make(game_name, n), refused)
        if len(names) < 2:
            notes.append(f"{info.title}, {n} seats: no league (fewer than two bots)")
            continue
        league_games = pairing_games(games, len(names), n) if per_pairing else games
        tasks.append(Task("league", game_name, n, tuple(names), league_games, game_seed(seed, game_name, n)))
    for n in range(info.min_seats, info.max_seats + 1):
        for name in usable(["agent", *extras], make(game_name, n), refused):
            tasks.append(Task("match", game_name, n, (name,), games, game_seed(seed, game_name, n, name)))
    for name, by_seats in refused.items():
        seats = ", ".join(str(n) for n in sorted(by_seats))
        first = by_seats[min(by_seats)]
        notes.append(f"{info.title}: skipped {name!r} at {seats} seats (make_bot refused: {first})")
    return tasks, notes
