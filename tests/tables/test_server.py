"""The web server: pages, the JSON API, the bot endpoint, and play over WebSockets."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import warnings
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import make_bot
from tablezoo.games import make
from tablezoo.games.core import CHANCE
from tablezoo.tables import server
from tablezoo.tables.server import STATIC, add_serve_parser, create_app

with warnings.catch_warnings():  # starlette 1.x would rather have httpx2; httpx works the same
    warnings.filterwarnings("ignore", message="Using `httpx`")
    from starlette.testclient import TestClient

ALICE, BOB, CAROL = "alice-token-0001", "bob-token-0002", "carol-token-0003"


@contextlib.contextmanager
def site(db: str | Path = ":memory:", **settings: Any) -> Iterator[TestClient]:
    settings.setdefault("allowed_hosts", ["testserver"])  # TestClient's host name
    settings.setdefault("rate", 10_000.0)  # these tests send as fast as they can; the limit has its own
    settings.setdefault("burst", 10_000)
    with TestClient(create_app(str(db), **settings)) as http:
        yield http


@contextlib.contextmanager
def seated(http: TestClient, table_id: str, client: str) -> Iterator[Any]:
    """A socket at the table that has sent its client token (its first message)."""
    with http.websocket_connect(f"/ws/{table_id}") as socket:
        socket.send_json({"client": client})
        yield socket


def new_table(http: TestClient, game: str, **options: bool) -> str:
    response = http.post("/api/tables", json={"game": game, "options": options})
    assert response.status_code == 201, response.text
    return response.json()["id"]


class Room:
    """Sockets at one table. Commands go one at a time; every message each socket gets is kept.

    An accepted command sends exactly one message to every socket of the table (the
    sender's with the reply); a refused one answers the sender alone. So after each
    command the room reads one message from every socket and nothing is left waiting.
    """

    def __init__(self, http: TestClient, table_id: str) -> None:
        self.http = http
        self.table_id = table_id
        self.stack = contextlib.ExitStack()
        self.sockets: dict[str, Any] = {}
        self.messages: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.views: dict[str, dict[str, Any]] = {}

    def __enter__(self) -> Room:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()

    def connect(self, client: str) -> dict[str, Any]:
        socket = self.stack.enter_context(seated(self.http, self.table_id, client))
        self.sockets[client] = socket
        first = self._receive(client)
        assert set(first) == {"view"}
        return first["view"]

    def _receive(self, client: str) -> dict[str, Any]:
        message = self.sockets[client].receive_json()
        self.messages[client].append(message)
        if "view" in message:
            self.views[client] = message["view"]
        return message

    def send(self, client: str, command: str) -> dict[str, Any]:
        """The reply to ``command``; the other sockets' views are read too."""
        self.sockets[client].send_json({"command": command})
        message = self._receive(client)
        reply = message["reply"]
        if reply["ok"] and command.split(" ")[0] in ("/status", "/help"):
            assert set(message) == {"reply"}  # read-only: the asker alone hears, nothing is broadcast
        elif reply["ok"]:
            assert message["view"]["version"] == self.views[client]["version"]
            for other in self.sockets:
                if other != client:
                    got = self._receive(other)
                    assert set(got) == {"view"}, got
        else:
            assert set(message) == {"reply"}
        return reply

    def ok(self, client: str, command: str) -> dict[str, Any]:
        reply = self.send(client, command)
        assert reply["ok"], reply
        return reply

    def mover(self) -> str | None:
        """The client whose seat is to move (from any socket's latest view)."""
        view = next(iter(self.views.values()))
        if view["to_move"] is None:
            return None
        for client, v in self.views.items():
            if v["you"] == view["to_move"]:
                return client
        return None


# --------------------------------------------------------------------------- pages and the API


def test_pages_and_static_files() -> None:
    with site() as http:
        lobby = http.get("/")
        assert lobby.status_code == 200 and "text/html" in lobby.headers["content-type"]
        assert "script-src 'self'" in lobby.headers["content-security-policy"]
        table_id = new_table(http, "heckmeck")
        page = http.get(f"/table/{table_id}")
        assert page.status_code == 200 and 'data-page="table"' in page.text
        assert http.get("/table/nosuchtable").status_code == 404
        for name in ("app.js", "style.css", "lobby.html", "table.html"):
            assert http.get(f"/static/{name}").status_code == 200


def test_games_and_creating_tables() -> None:
    with site() as http:
        games = {g["name"]: g for g in http.get("/api/games").json()}
        assert set(games) == {"heckmeck", "sechs_nimmt", "diamant", "court"}
        assert games["diamant"]["min_seats"] == 3 and games["diamant"]["title"] == "Diamant"
        assert [o["name"] for o in games["sechs_nimmt"]["options"]] == ["tactic", "profi", "logic"]
        assert all(o["help"] for o in games["sechs_nimmt"]["options"])
        assert "search" in games["sechs_nimmt"]["bots"] and "search" not in games["heckmeck"]["bots"]
        assert games["diamant"]["agent_seats"] == list(range(3, 9))

        created = http.post("/api/tables", json={"game": "sechs_nimmt", "options": {"profi": True}})
        assert created.status_code == 201
        table = created.json()
        assert table["url"] == f"/table/{table['id']}" and table["phase"] == "waiting"
        assert http.get(f"/api/tables/{table['id']}").json()["options"]["profi"] is True
        (listed,) = http.get("/api/tables").json()
        assert listed == {k: table[k] for k in listed}
        assert listed["players"] == 0 and listed["title"] == "6 nimmt!"

        for body, message in [
            ({"game": "chess"}, "no game 'chess'; games are: heckmeck"),
            ({}, "no game None"),
            ({"game": "heckmeck", "options": {"fast": True}}, "Heckmeck has no option 'fast'; its options"),
            ({"game": "heckmeck", "options": {"quick": "yes"}}, "options must be an object"),
            ({"game": "heckmeck", "options": ["quick"]}, "options must be an object"),
        ]:  # fmt: skip
            response = http.post("/api/tables", json=body)
            assert response.status_code == 400 and message in response.json()["error"], response.text
        response = http.post("/api/tables", content=b"not json", headers={"content-type": "application/json"})
        assert response.status_code == 400 and response.json() == {"error": "the body must be a JSON object"}
        assert http.get("/api/tables/nosuch").status_code == 404
        assert len(http.get("/api/tables").json()) == 1


def test_sockets_need_a_client_token_and_a_table() -> None:
    with site() as http:
        table_id = new_table(http, "court")
        with http.websocket_connect(f"/ws/{table_id}") as socket:
            socket.send_json({"command": "/help"})
            assert '{"client": TOKEN}' in socket.receive_json()["error"]
        with seated(http, table_id, "a b") as socket:
            assert "error" in socket.receive_json()
        with seated(http, "nosuch", ALICE) as socket:
            assert socket.receive_json() == {"error": "no such table"}
        with seated(http, table_id, ALICE) as socket:
            assert socket.receive_json()["view"]["phase"] == "waiting"
            for bad in ("not json", json.dumps(["/help"]), json.dumps({"command": 5}), "x" * 5000):
                socket.send_text(bad)
                reply = socket.receive_json()
                assert set(reply) == {"reply"} and reply["reply"]["ok"] is False
            socket.send_json({"command": "/status"})
            message = socket.receive_json()
            assert message["reply"]["ok"] and "To Court the King" in message["reply"]["text"]


# --------------------------------------------------------------------------- who sees what


def test_hidden_cards_never_reach_another_seat() -> None:
    with site() as http:
        table_id = new_table(http, "sechs_nimmt")
        with Room(http, table_id) as room:
            for client in (ALICE, BOB, CAROL):
                room.connect(client)
            room.ok(ALICE, "/join Alice")
            room.ok(BOB, "/join Bob")
            assert not room.send(CAROL, "/start")["ok"]  # a spectator may not start the players' table
            room.ok(BOB, "/start")
            hands = {c: set(room.views[c]["state"]["hand"]) for c in (ALICE, BOB)}
            assert len(hands[ALICE]) == len(hands[BOB]) == 10 and not hands[ALICE] & hands[BOB]
            assert room.views[CAROL]["state"]["hand"] is None and room.views[CAROL]["you"] is None

            # Alice (seat 0) chooses a card face down: Bob and Carol hear only that she has chosen.
            assert room.mover() == ALICE
            card = min(hands[ALICE])
            room.ok(ALICE, f"play {card}")
            assert room.views[ALICE]["log"][-1] == f"you chose: play {card}"
            for other in (BOB, CAROL):
                log = room.views[other]["log"]
                assert log[-1] == "Alice has chosen." and not any(f"play {card}" in x for x in log)
                assert room.views[other]["state"]["choice"] is None
                assert room.views[other]["state"]["trick"] == [None, None]
            assert room.views[BOB]["state"]["has_chosen"] == [True, False]

            # Nobody else can move for Bob, and Alice cannot move again.
            assert "no seat" in room.send(CAROL, f"play {min(hands[BOB])}")["text"]
            assert "not your turn" in room.send(ALICE, f"play {max(hands[ALICE])}")["text"]

            # Play the round out; no message to a socket ever carries another seat's hand.
            for _ in range(200):
                mover = room.mover()
                if mover is None:
                    break
                room.ok(mover, room.views[mover]["legal"][0])
            for client, other in ((ALICE, BOB), (BOB, ALICE), (CAROL, None)):
                for message in room.messages[client]:
                    state = message.get("view", {}).get("state")
                    if state is None:
                        continue
                    assert state["hands"] is None and state["seat"] == message["view"]["you"]
                    if other is not None and state["phase"] == "choose" and state["round"] == 1:
                        assert not set(state["hand"]) & hands[other]
                    if client == CAROL:
                        assert state["hand"] is None and message["view"]["legal"] == []


def test_replays_show_a_seat_only_after_the_game() -> None:
    with site() as http:
        table_id = new_table(http, "sechs_nimmt")
        with Room(http, table_id) as room:
            room.connect(ALICE)
            room.ok(ALICE, "/join Alice")
            room.ok(ALICE, "/bot random")
            room.ok(ALICE, "/start")
            hand = room.views[ALICE]["state"]["hand"]
            public = http.get(f"/api/tables/{table_id}/replay")
            assert public.status_code == 200
            frames = public.json()["frames"]
            assert [set(f) for f in frames] == [{"step", "text", "render"}] * len(frames)
            assert "hands" not in public.text and str(hand[1:4])[1:-1] not in public.text
            refused = http.get(f"/api/tables/{table_id}/replay?seat=0")
            assert refused.status_code == 403 and "only after the game" in refused.json()["error"]
            assert http.get(f"/api/tables/{table_id}/replay/1?seat=0").status_code == 403
            assert http.get(f"/api/tables/{table_id}/replay?seat=x").status_code == 400
            assert http.get(f"/api/tables/{table_id}/replay?seat=5").status_code == 400
            while room.views[ALICE]["phase"] != "finished":
                room.ok(ALICE, room.views[ALICE]["legal"][-1])
            own = http.get(f"/api/tables/{table_id}/replay?seat=0").json()
            assert own["seat"] == 0 and own["phase"] == "finished" and len(own["frames"]) > 20

            # each step's board, drawn as that seat saw it, with nothing to click
            board = http.get(f"/api/tables/{table_id}/replay/3?seat=0")
            assert board.status_code == 200 and board.headers["content-type"].startswith("image/svg+xml")
            assert board.text.startswith("<svg") and "Your hand" in board.text
            assert "data-command" not in board.text
            public = http.get(f"/api/tables/{table_id}/replay/3").text
            assert "Your hand" not in public
            last = len(own["frames"]) - 1
            assert "Game over" in http.get(f"/api/tables/{table_id}/replay/{last}").text
            for path, message in [
                (f"/replay/{last + 1}", f"step must be from 0 to {last}"),
                ("/replay/x", "step must be a whole number"),
                ("/replay/2?seat=9", "no seat 9"),
            ]:
                answer = http.get(f"/api/tables/{table_id}{path}")
                assert answer.status_code == 400 and message in answer.json()["error"], path


def test_a_name_with_html_stays_text() -> None:
    names = ["<script>alert(1)</script>", "<img src=x onerror=f()>"]
    shown = [n[:24] for n in names]  # names are at most 24 characters
    with site() as http:
        table_id = new_table(http, "heckmeck")
        with Room(http, table_id) as room:
            for client, name, seen in zip((ALICE, BOB), names, shown, strict=True):
                room.connect(client)
                seat = len(room.views[client]["seats"])
                assert room.ok(client, f"/join {name}")["text"] == f"you sit at seat {seat} as {seen}"
                assert room.views[client]["log"][-1] == f"{seen} joins the table."
            assert [s["name"] for s in room.views[ALICE]["seats"]] == shown
        response = http.get("/api/tables")
        assert response.headers["content-type"] == "application/json"
        assert response.json()[0]["seats"] == shown
        assert "<script>" in response.text  # plain JSON text: escaping is the page's job (textContent)


def test_the_pages_put_data_in_with_text_content_only() -> None:
    script = (STATIC / "app.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in script, sink
    assert script.count("textContent") >= 5
    for page in ("lobby.html", "table.html"):
        html = (STATIC / page).read_text()
        assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/app.js" defer>']
        assert "http://" not in html and "https://" not in html  # no CDN
        for element in (
            "render",
            "log",
            "phase",
            "name",
            "join",
            "bot-select",
            "add-bot",
            "start",
            "command",
        ):
            if page == "table.html":
                assert f'id="{element}"' in html, element


# --------------------------------------------------------------------------- restarts and many tables


def test_a_restart_resumes_a_game_in_the_middle(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite3"
    with site(db) as http:
        table_id = new_table(http, "diamant")
        waiting_id = new_table(http, "heckmeck")
        with Room(http, waiting_id) as room:
            room.connect(CAROL)
            room.ok(CAROL, "/join Carol")
        with Room(http, table_id) as room:
            room.connect(ALICE)
            room.connect(BOB)
            room.ok(ALICE, "/join Alice")
            room.ok(BOB, "/join Bob")
            room.ok(ALICE, "/bot heuristic")
            room.ok(BOB, "/start")
            for _ in range(3):
                room.ok(room.mover(), "go")
            before = dict(room.views)
            history = list(http.app.state.hub.tables[table_id].history)
            assert before[ALICE]["phase"] == "playing"

    with site(db) as http:  # a new server on the same file
        hub = http.app.state.hub
        assert set(hub.tables) == {table_id, waiting_id}
        assert hub.tables[table_id].history == history
        with Room(http, waiting_id) as room:
            assert room.connect(CAROL)["you"] == 0
        with Room(http, table_id) as room:
            for client in (ALICE, BOB):
                assert room.connect(client) == before[client]
            moves = 0
            while room.views[ALICE]["phase"] != "finished":
                room.ok(room.mover(), "camp" if moves % 3 == 0 else "go")
                moves += 1
                assert moves < 500
            assert room.views[ALICE]["log"][-1].startswith("Game over")
            assert room.views[BOB]["log"][-1] == room.views[ALICE]["log"][-1]

    with site(db) as http:  # finished tables are read back on demand
        assert table_id not in http.app.state.hub.tables
        listed = {t["id"]: t for t in http.get("/api/tables").json()}
        assert listed[table_id]["phase"] == "finished"
        assert listed[table_id]["seats"] == ["Alice", "Bob", "heuristic bot"]
        assert http.get(f"/api/tables/{table_id}/replay?seat=1").status_code == 200
        assert http.get(f"/table/{table_id}").status_code == 200


BOT_LINEUPS = {
    "heckmeck": [["random", "random"], ["agent", "heuristic"], ["heuristic", "random", "random"]],
    "sechs_nimmt": [["random", "random"], ["heuristic", "random", "heuristic"], ["heuristic"] * 4],
    "diamant": [["random"] * 3, ["agent"] * 4, ["heuristic", "random", "random", "heuristic", "random"]],
    "court": [["random", "random"], ["heuristic", "heuristic", "random"], ["heuristic"] * 3],
}


def test_many_bot_tables_play_out_at_once(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite3"
    with site(db) as http:
        lineups = [(game, bots) for game, options in BOT_LINEUPS.items() for bots in options]
        assert len(lineups) == 12
        ids = [
            new_table(http, game, **({"quick": True} if game == "heckmeck" else {})) for game, _ in lineups
        ]
        with contextlib.ExitStack() as stack:
            sockets = []
            for (_, bots), table_id, k in zip(lineups, ids, itertools.count(), strict=False):
                socket = stack.enter_context(seated(http, table_id, f"watcher-{k:04d}"))
                assert socket.receive_json()["view"]["phase"] == "waiting"
                for bot in bots:
                    socket.send_json({"command": f"/bot {bot}"})
                    assert socket.receive_json()["reply"]["ok"]
                sockets.append(socket)
            for socket in sockets:  # every table starts before any answer is read
                socket.send_json({"command": "/start"})
            for socket in sockets:
                message = socket.receive_json()
                assert message["reply"] == {"ok": True, "text": "the game starts"}
                assert message["view"]["phase"] == "finished"
                assert message["view"]["log"][-1].startswith("Game over")
        tables = http.get("/api/tables").json()
        assert sorted(t["id"] for t in tables) == sorted(ids)
        assert all(t["phase"] == "finished" for t in tables)
        assert len(http.app.state.hub.store.finished()) == 12


# --------------------------------------------------------------------------- the bot endpoint


def decision(game_name: str, seats: int, seed: int = 0) -> tuple[Any, Any, int]:
    """A game, a state at a decision, and the seat to decide."""
    game = make(game_name, seats)
    state = game.initial_state()
    rng = np.random.default_rng(seed)
    while (mover := game.to_move(state)) == CHANCE:
        game.step_chance(state, rng)
    return game, state, mover


def test_bot_move_from_an_observation() -> None:
    game, state, mover = decision("diamant", 4)
    seat = Seat.of(game, state, mover)
    body = {
        "game": "diamant",
        "num_players": 4,
        "options": {},
        "bot": "agent",
        "observation": seat.observation.tolist(),
        "mask": seat.mask.tolist(),
    }
    expected = make_bot("agent", game).act(seat)
    with site() as http:
        answer = http.post("/api/bot/move", json=body).json()
        assert answer == {"action": expected, "command": game.command(expected)}

        game6, state6, mover6 = decision("sechs_nimmt", 3)
        seat6 = Seat.of(game6, state6, mover6)
        mask = [bool(v) for v in seat6.mask]
        for _ in range(5):
            answer = http.post(
                "/api/bot/move",
                json={"game": "sechs_nimmt", "num_players": 3, "bot": "random",
                      "observation": seat6.observation.tolist(), "mask": mask},
            ).json()  # fmt: skip
            assert answer["action"] in seat6.legal and answer["command"] == game6.command(answer["action"])


def test_bot_move_from_an_observation_refuses_bad_requests() -> None:
    game, state, mover = decision("diamant", 4)
    seat = Seat.of(game, state, mover)
    good = {"game": "diamant", "num_players": 4, "bot": "agent",
            "observation": seat.observation.tolist(), "mask": seat.mask.tolist()}  # fmt: skip
    size, n = game.observation_spec.size, game.num_actions
    cases = [
        ({"bot": "heuristic"}, "the heuristic bot plays from the game's state"),
        ({"bot": "heuristic"}, "only these bots play: random, agent"),
        ({"bot": "solver"}, "no bot 'solver' for Diamant"),
        ({"bot": "/etc/passwd.npz"}, "no bot '/etc/passwd.npz'"),
        ({"bot": None}, "no bot None"),
        ({"game": "go"}, "no game 'go'"),
        ({"num_players": 9}, "Diamant is for 3 to 8 players, not 9"),
        ({"num_players": "4"}, "num_players must be a whole number from 3 to 8"),
        ({"num_players": 3}, f"observation has {size} values; Diamant with 3 players has observations of"),
        ({"bot": "agent:search=8"}, "the agent:search=8 bot plays from the game's state"),
        ({"options": {"quick": True}}, "Diamant has no option 'quick'"),
        ({"observation": [0.0] * (size - 1)}, f"observation has {size - 1} values; Diamant with 4 players"),
        ({"observation": [*good["observation"][:-1], "x"]}, f"observation must be a list of {size} finite"),
        ({"observation": None}, "observation must be a list"),
        ({"mask": [1] * (n + 1)}, f"mask has {n + 1} values; Diamant with 4 players has {n} actions"),
        ({"mask": [0] * n}, "the mask allows no action"),
        ({"mask": [2] * n}, "mask must be a list of 2 values, each 0 or 1"),
    ]  # fmt: skip
    with site() as http:
        for change, message in cases:
            response = http.post("/api/bot/move", json={**good, **change})
            assert response.status_code == 400, (change, response.text)
            assert message in response.json()["error"], (change, response.json())
        response = http.post("/api/bot/move", json=[1, 2])
        assert response.status_code == 400 and "JSON object" in response.json()["error"]


def test_bot_move_for_a_seat_of_a_live_table() -> None:
    with site() as http:
        table_id = new_table(http, "sechs_nimmt")
        url = "/api/bot/move"
        with Room(http, table_id) as room:
            room.connect(ALICE)
            room.ok(ALICE, "/join Alice")
            answer = http.post(url, json={"table": table_id, "seat": 0, "bot": "random", "client": ALICE})
            assert answer.status_code == 409 and "not under way (waiting)" in answer.json()["error"]
            room.ok(ALICE, "/bot heuristic")
            room.ok(ALICE, "/start")
            legal = room.views[ALICE]["legal"]
            for bot in ("heuristic", "search", "random"):
                answer = http.post(url, json={"table": table_id, "seat": 0, "bot": bot, "client": ALICE})
                assert answer.status_code == 200, answer.text
                assert answer.json()["command"] in legal
            version = http.get(f"/api/tables/{table_id}").json()["version"]
            assert version == room.views[ALICE]["version"]  # asking changes nothing

            for body, status, message in [
                ({"seat": 0, "bot": "random"}, 403, "seat 0 is a person's"),
                ({"seat": 0, "bot": "random", "client": BOB}, 403, "only their client"),
                ({"seat": 1, "bot": "random"}, 409, "it is not seat 1's turn: seat 0 is to move"),
                ({"seat": 7, "bot": "random"}, 400, "no seat 7"),
                ({"seat": "0", "bot": "random"}, 400, "seat must be a seat number"),
                ({"seat": 0, "bot": "solver", "client": ALICE}, 400, "no bot 'solver' for 6 nimmt!"),
                ({"seat": 0, "bot": "x.npz", "client": ALICE}, 400, "no bot 'x.npz'"),
            ]:
                answer = http.post(url, json={"table": table_id, **body})
                assert answer.status_code == status and message in answer.json()["error"], (body, answer.text)
            answer = http.post(url, json={"table": "nosuch", "seat": 0, "bot": "random"})
            assert answer.status_code == 404
            answer = http.post(url, json={"table": 5, "seat": 0, "bot": "random"})
            assert answer.status_code == 400


def test_serve_sub_command() -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="tablezoo")
    add_serve_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", "--port", "8123", "--db", "x.sqlite3"])
    assert (args.host, args.port, args.db, args.func) == ("127.0.0.1", 8123, "x.sqlite3", server.cmd_serve)
    defaults = parser.parse_args(["serve"])
    assert (defaults.port, defaults.db) == (8000, "tablezoo.sqlite3")
    assert (defaults.allow_host, defaults.allow_origin, defaults.expire_after) == (
        [],
        [],
        server.EXPIRE_AFTER,
    )
    args = parser.parse_args(
        ["serve", "--allow-origin", "https://a.example", "--allow-origin", "https://b.example",
         "--allow-host", "games.example", "--expire-after", "600"]
    )  # fmt: skip
    assert args.allow_origin == ["https://a.example", "https://b.example"] and args.allow_host == [
        "games.example"
    ]
    args.expire_after = 0
    with pytest.raises(server.ConfigError, match="--expire-after must be a positive number of seconds"):
        server.cmd_serve(args)
    # the site's bare agent thinks about a second a move; --agent-think 0 seats the network alone
    assert defaults.agent_think == server.AGENT_THINK == 1.0
    args = parser.parse_args(["serve", "--agent-think", "-1"])
    with pytest.raises(server.ConfigError, match="--agent-think must be 0 seconds or more, not -1"):
        server.cmd_serve(args)


def test_the_sites_tables_seat_a_bare_agent_thinking() -> None:
    """The tables a site makes carry its ``agent_think``: ``/bot agent`` there sits as ``agent:think=S``."""
    app = server.create_app(":memory:", agent_think=0.5)
    hub = app.state.hub
    table = asyncio.run(hub.create("heckmeck", {}))
    assert hub.agent_think == table.agent_think == 0.5
    assert table.handle("ann", "/join Ann").ok and table.handle("ann", "/bot agent").ok
    assert table.seats[1].bot == "agent:think=0.5,own=margin,advice=margin"  # Heckmeck's thinking agent
    assert server.create_app(":memory:").state.hub.agent_think == 0.0  # the library's own: the network alone


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--workers", "2"], "a site on one SQLite file runs one process"),
        (["--workers", "0"], "--workers must be at least 1, not 0"),
        (["--database", "postgresql://u@h:1/x"], "needs both --database postgresql://... and --broker"),
        (["--broker", "redis://127.0.0.1:1/0"], "needs both --database postgresql://... and --broker"),
        (["--database", "mysql://u@h/x", "--broker", "redis://h:1/0"], "--database must be a postgresql://"),
        (["--database", "postgresql://u@h/x", "--broker", "http://h:1"], "--broker must be a redis://"),
    ],
)
def test_serve_refuses_workers_without_their_servers(flags: list[str], message: str) -> None:
    """Several workers need PostgreSQL and Redis; a wrong combination says what is needed, before
    anything starts."""
    import argparse

    parser = argparse.ArgumentParser(prog="tablezoo")
    add_serve_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["serve", *flags])
    with pytest.raises(server.ConfigError, match=re.escape(message)):
        server.cmd_serve(args)


