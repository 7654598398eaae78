"""The strength league (tablezoo.evaluation.league): finishing orders, league tables, and a quick run
of benchmarks/strength.py, as a program, writing its files and the model cards' section
(tablezoo.release.cards; figures not checked)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from tablezoo.bots import registry
from tablezoo.evaluation import league as rated
from tablezoo.release.cards import LEAGUE_END, LEAGUE_START, update_card

ROOT = Path(__file__).resolve().parents[2]


QUICK_GAMES = 8
"""The script's games per league and head-to-head with ``--quick``."""


def test_finishing_ranks_put_winners_first_and_share_places() -> None:
    # 6 nimmt!'s scores are minus the bullheads: seat 2 won, seats 0 and 3 tie behind it
    assert rated.finishing_ranks("sechs_nimmt", [2], [-10.0, -30.0, -4.0, -10.0]) == [1, 2, 0, 1]
    assert rated.finishing_ranks("heckmeck", [0, 1], [7.0, 7.0, 3.0]) == [0, 0, 1]
    # To Court the King names the winner alone: the others share second place whatever their score
    assert rated.finishing_ranks("court", [1], [20.0, 3.0, 1.0, 5.0]) == [1, 0, 1, 1]


def test_tables_let_every_bot_meet_every_other() -> None:
    rng = np.random.default_rng(0)
    names = ["random", "heuristic", "solver", "agent", "agent:search=32"]
    lineups = rated.tables(names, 2, rng)
    assert sorted(tuple(sorted(t)) for t in lineups) == sorted(itertools.combinations(sorted(names), 2))
    # fewer bots than seats: all of them at every table, the extra seats shared out evenly
    few = rated.tables(["random", "heuristic", "agent"], 5, rng)
    assert all(set(t) == {"random", "heuristic", "agent"} and len(t) == 5 for t in few)
    extra = Counter(name for t in few for name in t)
    assert len(set(extra.values())) == 1


def test_per_pairing_every_two_bots_meet_that_often() -> None:
    assert rated.pairing_games(200, 5, 2) == 2000  # 10 pairings, one a game
    assert rated.pairing_games(200, 5, 4) == 334  # a 4-seat game holds 6 of the 10
    assert rated.pairing_games(200, 3, 4) == 200  # every game holds every pairing
    rng = np.random.default_rng(0)
    names = ["random", "heuristic", "search", "agent"]
    lineups = rated.tables(names, 3, rng)
    games = rated.pairing_games(30, len(names), 3)
    met = Counter(pair for g in range(games) for pair in itertools.combinations(sorted(lineups[g % 4]), 2))
    assert set(met.values()) == {30}
    tasks, _ = rated.plan("court", [], 20, 0, per_pairing=True)
    league = next(t for t in tasks if t.kind == "league" and t.seats == 2)
    assert league.games == rated.pairing_games(20, len(league.names), 2)
    assert all(t.games == 20 for t in tasks if t.kind == "match")  # head-to-heads: --games each


def test_league_seats_keep_within_what_a_game_seats() -> None:
    assert rated.league_seats("heckmeck") == [2, 4]
    assert rated.league_seats("diamant") == [3, 4]  # Diamant seats 3 to 8


def test_quick_run_writes_ratings_and_ranks_the_heuristic_above_random(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "diamant.md").write_text("# Diamant: shipped agent\n\nHow it was trained.\n")
    args = ["--quick", "--games-filter", "diamant", "--extra", "agent:depth=3", "--out", str(tmp_path)]
    script = str(ROOT / "benchmarks" / "strength.py")
    run = subprocess.run(
        [sys.executable, script, *args, "--cards", str(cards)], check=True, capture_output=True, text=True
    )
    result = json.loads((tmp_path / "strength.json").read_text())
    assert (tmp_path / "strength.png").read_bytes().startswith(b"\x89PNG")
    table = (tmp_path / "strength.md").read_text()
    assert table in run.stdout and "| Diamant | 3 | heuristic |" in table
    # the agent's card carries the game's tables; a second run replaces them, the card's own text stays
    card = (cards / "diamant.md").read_text()
    assert card.startswith("# Diamant: shipped agent\n\nHow it was trained.\n") and table in card
    assert card.count(LEAGUE_START) == card.count(LEAGUE_END) == 1
    (cards / "diamant.md").write_text(card + "A note after the league.\n")
    assert update_card(cards / "diamant.md", "diamant", result)
    again = (cards / "diamant.md").read_text()
    assert again.count("## In the strength league") == 1 and again.endswith("A note after the league.\n")
    assert not update_card(cards / "court.md", "court", result)  # no card, nothing written
    assert result["versions"]["openskill"] and result["versions"]["tablezoo"]
    assert "--quick" in result["command"] and result["seconds"] > 0
    # a name make_bot refuses is skipped with a note, not an error
    assert any("'agent:depth=3'" in note for note in result["notes"])
    diamant = result["games"]["diamant"]
    assert list(diamant["leagues"]) == ["3", "4"]
    for seats, league in diamant["leagues"].items():
        bots = {b["name"]: b for b in league["bots"]}
        assert {"random", "heuristic"} <= set(bots)
        for bot in bots.values():
            assert set(bot) >= {"mu", "sigma", "ordinal", "games", "win_share", "win_share_95ci"}
            assert bot["games"] > 0 and 0 < bot["sigma"] < 25 / 3
        assert bots["heuristic"]["mu"] > bots["random"]["mu"], f"{seats} seats: {bots}"
        assert league["games"] == QUICK_GAMES and league["fair_share"] == round(1 / int(seats), 4)
    assert [m["seats"] for m in diamant["against_heuristic"]] == registry.agent_seats("diamant")
    for match in diamant["against_heuristic"]:
        low, high = match["win_share_95ci"]
        assert match["bot"] == "agent" and low <= match["win_share"] <= high
        assert match["games"] == QUICK_GAMES and match["fair_share"] == round(1 / match["seats"], 4)
