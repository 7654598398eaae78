"""OpenSpiel's ISMCTS as the bot ``ismcts``: its name and settings in the registry, the extra it
names where OpenSpiel is missing, games of it in ``tablezoo evaluate`` and the strength league,
moves that never depend on what its seat cannot see, and the yardstick's rows going on where a
run stopped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pyspiel", reason="the bot ismcts needs the openspiel extra")

from tablezoo.bots import registry
from tablezoo.bots.core import Seat
from tablezoo.evaluation import league
from tablezoo.evaluation.policies import named_bot
from tablezoo.evaluation.tournament import named_tournament
from tablezoo.games import TERMINAL, make
from tablezoo.games.core import ConfigError
from tablezoo.wrappers import openspiel as ow

ROOT = Path(__file__).resolve().parents[2]


def test_the_spec_parses_into_the_settings() -> None:
    game = make("diamant", 3)
    bot = named_bot("ismcts:simulations=7,uct_c=1.5,rollouts=2", game)
    assert isinstance(bot, ow.OpenSpielISMCTSBot)
    assert (bot.simulations, bot.uct_c, bot.rollouts) == (7, 1.5, 2)
    assert bot.name == "ismcts:simulations=7,uct_c=1.5,rollouts=2"
    plain = registry.make_bot("ismcts", game)  # the module is imported: the registry knows the name
    assert isinstance(plain, ow.OpenSpielISMCTSBot)
    assert (plain.simulations, plain.uct_c, plain.rollouts) == (100, 2.0, 1)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:sims=100", r"takes simulations=100, uct_c=2.0, rollouts=1; not 'sims=100'"),
        ("ismcts:simulations=many", r"simulations is a whole number \(default 100\), not 'many'"),
        ("ismcts:simulations=0", r"simulations is at least 1, not 0"),
        ("ismcts:uct_c=-1", r"uct_c is a number of at least 0, not -1.0"),
        ("ismcts:rollouts=0", r"rollouts is at least 1, not 0"),
    ],
)
def test_a_bad_setting_is_refused_naming_what_is_allowed(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        named_bot(spec, make("heckmeck", 2))


def test_the_name_is_the_registrys_but_no_games_own_bot() -> None:
    assert registry.OUTSIDE_BOTS["ismcts"] is ow.OpenSpielISMCTSBot
    for name in ("heckmeck", "diamant"):
        assert "ismcts" not in registry.game_bots(name)  # a league seats it only where named
    with pytest.raises(ValueError, match=r"not taken by .*search"):
        registry.register_bot("search", ow.OpenSpielISMCTSBot)
    tasks, _ = league.plan("diamant", [], games=2, seed=0)
    assert not any("ismcts" in name for t in tasks for name in t.names)
    tasks, notes = league.plan("diamant", ["ismcts:simulations=4"], games=2, seed=0)
    assert notes == []
    assert all("ismcts:simulations=4" in t.names for t in tasks if t.kind == "league")
    assert {t.seats for t in tasks if t.kind == "match" and t.names == ("ismcts:simulations=4",)} == set(
        range(3, 9)
    )


def test_without_openspiel_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(registry.OUTSIDE_BOTS, "ismcts")
    monkeypatch.delitem(sys.modules, "tablezoo.wrappers.openspiel")
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel fails as when it is not installed
    with pytest.raises(
        ConfigError, match=r"needs the 'openspiel' extra: pip install 'tablezoo\[openspiel\]'"
    ):
        named_bot("ismcts:simulations=10", make("diamant", 3))


def test_games_complete_in_evaluate() -> None:
    # what ``tablezoo evaluate diamant --players 3 --bots ismcts:simulations=8 agent:search=8`` plays
    standings = named_tournament(
        "diamant", 3, ["ismcts:simulations=8", "agent:search=8", "agent:search=8"], 3
    )
    assert {s.name: s.games for s in standings} == {"ismcts:simulations=8": 3, "agent:search=8": 6}


def test_games_complete_in_the_league_on_a_game_that_hides_nothing() -> None:
    pytest.importorskip("openskill", reason="a rated league needs the eval extra")
    task = league.Task("league", "heckmeck", 2, ("ismcts:simulations=6", "heuristic"), 2, seed=3)
    result = task.run()
    by_name = {b["name"]: b for b in result["bots"]}
    assert by_name["ismcts:simulations=6"]["games"] == by_name["heuristic"]["games"] == 2
    assert result["truncated_games"] == 0
    match = league.Task("match", "diamant", 3, ("ismcts:simulations=6",), 2, seed=4).run()
    assert match["games"] == 2 and match["against"] == "heuristic"


def test_it_runs_mcts_where_nothing_is_hidden_and_ismcts_where_something_is() -> None:
    for name, players, search in [("heckmeck", 2, "mcts"), ("sechs_nimmt", 3, "ismcts")]:
        game = make(name, players)
        state, rng = game.initial_state(), np.random.default_rng(2)
        mover = game.advance(state, rng)
        while len(game.legal_actions(state)) < 2:
            game.apply(state, game.legal_actions(state)[0])
            mover = game.advance(state, rng)
        bot = named_bot("ismcts:simulations=5", game)
        assert isinstance(bot, ow.OpenSpielISMCTSBot)
        assert bot.act(Seat(game, state, mover)) in game.legal_actions(state)
        assert bot.search == search


def secret_states(name: str, players: int, seed: int, count: int) -> list[tuple[Any, Any, int]]:
    """States of a game of random moves where a seat has two moves or more, some of them with other
    seats' secret choices pending: ``(game, state, seat to move)``."""
    game = make(name, players)
    rng = np.random.default_rng(seed)
    state, found = game.initial_state(), list[tuple[Any, Any, int]]()
    while len(found) < count and (mover := game.advance(state, rng)) != TERMINAL:
        legal = game.legal_actions(state)
        if len(legal) > 1:
            found.append((game, game.clone(state), mover))
        game.apply(state, legal[int(rng.integers(len(legal)))])
    return found