@pytest.mark.parametrize("path", ["/api/tables", "/api/games"])
def test_api_answers_json(path: str) -> None:
    with site() as http:
        response = http.get(path)
        assert response.status_code == 200 and isinstance(response.json(), list)


@pytest.mark.parametrize("game", ["heckmeck", "sechs_nimmt", "diamant", "court"])
def test_random_messages_on_live_sockets(game: str) -> None:
    # Two players and a watcher send random text, random JSON and random words of every game,
    # now and then a legal move. The server answers every message, a refused command leaves the
    # table as it was, and each socket only ever gets its own client's view.
    rng = np.random.default_rng(sum(map(ord, game)))
    words = ["/join", "/leave", "/option", "/bot", "/start", "/status", "/help", "/nope", "play", "keep",
             "roll", "take", "steal", "go", "camp", "row", "aside", "all", "worm", "quick", "random",
             "heuristic", "<script>", "1", "4", "42", "-1", "{}", "\u00e9"]  # fmt: skip
    with site() as http:
        table_id = new_table(http, game)
        hub = http.app.state.hub  # type: ignore[attr-defined]
        table = hub.tables[table_id]
        with Room(http, table_id) as room:
            for client in (ALICE, BOB, CAROL):
                room.connect(client)
            room.ok(ALICE, "/join Alice")
            room.ok(BOB, "/join Bob")
            for _ in range(table.info.min_seats - 2):
                room.ok(ALICE, "/bot random")
            for i in range(150):
                client = (ALICE, BOB, CAROL)[int(rng.integers(3))]
                if i == 20:
                    text = "/start"
                elif rng.random() < 0.3 and room.views[client]["legal"]:
                    legal = room.views[client]["legal"]
                    text = legal[int(rng.integers(len(legal)))]
                else:
                    text = " ".join(rng.choice(words, size=int(rng.integers(1, 4))))
                before = json.dumps(table.to_record(), sort_keys=True)
                reply = room.send(client, text)
                if not reply["ok"]:
                    assert json.dumps(table.to_record(), sort_keys=True) == before, text
                for who, view in room.views.items():
                    assert view["you"] == table.seat_of(who)
            assert table.phase in ("playing", "finished")


