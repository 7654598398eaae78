"""Run every scenario in tests/scenarios (see its README for the format)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tablezoo.games import GAMES, make
from tablezoo.games.core import CHANCE, TERMINAL, TablezooError

ROOT = Path(__file__).resolve().parent.parent / "scenarios"
FILES = sorted(ROOT.glob("*/*.json"))


def run_scenario(data: dict[str, Any]) -> None:
    game = make(data["game"], data["seats"], **data.get("options", {}))
    state = game.initial_state()
    if "setup" in data:
        state = game.replace(state, **data["setup"])
    for i, step in enumerate(data["steps"]):
        where = f"step {i} {step}"
        if "chance" in step:
            game.apply_chance(state, step["chance"])
        elif "move" in step and "error" in step:
            before = game.to_json(state)
            with pytest.raises(TablezooError, match=step["error"]):
                game.apply(state, game.parse_move(state, step["move"]))
            assert game.to_json(state) == before, where
        elif "move" in step:
            game.apply(state, game.parse_move(state, step["move"]))
        elif "to_move" in step:
            names = {CHANCE: "chance", TERMINAL: "terminal"}
            mover = game.to_move(state)
            assert names.get(mover, mover) == step["to_move"], where
        elif "legal" in step:
            assert [game.command(a) for a in game.legal_actions(state)] == step["legal"], where
        elif "view" in step:
            view = game.view(state, step.get("as"))
            for key, value in step["view"].items():
                assert view[key] == value, f"{where}: view[{key!r}] is {view[key]!r}"
        elif "state" in step:
            for key, value in step["state"].items():
                assert getattr(state, key) == value, f"{where}: {key} is {getattr(state, key)!r}"
        elif "scores" in step:
            assert game.scores(state) == step["scores"], where
        elif "winners" in step:
            assert game.winners(state) == step["winners"], where
        elif "note" in step:
            pass  # an explanation for people
        else:
            raise AssertionError(f"unknown scenario step: {step}")


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario(path: Path) -> None:
    run_scenario(json.loads(path.read_text()))


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_has_its_rulebook_examples(name: str) -> None:
    assert len(list((ROOT / name).glob("*.json"))) >= 3
