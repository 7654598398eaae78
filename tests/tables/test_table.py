"""The table: the site's command language per game (scenarios as data), bad commands change
nothing, random command strings against live tables, bots at tables, records and replays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablezoo.bots.search import AgentBot
from tablezoo.games import GAMES, draw, game_class
from tablezoo.games.core import ConfigError
from tablezoo.tables.table import FINISHED, PLAYING, TABLE_COMMANDS, Table

SCENARIOS = sorted((Path(__file__).resolve().parent / "scenarios").glob("*.json"))


def snapshot(table: Table) -> str:
    return json.dumps(table.to_record(), sort_keys=True)


def run_scenario(data: dict[str, Any]) -> Table:
    """Run a table scenario (see tests/tables/scenarios): every refused command must change nothing."""
    table = Table.new(data["game"], seed=data.get("seed", 0))
    for i, step in enumerate(data["steps"]):
        where = f"step {i}: {step}"
        if "outcomes" in step:
            table.scripted.extend(step["outcomes"])
        elif "send" in step:
            before = snapshot(table)
            reply = table.handle(step["as"], step["send"])
            if "error" in step:
                assert not reply.ok, where
                assert step["error"] in reply.text, f"{where}: {reply.text}"
                assert snapshot(table) == before, f"{where}: a refused command changed the table"
            else:
                assert reply.ok, f"{where}: {reply.text}"
                assert step.get("reply", "") in reply.text, f"{where}: {reply.text}"
        elif "view" in step:
            expect = dict(step["view"])
            view = table.view(expect.pop("as"))
            log = "\n".join(view["log"])
            for text in expect.pop("log_has", []):
                assert text in log, f"{where}: {text!r} not in the log:\n{log}"
            for text in expect.pop("log_lacks", []):
                assert text not in log, f"{where}: {text!r} in the log:\n{log}"
            for text in expect.pop("render_lacks", []):
                assert text not in view["render"], f"{where}: {text!r} in\n{view['render']}"
            if "seats" in expect:
                assert [s["name"] for s in view["seats"]] == expect.pop("seats"), where
            for key, value in expect.pop("state", {}).items():
                assert view["state"][key] == value, f"{where}: {key} is {view['state'][key]}"
            for key, value in expect.items():
                assert view[key] == value, f"{where}: {key} is {view[key]}"
        else:
            raise AssertionError(f"unknown step {where}")
    return table


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    run_scenario(json.loads(path.read_text()))


def test_every_game_has_a_command_scenario_or_a_bot_game() -> None:
    games = {json.loads(p.read_text())["game"] for p in SCENARIOS}
    assert games >= {"heckmeck", "sechs_nimmt", "diamant"}


def bots_only(game: str, n: int, bot: str = "random", seed: int = 1) -> Table:
    table = Table.new(game, seed=seed)
    for _ in range(n):
        assert table.handle("host", f"/bot {bot}").ok
    return table


@pytest.mark.parametrize("game", list(GAMES))
def test_a_table_of_bots_plays_to_the_end_when_a_watcher_starts_it(game: str) -> None:
    n = game_class(game).info.min_seats + 1
    table = bots_only(game, n, "heuristic")
    reply = table.handle("watcher", "/start")
    assert reply.ok, reply.text
    assert table.phase == FINISHED
    view = table.view("watcher")
    assert view["log"][-1].startswith("Game over:")
    assert view["you"] is None and view["legal"] == []
    assert table.handle("watcher", "/start").text == "the game has already started"


def test_once_a_person_sits_only_players_set_up_the_table() -> None:
    table = Table.new("diamant", seed=1)
    assert table.handle("eve", "/bot random").ok  # an empty table: anyone may seat bots
    table.handle("ann", "/join Ann")
    before = snapshot(table)
    for command in ("/bot random", "/option nothing", "/start"):
        reply = table.handle("eve", command)
        assert not reply.ok and "only the players seated at this table may" in reply.text
    assert snapshot(table) == before
    assert table.handle("ann", "/bot heuristic").ok and table.handle("ann", "/start").ok


def test_a_person_who_leaves_is_replaced_by_a_bot_and_the_game_ends() -> None:
    table = Table.new("heckmeck", seed=3)
    table.handle("ann", "/join Ann")
    table.handle("ann", "/bot random")
    table.handle("ann", "/start")
    assert table.phase == PLAYING and table.to_move() == 0
    assert table.handle("ann", "/leave").ok
    assert table.phase == FINISHED
    assert table.seats[0].bot == "heuristic" and table.seats[0].client is None
    assert "Ann leaves; a heuristic bot plays Ann's seat on." in table.view(None, log_from=0)["log"]


@pytest.mark.parametrize("game", list(GAMES))
def test_a_record_resumes_the_game_exactly_where_it_was(game: str) -> None:
    n = game_class(game).info.min_seats + 1
    table = Table.new(game, seed=11)
    table.handle("ann", "/join Ann")
    for _ in range(n - 1):
        table.handle("ann", "/bot random")
    table.handle("ann", "/start")
    rng = np.random.default_rng(0)
    for _ in range(12):  # a few moves of Ann's
        if table.phase != PLAYING:
            break
        legal = table.view("ann")["legal"]
        table.handle("ann", legal[int(rng.integers(len(legal)))])
    record = json.loads(json.dumps(table.to_record()))  # through JSON, as the store keeps it
    resumed = Table.from_record(record)
    assert resumed.game is not None and table.game is not None
    assert resumed.game.to_json(resumed.state) == table.game.to_json(table.state)
    assert resumed.view("ann") == table.view("ann")
    assert snapshot(resumed) == snapshot(table)
    # the same next move gives the same table (the dice carry on from the same place)
    if table.phase == PLAYING:
        move = table.view("ann")["legal"][0]
        table.handle("ann", move)
        resumed.handle("ann", move)
        assert resumed.game.to_json(resumed.state) == table.game.to_json(table.state)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_record_built_on_an_older_copy_equals_one_built_from_scratch(game: str) -> None:
    """A worker's stale copy brought up to date by the record plays only the new moves, exactly."""
    n = game_class(game).info.min_seats + 1
    table = Table.new(game, seed=5)
    table.handle("ann", "/join Ann")
    for _ in range(n - 1):
        table.handle("ann", "/bot heuristic")
    copies = [Table.from_record(json.loads(json.dumps(table.to_record())))]  # before the start
    table.handle("ann", "/start")
    rng = np.random.default_rng(1)
    while table.phase == PLAYING:
        copies.append(Table.from_record(json.loads(json.dumps(table.to_record()))))
        legal = table.view("ann")["legal"]
        table.handle("ann", legal[int(rng.integers(len(legal)))])
    record = json.loads(json.dumps(table.to_record()))
    fresh = Table.from_record(record)
    for old in copies[:: max(1, len(copies) // 4)]:
        kept_game = old.game
        caught_up = Table.from_record(record, base=old)
        assert caught_up.to_record() == fresh.to_record() == record
        assert snapshot(caught_up) == snapshot(fresh)
        assert caught_up.view("ann") == fresh.view("ann")
        assert kept_game is None or caught_up.game is kept_game  # only the new moves were played
    other = Table.new(game, seed=5)  # another table's copy is not a base: the record is replayed whole
    other.handle("bob", "/join Bob")
    for _ in range(n - 1):
        other.handle("bob", "/bot random")
    other.handle("bob", "/start")
    assert Table.from_record(record, base=other).to_record() == record


def test_a_replay_shows_each_position_and_hides_other_seats_cards() -> None:
    table = Table.new("sechs_nimmt", seed=5)
    table.handle("ann", "/join Ann")
    table.handle("ann", "/bot heuristic")
    table.handle("ann", "/bot random")
    table.handle("ann", "/start")
    while table.phase == PLAYING:
        table.handle("ann", table.view("ann")["legal"][0])
    public = table.replay(None)
    own = table.replay(0)
    assert len(public) == len(own) == len(table.history) + 1
    assert public[-1]["render"] == table.game.render(table.state, None)
    assert all(set(f) == {"step", "text", "render"} for f in public)  # no raw deals or card ids
    secret = [f for f in public if f["text"].endswith("has chosen")]
    assert secret and not any(": play" in f["text"] for f in public)
    assert any(f["text"].startswith("Ann: play") for f in own)


COMMAND_WORDS = [
    *("/join", "/leave", "/option", "/bot", "/start", "/status", "/help"),
    *("play", "keep", "roll", "take", "steal", "go", "camp", "row", "aside", "all", "worm"),
    *("quick", "tactic", "random", "heuristic", "<b>", "1", "5", "42", "-3", "99999999999", "/"),
    *("\x00", "é"),
]


@settings(max_examples=40, deadline=None)
@given(
    game=st.sampled_from(list(GAMES)),
    commands=st.lists(
        st.tuples(
            st.sampled_from(["ann", "bob", "eve"]),
            st.one_of(
                st.lists(st.sampled_from(COMMAND_WORDS), min_size=1, max_size=3).map(" ".join),
                st.text(max_size=30),
            ),
        ),
        max_size=60,
    ),
)
def test_random_commands_never_break_a_table(game: str, commands: list[tuple[str, str]]) -> None:
    table = Table.new(game, seed=2)
    table.handle("ann", "/join Ann")
    table.handle("bob", "/join Bob")
    for _ in range(game_class(game).info.min_seats - 2):
        table.handle("eve", "/bot random")
    for client, text in [*commands[:5], ("ann", "/start"), *commands[5:]]:
        before = snapshot(table)
        reply = table.handle(client, text)
        assert isinstance(reply.text, str) and reply.text
        if not reply.ok:
            assert snapshot(table) == before, f"refused {text!r} changed the table"
        if table.phase == PLAYING:  # whoever is to move is a person: bots have moved
            assert table.seats[table.to_move()].bot is None
        for who in ("ann", "bob", "eve", None):
            json.dumps(table.view(who))  # every view stays JSON
    resumed = Table.from_record(json.loads(json.dumps(table.to_record())))
    assert snapshot(resumed) == snapshot(table)


def test_no_log_line_or_view_shows_a_seat_what_it_may_not_see() -> None:
    # Three people at 6 nimmt!. Whatever a client is sent must be the same had every card it
    # cannot see been dealt otherwise (a determinised state), and no face-down card is logged.
    table = Table.new("sechs_nimmt", seed=9)
    for who in ("ann", "bob", "cy"):
        table.handle(who, f"/join {who.title()}")
    table.handle("ann", "/start")
    rng = np.random.default_rng(1)
    clients = {0: "ann", 1: "bob", 2: "cy"}
    game = table.game
    assert game is not None
    checked, revealed, since = 0, 0, 0
    while table.phase == PLAYING:
        mover = table.to_move()
        legal = table.view(clients[mover])["legal"]
        if not table.secret_round:  # a round of face-down cards starts with this move
            since = table.log[-1].number + 1
        table.handle(clients[mover], legal[int(rng.integers(len(legal)))])
        if table.phase != PLAYING:
            break
        for seat, client in clients.items():
            view = table.view(client)
            other = game.determinize(table.state, seat, rng)
            assert view["state"] == game.view(other, seat)
            assert view["render"] == game.render(other, seat)
            assert view["board"] == draw.svg(game, game.view(other, seat), names=["Ann", "Bob", "Cy"])
            # the cards others chose face down in the round under way are in no line since it began
            pending = [f"{table.seats[s].name} {game.command(a)}" for s, a in table.secret_round if s != seat]
            lines = [line.text for line in table.visible_log(seat, since)]
            assert not any(p in line for line in lines for p in pending), (pending, lines)
            assert not any(line.startswith(("Ann: play", "Bob: play", "Cy: play")) for line in lines)
            revealed = max(revealed, sum(line.startswith("Revealed: Ann play") for line in view["log"]))
            checked += 1
    assert checked > 100 and revealed > 5  # once all have chosen, the cards are logged to everyone


def test_names_are_unique_regardless_of_case_and_bot_is_kept_for_bots() -> None:
    table = Table.new("heckmeck", seed=1)
    assert table.handle("ann", "/join Ann").ok
    before = snapshot(table)
    for client, command, message in [
        ("eve", "/join ann", "the name 'ann' is taken at this table (names ignore case)"),
        ("eve", "/join ANN", "is taken"),
        ("eve", "/join heuristic bot", "the word 'bot' is kept for bots' names"),
        ("eve", "/join Bot", "kept for bots"),
        ("eve", "/join my bots", "kept for bots"),
    ]:
        reply = table.handle(client, command)
        assert not reply.ok and message in reply.text, reply.text
        assert snapshot(table) == before
    assert table.handle("eve", "/join Abbott").ok  # "bot" inside a word is a name like any other
    assert table.handle("joe", "/join").ok  # no name: the first free "player N"
    assert [o.name for o in table.seats] == ["Ann", "Abbott", "player 3"]


@pytest.mark.parametrize("name", list(GAMES))
def test_the_agent_sits_at_every_seat_count(name: str) -> None:
    info = game_class(name).info
    table = Table.new(name, seed=1)
    assert table.handle("ann", "/join Ann").ok
    assert table.handle("ann", "/bot agent:search=2").ok
    while len(table.seats) < info.max_seats:
        assert table.handle("ann", "/bot agent").ok
    reply = table.handle("ann", "/start")
    assert reply.ok, reply.text
    assert all(isinstance(b, AgentBot) for b in table.bots.values())  # the native search is one too
    assert table.bots[1].simulations == 2  # type: ignore[attr-defined]


def test_a_bare_agent_thinks_for_the_tables_seconds_and_keeps_its_name() -> None:
    """``/bot agent`` at a table of ``agent_think`` seconds seats ``agent:think=SECONDS`` (the site's
    default; its label stays "agent bot"), kept through the table's record; the library's tables
    (0 seconds) seat the network alone, and a setting given by name is the one played."""
    table = Table.new("court", seed=1, agent_think=0.25)
    assert table.handle("ann", "/join Ann").ok
    assert table.handle("ann", "/bot agent").ok
    assert table.handle("ann", "/bot agent:search=2").ok
    assert [o.name for o in table.seats] == ["Ann", "agent bot", "agent:search=2 bot"]
    # the game's thinking agent (THINKING_SETTINGS: To Court the King's trusts its values more)
    assert [o.bot for o in table.seats[1:]] == ["agent:think=0.25,confidence=1", "agent:search=2"]
    assert table.handle("ann", "/start").ok
    thinking, counted = table.bots[1], table.bots[2]
    assert isinstance(thinking, AgentBot) and (thinking.seconds, thinking.confidence) == (0.25, 1.0)
    assert isinstance(counted, AgentBot) and (counted.seconds, counted.simulations) == (None, 2)
    again = Table.from_record(json.loads(json.dumps(table.to_record())))
    assert again.agent_think == 0.25 and again.bots[1].seconds == 0.25  # type: ignore[attr-defined]
    six = Table.new("sechs_nimmt", seed=1, agent_think=1)
    assert six.handle("ann", "/join Ann").ok and six.handle("ann", "/bot agent").ok
    assert six.seats[1].bot == "agent:think=1,leaf=end"  # the game's thinking agent (THINKING_SETTINGS)
    plain = Table.new("court", seed=1)
    assert plain.handle("ann", "/join Ann").ok and plain.handle("ann", "/bot agent").ok
    assert plain.seats[1].bot == "agent"
    with pytest.raises(ConfigError, match="agent_think is 0 seconds or more"):
        Table.new("court", agent_think=-1)


def test_agent_settings_and_options_are_checked_before_the_game_and_bots_can_be_removed() -> None:
    table = Table.new("sechs_nimmt", seed=1)
    assert table.handle("ann", "/join Ann").ok
    before = snapshot(table)
    reply = table.handle("ann", "/bot agent:depth=3")
    takes = (
        "bot 'agent' takes search=0, c_puct=1.5, horizon=0, batch=1, think=0.0, considered=16, "
        "confidence=0.25, root=gumbel, leaf=turn, others=sample, bias=0.0, fresh=0.0, spread=pooled, "
        "chance=world, own=network, advice=none, heed=10.0; not 'depth=3'"
    )
    assert not reply.ok and takes in reply.text
    assert snapshot(table) == before
    # the agent learnt the game without options: one that changes the actions (tactic: a smaller
    # deck) is refused at the start, naming the sizes
    assert table.handle("ann", "/option tactic").ok
    assert table.handle("ann", "/bot agent").ok
    before = snapshot(table)
    reply = table.handle("ann", "/start")
    assert (
        not reply.ok and "(trained without options) was trained for observations of 903 and 108" in reply.text
    )
    assert snapshot(table) == before
    assert table.handle("ann", "/option tactic").ok

    table = Table.new("court", seed=1)
    assert table.handle("ann", "/join Ann").ok
    assert table.handle("ann", "/bot agent").ok
    assert table.handle("ann", "/bot random").ok
    before = snapshot(table)
    # /unbot takes a bot off by its seat number, before the start, and nothing else
    for command, message in [
        ("/unbot 0", "no bot at seat '0'"),
        ("/unbot x", "no bot at seat 'x'"),
        ("/unbot", "/unbot SEAT with the seat number of a bot (1, 2)"),
    ]:
        reply = table.handle("ann", command)
        assert not reply.ok and message in reply.text, reply.text
    assert not table.handle("eve", "/unbot 2").ok  # only the seated players set the table up
    assert snapshot(table) == before
    reply = table.handle("ann", "/unbot 2")
    assert reply.ok and reply.text == "random bot left seat 2"
    assert [o.name for o in table.seats] == ["Ann", "agent bot"]
    assert table.handle("ann", "/start").ok
    assert not table.handle("ann", "/unbot 1").ok  # the game is under way


def test_reading_commands_change_nothing_and_help_lists_the_command_table() -> None:
    table = Table.new("diamant", seed=1)
    table.handle("ann", "/join Ann")
    calls: list[int] = []
    table.listeners.append(lambda t: calls.append(t.version))
    before = snapshot(table)
    for client in ("ann", "onlooker"):
        for command in ("/status", "/help"):
            reply = table.handle(client, command)
            assert reply.ok and not reply.changed
    assert snapshot(table) == before and calls == []  # no new version, nothing to store or send
    text = table.handle("onlooker", "/help").text
    for name, command in TABLE_COMMANDS.items():
        assert text.count(f"{command.usage}: {command.help}") == 1, name
    assert "/unbot SEAT" in text


def test_the_choices_of_diamant_are_revealed_in_the_log_by_name() -> None:
    table = Table.new("diamant", seed=4)
    for who in ("ann", "bob", "cy"):
        table.handle(who, f"/join {who.title()}")
    table.scripted.extend(["15", "fire"])
    table.handle("ann", "/start")
    table.handle("ann", "camp")
    table.handle("bob", "go")
    assert not any(line.startswith("Revealed") for line in table.view("cy")["log"])
    table.handle("cy", "go")
    for who in ("ann", "bob", "cy", None):
        log = table.view(who)["log"]
        assert "Revealed: Ann camp, Bob go, Cy go." in log
        assert not any("seat " in line for line in log), log  # names, never seat numbers
    # a record rebuilt in the middle of a round of choices reveals that whole round
    table.handle("bob", "go")
    resumed = Table.from_record(json.loads(json.dumps(table.to_record())))
    resumed.handle("cy", "camp")
    assert resumed.view(None)["log"][-2:][0].startswith("Revealed: Bob go, Cy camp.")