# --------------------------------------------------------------------------- hardening


def test_deeply_nested_json_is_a_clear_error() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with site() as http:
        for url in ("/api/bot/move", "/api/tables"):
            response = http.post(url, content=deep, headers={"content-type": "application/json"})
            assert response.status_code == 400, response.text
            assert response.json() == {
                "error": "the body must be a JSON object (the JSON is nested too deeply)"
            }
        table_id = new_table(http, "diamant")
        with seated(http, table_id, ALICE) as socket:
            assert "view" in socket.receive_json()
            socket.send_text("[" * 999 + "]" * 999)  # under the message size limit
            reply = socket.receive_json()["reply"]
            assert reply["ok"] is False and "nested too deeply" in reply["text"]
            socket.send_json({"command": "/status"})  # the socket lives on
            assert socket.receive_json()["reply"]["ok"]
        with http.websocket_connect(f"/ws/{table_id}") as socket:
            socket.send_text("[" * 999 + "]" * 999)  # as the first message
            assert '{"client": TOKEN}' in socket.receive_json()["error"]


def test_the_client_token_is_the_first_message_never_part_of_the_url() -> None:
    with site() as http:
        table_id = new_table(http, "diamant")
        with http.websocket_connect(f"/ws/{table_id}?client={ALICE}") as socket:
            error = socket.receive_json()["error"]
            assert "first message" in error and "not in the URL" in error
        with seated(http, table_id, ALICE) as socket:
            view = socket.receive_json()["view"]
            assert view["phase"] == "waiting"
            socket.send_json({"command": "/join Alice"})
            assert socket.receive_json()["view"]["you"] == 0
        script = (STATIC / "app.js").read_text()
        assert "?client=" not in script and "JSON.stringify({ client })" in script


