"""The SVG drawings of the four games, and the rgb_array pictures made from them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tablezoo.games import GAMES, draw, make
from tablezoo.games.core import CHANCE, TERMINAL

SEATS = {"heckmeck": 3, "sechs_nimmt": 3, "diamant": 4, "court": 3}
NAMES = ["Ann", "<b>Bob</b>", "Cy & Co", "Dee"]
SVG = "{http://www.w3.org/2000/svg}"


def positions(game_name: str, seed: int = 0, every: int = 3) -> list[tuple[object, object]]:
    """(game, state) at every few decisions of a random game, and at its end."""
    game = make(game_name, SEATS[game_name])
    state = game.initial_state()
    rng = np.random.default_rng(seed)
    found = []
    for step in range(100_000):
        mover = game.to_move(state)
        if mover == TERMINAL:
            break
        if mover == CHANCE:
            game.step_chance(state, rng)
            continue
        if step % every == 0:
            found.append(game.clone(state))
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    assert game.is_terminal(state)
    keep = found[:: max(1, len(found) // 40)]  # about 40 positions of the game, and its end
    return [(game, s) for s in [*keep, state]]


@pytest.mark.parametrize("game_name", list(GAMES))
def test_every_drawing_is_svg_with_names_and_the_viewers_legal_pieces_only(game_name: str) -> None:
    clickable_seen = 0
    for game, state in positions(game_name):
        for seat in [None, *range(game.num_seats)]:
            view = game.view(state, seat)
            text = draw.svg(game, view, names=NAMES[: game.num_seats])
            root = ET.fromstring(text)  # well-formed XML: names are escaped
            assert root.tag == f"{SVG}svg" and root.get("viewBox", "").startswith("0 0 800 ")
            assert "<b>" not in text and "&lt;b&gt;Bob&lt;/b&gt;" in text and "Cy &amp; Co" in text
            assert not any(f"seat {s}" in text for s in range(game.num_seats))  # names, not numbers
            pieces = [e for e in root.iter() if e.get("data-command") is not None]
            commands = [e.get("data-command") for e in pieces]
            assert set(commands) <= set(view["legal"]), (commands, view["legal"])
            for piece in pieces:
                assert (
                    piece.get("tabindex") == "0" and piece.get("role") == "button" and piece.get("aria-label")
                )
            if seat is None or view["to_move"] != seat:
                assert commands == []  # only the seat to move gets clickable pieces
            clickable_seen += len(commands)
        if game.is_terminal(state):
            text = draw.svg(game.info.name, game.view(state, None), names=NAMES[: game.num_seats])
            assert "Game over: " in text
            winners = game.winners(state)
            assert all(ET.fromstring(text) is not None for _ in [0])
            assert " and ".join(NAMES[s].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                                for s in winners) in text  # fmt: skip
    assert clickable_seen > 0


def test_the_pieces_a_game_is_played_by() -> None:
    # Each game's own moves appear as clickable pieces where the player would touch them.
    expected = {
        "heckmeck": ("keep ", "take"),
        "sechs_nimmt": ("play ", "row "),
        "diamant": ("go", "camp"),
        "court": ("aside ", "take "),
    }
    for game_name, prefixes in expected.items():
        seen: set[str] = set()
        for seed in range(3):
            for game, state in positions(game_name, seed, every=1):
                mover = game.to_move(state)
                if mover < 0:
                    continue
                root = ET.fromstring(draw.svg(game, game.view(state, mover)))
                seen.update(e.get("data-command", "") for e in root.iter() if e.get("data-command"))
        for prefix in prefixes:
            assert any(c.startswith(prefix) for c in seen), (game_name, prefix, sorted(seen)[:20])


def test_bad_input_is_named() -> None:
    game = make("diamant", 3)
    view = game.view(game.initial_state(), None)
    with pytest.raises(ValueError, match="no drawing for the game 'chess'"):
        draw.svg("chess", view)
    with pytest.raises(ValueError, match="view must be a heckmeck view"):
        draw.svg("heckmeck", view)


@pytest.mark.parametrize("game_name", list(GAMES))
def test_rgb_array_of_each_game_is_a_picture(game_name: str) -> None:
    pytest.importorskip("resvg_py", reason="rgb_array needs the render extra (resvg-py)")
    game, state = positions(game_name)[2]
    picture = draw.rgb_array(draw.svg(game, game.view(state, None)), width=400)
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[1:] == (400, 3)
    assert picture.shape[0] > 100
    colours = np.unique(picture.reshape(-1, 3), axis=0)
    assert len(colours) > 20 and picture.std() > 10  # not blank: drawn pieces and text
    with pytest.raises(ValueError, match="width must be a whole number of pixels from 16 to 4096"):
        draw.rgb_array("<svg/>", width=5)