@pytest.mark.parametrize(("name", "players"), [("diamant", 3), ("sechs_nimmt", 3)])
def test_its_moves_never_read_what_its_seat_cannot_see(name: str, players: int) -> None:
    """Seeded alike, the bot makes the same move on the true state and on states in which everything
    its seat cannot see (the others' hands, their secret choices) was drawn anew."""
    redrawn = moves = 0
    for game, state, mover in secret_states(name, players, seed=5, count=8):
        samples = [state, *(game.determinize(state, mover, np.random.default_rng(k)) for k in range(2))]
        redrawn += any(game.to_json(s) != game.to_json(state) for s in samples)
        chosen = set()
        for sample in samples:
            bot = named_bot("ismcts:simulations=24", game)
            bot.reset(seed=9)
            chosen.add(bot.act(Seat(game, sample, mover)))
        assert len(chosen) == 1, game.to_json(state)
        moves += 1
    assert moves == 8 and redrawn >= 4  # the samples did differ where it cannot see
    # and the move does depend on the bot's seed: it is a search, not a constant
    game, state, mover = secret_states(name, players, seed=5, count=8)[-1]
    picks = set()
    for seed in range(12):
        bot = named_bot("ismcts:simulations=2", game)
        bot.reset(seed=seed)
        picks.add(bot.act(Seat(game, state, mover)))
    assert len(picks) > 1


def test_a_search_root_keeps_the_secret_choices_pending() -> None:
    game = make("diamant", 3)
    rng = np.random.default_rng(0)
    state = game.initial_state()
    while (mover := game.advance(state, rng)) != TERMINAL and not (
        game.secret_decision(state) and mover == 2
    ):
        game.apply(state, game.legal_actions(state)[0])
    root = ow.openspiel_game(game).state_at(game.determinize(state, 2, rng))
    assert [s for s, _ in root._t.secret] == [0, 1]  # seats 0 and 1 chose; seat 2 is to choose
    root.apply_action(game.legal_actions(state)[0])
    assert root.public_log()[-1].startswith("reveal p0 ")


def yardstick_command(out: Path, rounds: int, seed: int = 0) -> list[str]:
    args = ["--games", "diamant", "--seats", "3", "--simulations", "4", "--rounds", str(rounds)]
    script = str(ROOT / "benchmarks" / "openspiel_yardstick.py")
    return [sys.executable, script, *args, "--seed", str(seed), "--out", str(out)]


def yardstick(out: Path, rounds: int) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(yardstick_command(out, rounds), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run


def test_the_yardstick_goes_on_where_a_run_stopped(tmp_path: Path) -> None:
    resumed, straight = tmp_path / "resumed.json", tmp_path / "straight.json"
    yardstick(resumed, 1)
    first = json.loads(resumed.read_text())["rows"]
    assert len(first) == 1 and first[0]["games"] == 1
    yardstick(resumed, 3)
    yardstick(straight, 3)
    rows = json.loads(resumed.read_text())["rows"]
    assert len(rows) == 1 and rows[0]["games"] == 3
    assert rows[0]["played"][0]["credit"] == first[0]["played"][0]["credit"]
    again = json.loads(straight.read_text())["rows"][0]
    assert [g["credit"] for g in rows[0]["played"]] == [g["credit"] for g in again["played"]]
    assert [g["seat"] for g in again["played"]] == [0, 1, 2]
    assert rows[0]["openspiel"] == "ismcts" and rows[0]["against"] == "agent:search=4"
    table = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "openspiel_yardstick.py"), "--table", str(resumed)],
        capture_output=True,
        text=True,
    ).stdout
    assert "| diamant | 3 | ismcts | engine | 4 | `agent:search=4` | 0 | 3 |" in table


def test_two_yardstick_runs_on_one_file_keep_each_others_games(tmp_path: Path) -> None:
    out = tmp_path / "shared.json"
    runs = [
        subprocess.Popen(yardstick_command(out, 4, seed), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for seed in (0, 1)
    ]
    for run in runs:
        _, err = run.communicate()
        assert run.returncode == 0, err
    rows = json.loads(out.read_text())["rows"]
    assert sorted((r["seed"], r["games"]) for r in rows) == [(0, 4), (1, 4)]
    assert all([g["number"] for g in r["played"]] == [0, 1, 2, 3] for r in rows)