def test_other_sites_and_other_host_names_are_refused() -> None:
    from starlette.websockets import WebSocketDisconnect

    with site(allowed_origins=["https://friend.example"]) as http:
        table_id = new_table(http, "diamant")
        # a socket opened by another site's page is closed before it is accepted
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            http.websocket_connect(f"/ws/{table_id}", headers={"origin": "http://evil.example"}) as socket,
        ):
            socket.send_json({"client": ALICE})
            socket.receive_json()
        assert closed.value.code == 4403
        for origin in ("http://testserver", "https://friend.example"):
            with http.websocket_connect(f"/ws/{table_id}", headers={"origin": origin}) as socket:
                socket.send_json({"client": ALICE})
                assert "view" in socket.receive_json()
        # posts: JSON only (a form or text/plain post from any page would be a "simple" request)
        body = json.dumps({"game": "diamant"})
        response = http.post("/api/tables", content=body, headers={"content-type": "text/plain"})
        assert response.status_code == 415 and "application/json" in response.json()["error"]
        response = http.post(
            "/api/tables", json={"game": "diamant"}, headers={"origin": "http://evil.example"}
        )
        assert response.status_code == 403 and "evil.example" in response.json()["error"]
        response = http.post("/api/bot/move", json={}, headers={"origin": "http://evil.example"})
        assert response.status_code == 403
        assert http.post(
            "/api/tables", json={"game": "diamant"}, headers={"origin": "http://testserver"}
        ).is_success
        # a host name that is not the site's (DNS rebinding) gets nothing at all
        assert http.get("/api/tables", headers={"host": "evil.example:8000"}).status_code == 400
    with TestClient(create_app(":memory:"), base_url="http://127.0.0.1:8000") as local:
        assert local.get("/api/games").status_code == 200  # loopback names by default
        assert local.get("/", headers={"host": "evil.example"}).status_code == 400


