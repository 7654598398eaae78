"""Bots by name: settings after a colon, and the errors that name what a bot takes."""

from __future__ import annotations

import pytest

from tablezoo.bots.registry import make_bot
from tablezoo.games import make
from tablezoo.games.core import ConfigError


def test_settings_follow_the_name() -> None:
    bot = make_bot("heuristic:samples=96, stop_margin=0.5", make("court", 2))
    assert (bot.samples, bot.stop_margin, bot.king_behind) == (96, 0.5, 3)
    assert bot.name == "heuristic:samples=96, stop_margin=0.5"
    search = make_bot("search:samples=4,model=false", make("sechs_nimmt", 3))
    assert (search.samples, search.model) == (4, False)
    assert make_bot("heuristic:haul=7", make("diamant", 3)).haul == 7


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("heuristic:samples=many", "bot 'heuristic': samples is a whole number (default 24), not 'many'"),
        ("heuristic:seed=3", "takes stop_margin=0.0, samples=24, king_behind=3; not 'seed=3'"),
        ("heuristic:samples", "not 'samples'"),
        ("random:fast=1", "bot 'random' takes no settings; not 'fast=1'"),
        ("search:model=maybe", "model is true or false"),
        ("solver:samples=2", "no bot 'solver' for To Court the King"),
    ],
)
def test_wrong_settings_name_what_the_bot_takes(name: str, error: str) -> None:
    game = make("sechs_nimmt" if name.startswith("search") else "court", 2)
    with pytest.raises(ConfigError, match=error.replace("(", r"\(").replace(")", r"\)")):
        make_bot(name, game)
