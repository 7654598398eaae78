"""Tournaments and the baseline bots."""

from __future__ import annotations

import io

import pytest

from tablezoo.bots.core import RandomBot
from tablezoo.bots.diamant import DiamantThresholdBot
from tablezoo.bots.heckmeck import HeckmeckGreedyBot
from tablezoo.bots.registry import make_bot
from tablezoo.evaluation.progress import ProgressBar
from tablezoo.evaluation.tournament import (
    PART_GAMES,
    format_table,
    join_parts,
    named_tournament,
    play_part,
    split_tournament,
    tournament,
)
from tablezoo.games import make


def test_tournaments_are_repeatable_and_rotate_seats() -> None:
    game = make("diamant", 3)
    lineup = [("a", RandomBot), ("b", RandomBot), ("c", RandomBot)]
    first = [s.as_dict() for s in tournament(game, lineup, 12, seed=3)]
    assert first == [s.as_dict() for s in tournament(game, lineup, 12, seed=3)]
    assert sum(s["win_rate"] for s in first) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="needs 3 entrants, not 2"):
        tournament(game, lineup[:2], 1)


@pytest.mark.parametrize(
    ("name", "seats", "bot"), [("heckmeck", 2, HeckmeckGreedyBot), ("diamant", 4, DiamantThresholdBot)]
)
def test_heuristics_beat_random_play(name: str, seats: int, bot: type) -> None:
    game = make(name, seats)
    lineup = [("heuristic", bot)] + [("random", RandomBot)] * (seats - 1)
    standings = {s.name: s for s in tournament(game, lineup, 40, seed=1)}
    assert standings["heuristic"].interval()[0] > 1 / seats
    assert "fair share of wins: " in format_table(list(standings.values()), 1 / seats)


def test_a_game_that_does_not_end_is_stopped_and_shared() -> None:
    game = make("court", 2)
    lineup = [("a", RandomBot), ("b", RandomBot)]
    standings = tournament(game, lineup, 2, seed=0, max_decisions=50)
    assert all(s.truncated == 2 for s in standings)
    assert all(s.win_rate == 0.5 for s in standings)
    assert standings[0].as_dict()["truncated_games"] == 2
    assert "2 game(s) stopped at the decision limit" in format_table(standings, 0.5)


def test_a_tournament_in_parts_is_the_tournament_game_by_game() -> None:
    names = ["heuristic", "random", "random"]
    whole = play_part(split_tournament("sechs_nimmt", 3, names, 7, seed=5, options={"tactic": True})[0])
    parts = split_tournament("sechs_nimmt", 3, names, 7, seed=5, options={"tactic": True}, parts=3)
    assert [p[5:7] for p in parts] == [(0, 2), (2, 2), (4, 3)]  # (first game, games)
    joined = join_parts([play_part(p) for p in parts])
    assert [s.name for s in joined] == ["heuristic", "random"]
    assert [(s.credits, s.scores) for s in joined] == [(s.credits, s.scores) for s in whole]
    assert len(split_tournament("diamant", 3, ["random"] * 3, 2, parts=5)) == 2  # no empty parts
    with pytest.raises(ValueError, match="at least 1 part, not 0"):
        split_tournament("diamant", 3, ["random"] * 3, 2, parts=0)


def test_named_tournaments_share_their_games_among_processes() -> None:
    one = named_tournament("diamant", 3, ["heuristic", "random", "random"], 6, seed=2)
    two = named_tournament("diamant", 3, ["heuristic", "random", "random"], 6, seed=2, jobs=2)
    assert [s.as_dict() for s in one] == [s.as_dict() for s in two]
    with pytest.raises(ValueError, match="at least 1, not 0"):
        named_tournament("diamant", 3, ["random"] * 3, 6, jobs=0)


def test_a_long_tournament_counts_its_games_by_parts_with_the_same_results() -> None:
    names = ["heuristic", "random", "random"]
    counted: list[int] = []
    played = named_tournament("diamant", 3, names, PART_GAMES + 7, seed=4, progress=counted.append)
    assert counted == [0, (PART_GAMES + 7) // 2, PART_GAMES + 7]  # two parts of about even length
    game = make("diamant", 3)
    whole = tournament(game, [(n, lambda n=n: make_bot(n, game)) for n in names], PART_GAMES + 7, seed=4)
    assert [s.as_dict() for s in played] == [s.as_dict() for s in whole]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_rewrites_its_line_and_clears_it_at_the_end() -> None:
    out = Terminal()
    now = [0.0]
    bar = ProgressBar(200, out, width=10, clock=lambda: now[0])
    now[0] = 30.0
    bar(50)
    assert out.getvalue() == "\r[##........] 50/200 games, 1m30s left"
    bar(200)
    *_, cleared, end = out.getvalue().split("\r")
    assert cleared.strip() == "" and end == ""
    assert len(cleared) >= len("[##........] 50/200 games, 1m30s left")