def test_reading_commands_are_answered_to_the_asker_alone_and_not_stored(tmp_path: Path) -> None:
    with site(tmp_path / "tables.sqlite3") as http:
        table_id = new_table(http, "diamant")
        hub = http.app.state.hub  # type: ignore[attr-defined]
        saves: list[int] = []
        hub.tables[table_id].listeners.append(lambda t: saves.append(t.version))
        with Room(http, table_id) as room:
            room.connect(ALICE)
            room.connect(CAROL)
            room.ok(ALICE, "/join Alice")
            version = room.views[ALICE]["version"]
            for _ in range(20):
                room.ok(CAROL, "/status")  # Room.send checks the reply comes alone, Alice gets nothing
                room.ok(CAROL, "/help")
            assert hub.tables[table_id].version == version and saves == [version]
            row = hub.store._db.execute("SELECT version FROM tables WHERE id = ?", (table_id,)).fetchone()
            assert row[0] == version and hub.store.record(table_id)["version"] == version
            logged = hub.store._db.execute("SELECT count(*) FROM commands WHERE table_id = ?", (table_id,))
            assert logged.fetchone()[0] == version


def test_each_client_is_rate_limited() -> None:
    with site(rate=1.0, burst=3) as http:
        table_id = new_table(http, "diamant")
        with seated(http, table_id, ALICE) as alice, seated(http, table_id, BOB) as bob:
            alice.receive_json()
            bob.receive_json()
            replies = []
            for _ in range(5):
                alice.send_json({"command": "/status"})
                replies.append(alice.receive_json()["reply"])
            assert [r["ok"] for r in replies] == [True, True, True, False, False]
            assert replies[-1]["text"] == "too many commands: at most 1 a second; wait a moment"
            bob.send_json({"command": "/status"})  # another client has its own allowance
            assert bob.receive_json()["reply"]["ok"]


def test_finished_tables_leave_memory_and_abandoned_ones_expire(tmp_path: Path) -> None:
    import time

    db = tmp_path / "tables.sqlite3"
    with site(db, expire_after=100.0) as http:
        hub = http.app.state.hub  # type: ignore[attr-defined]
        done = new_table(http, "diamant")
        with seated(http, done, ALICE) as socket:
            socket.receive_json()
            for command in ("/bot random", "/bot random", "/bot random", "/start"):
                socket.send_json({"command": command})
                message = socket.receive_json()
            assert message["view"]["phase"] == "finished"
            assert done in hub.tables  # watched: kept
        assert done not in hub.tables  # the last socket left: archived (in the store only)
        assert http.get(f"/api/tables/{done}").json()["phase"] == "finished"
        assert done not in hub.tables  # reading it back does not keep it either

        waiting, watched = new_table(http, "heckmeck"), new_table(http, "court")
        with seated(http, watched, BOB) as socket:
            socket.receive_json()
            assert hub.sweep(time.monotonic() + 50) == []  # not abandoned long enough
            assert hub.sweep(time.monotonic() + 101) == [waiting]  # a watched table stays
        assert waiting not in hub.tables and watched in hub.tables
        listed = {t["id"] for t in http.get("/api/tables").json()}
        assert listed == {done, watched}
    with site(db) as http:  # expired tables are not resumed at a restart
        assert set(http.app.state.hub.tables) == {watched}  # type: ignore[attr-defined]


def test_the_lobby_is_paged_and_filtered() -> None:
    with site() as http:
        ids = [new_table(http, "heckmeck") for _ in range(5)]
        with seated(http, ids[0], ALICE) as socket:
            socket.receive_json()
            for command in ("/join Alice", "/bot random", "/start"):
                socket.send_json({"command": command})
                socket.receive_json()
        assert len(http.get("/api/tables").json()) == 5
        page1 = http.get("/api/tables?limit=2").json()
        page2 = http.get("/api/tables?limit=2&offset=2").json()
        page3 = http.get("/api/tables?limit=2&offset=4").json()
        assert [len(p) for p in (page1, page2, page3)] == [2, 2, 1]
        assert {t["id"] for t in page1 + page2 + page3} == set(ids)
        assert [t["id"] for t in http.get("/api/tables?phase=playing").json()] == [ids[0]]
        assert {t["id"] for t in http.get("/api/tables?phase=open").json()} == set(ids[1:])
        assert http.get("/api/tables?phase=finished").json() == []
        for query, message in [
            ("phase=closed", "phase must be one of open, waiting, playing, finished"),
            ("limit=0", "limit must be a whole number from 1 to 200"),
            ("limit=1000", "limit must be"),
            ("offset=-1", "offset must be a whole number"),
        ]:
            response = http.get(f"/api/tables?{query}")
            assert response.status_code == 400 and message in response.json()["error"], query


def test_sockets_an_address_opens_are_limited() -> None:
    from starlette.websockets import WebSocketDisconnect

    with site(connect_rate=2) as http:
        table_id = new_table(http, "diamant")
        for token in (ALICE, BOB):
            with seated(http, table_id, token) as socket:
                assert "view" in socket.receive_json()
        with http.websocket_connect(f"/ws/{table_id}") as socket:
            refused = socket.receive_json()
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
        assert refused == {
            "error": "too many new connections: at most 2 a minute from one address; wait a moment"
        }
        assert closed.value.code == 4429


def test_table_creation_is_limited() -> None:
    with site(create_rate=3) as http:
        for _ in range(3):
            new_table(http, "diamant")
        response = http.post("/api/tables", json={"game": "diamant"})
        assert response.status_code == 429 and "at most 3 a minute" in response.json()["error"]
    with site(max_open_tables=2) as http:
        for _ in range(2):
            new_table(http, "diamant")
        response = http.post("/api/tables", json={"game": "diamant"})
        assert response.status_code == 429 and "2 tables are waiting for players" in response.json()["error"]


@pytest.mark.parametrize(
    "path", ["/", "/static/app.js", "/static/style.css", "/static/table.html", "/api/games"]
)
def test_every_response_has_the_security_headers(path: str) -> None:
    with site() as http:
        response = http.get(path)
        assert response.status_code == 200
        for name, value in server.PAGE_HEADERS.items():
            assert response.headers[name] == value, (path, name)
