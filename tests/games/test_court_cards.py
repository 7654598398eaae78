"""To Court the King's card table: it is consistent, the docs are made from it, and
random games play exactly as they did when recorded.

The golden fingerprints below were recorded with the rules written as ``card ==``
branches per card, before they were read from the card table: any change of a legal
move, a state or an observation in these games changes a fingerprint.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np
import pytest

from tablezoo.games import court, make
from tablezoo.games.core import CHANCE, TERMINAL
from tablezoo.games.court import (
    ABILITY,
    ADD_PIPS,
    BRING_IN,
    BRING_IN_DIE,
    CARDS,
    DIE,
    DONE,
    EXTRA_DICE,
    KINDS,
    LAST_FACE,
    MOVE_PIPS,
    NO_ABILITY,
    PIPS,
    SHARE_PIPS,
    TAKE,
    TAKEABLE,
    USE,
    VALUE,
    Cost,
    card_table,
    faces,
    max_dice,
)

# --------------------------------------------------------------------------- golden games

SEEDS = (0, 1, 2, 3)
GOLDEN: dict[tuple[int, int], tuple[int, str]] = {
    (2, 0): (5851, "001a0e842ec569de731b32cc67fc00083b750f779f6931b543fd17ecfac0cba6"),
    (2, 1): (5030, "bee4e62decdf7a3228c1ef565c2a61c984de0f2a299a03534dae1b1c8400b267"),
    (2, 2): (5610, "3729d77d35ec62f40426ab4ec064399b4003efdb0cfad25cd7eefd987844ef19"),
    (2, 3): (4419, "6f359d685e816ee99e61610cb846ca5ff712317126f79a9216072a911f283c90"),
    (3, 0): (3430, "8137ceec382a806db2dea9e5b2954350fb84ecebcdc7a45806814bc738aa0497"),
    (3, 1): (4263, "8e93af6940adbf5af966ff1f4ad0fdf50e61a2375605d5509441bbf33993326a"),
    (3, 2): (6683, "d25f131a324448af54dc8e98af77323b7317b672f37acc6f92c978b0fec69be8"),
    (3, 3): (6249, "448d89267cc6a5b1c58f0b2345438b1ef2cddbbcb5437c7b1516ab6754e12b3a"),
    (4, 0): (12648, "0cd9cf037f9050499f5850262232ceb5d8a67661516c715af3b57b645f5f20e3"),
    (4, 1): (2259, "d92a6a23d38341659e945c4525947d759e181338f941539da5ff04ecc2d35c64"),
    (4, 2): (3043, "c4e9b5f7db3f0c023ba8532135b389c8265938f0862f233b9c360e0e81b61d01"),
    (4, 3): (1246, "cff044ec06f601ab5d321bae6efe3a794946e05963757bb557915fcf48cc9260"),
    (5, 0): (18339, "3add85537a35f34294c35f8d3ce07dee81512d538c788ca66f2d7c2f61dc17ae"),
    (5, 1): (8002, "23c523f570c9994a5dea9800c15fb0b9f1c02d25bc9409690bb9a29c931802ec"),
    (5, 2): (6979, "06108f1195e488fb93b4c580a39e2f01cdaf589b969852a8ea5d062e5efba50e"),
    (5, 3): (7702, "332c13fe1b0c238855f805124c38dfbd3730ceb89de5ad121d44ffd11b23428b"),
}
"""(seats, seed): (steps, SHA-256 of the trajectory), recorded with the old rules."""


def trajectory(seats: int, seed: int) -> tuple[int, str, set[int], set[str]]:
    """Play one random game and fingerprint everything a seat or a log could see.

    Every step adds to the hash: the mover, the state as JSON, every seat's
    observation, and either the legal actions and the one chosen, or the chance
    outcome; at the end the scores and the winners. Returns the number of steps,
    the hex digest, the actions played and the phases seen.
    """
    game = make("court", seats)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    digest = hashlib.sha256()
    played: set[int] = set()
    phases: set[str] = set()
    steps = 0
    while True:
        mover = game.to_move(state)
        digest.update(f"|{mover}|".encode())
        digest.update(game.to_json(state).encode())
        for seat in range(seats):
            digest.update(game.observe(state, seat).tobytes())
        phases.add(state.phase)
        if mover == TERMINAL:
            break
        if mover == CHANCE:
            outcome = game.step_chance(state, rng)
            digest.update(repr(list(outcome)).encode())
        else:
            legal = game.legal_actions(state)
            action = legal[int(rng.integers(len(legal)))]
            digest.update(repr(legal).encode() + b"->" + str(action).encode())
            played.add(action)
            game.apply(state, action)
        steps += 1
    digest.update(repr((game.scores(state), game.winners(state))).encode())
    return steps, digest.hexdigest(), played, phases


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_random_games_play_exactly_as_before_the_card_table(seats: int) -> None:
    played: set[int] = set()
    phases: set[str] = set()
    for seed in SEEDS:
        steps, digest, actions, seen = trajectory(seats, seed)
        assert (steps, digest) == GOLDEN[seats, seed], f"{seats} seats, seed {seed}"
        played |= actions
        phases |= seen
    # the fingerprints are worth something only if the games use the cards and reach the end
    assert {USE + i for i in range(len(ABILITY))} <= played
    assert {DONE, *range(DIE, DIE + 6), *range(VALUE, VALUE + 6), *range(PIPS, PIPS + 3)} <= played
    assert TAKE + court.KING in played
    assert phases == {*court.PHASES, court.START, court.ROLLING, court.OVER}


# --------------------------------------------------------------------------- the table


def test_cards_are_listed_in_kind_order() -> None:
    assert [card.kind for card in CARDS] == list(range(20))
    assert KINDS[0] == "fool" and KINDS[-1] == "queen"


def test_the_docstring_card_table_is_made_from_the_cards() -> None:
    doc = court.__doc__ or ""
    assert card_table() in doc
    assert card_table().count("\n") == len(CARDS) + 1
    order = re.search(r"The ``use`` actions in order: ([a-z, \n]+)\.", doc)
    assert order is not None
    assert re.split(r",\s+", order.group(1)) == [KINDS[kind] for kind in ABILITY]


def test_names_the_bots_and_observations_read_are_the_same_as_before_the_table() -> None:
    assert ABILITY == (0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 19)
    assert list(TAKEABLE) == list(range(19))
    assert BRING_IN == {5: 0, 6: 1, 7: 2, 10: 3, 13: 4, 14: 5}
    assert EXTRA_DICE == (0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 2, 0, 1)
    assert [max_dice(n) for n in range(2, 6)] == [13 + n for n in range(2, 6)]


def test_each_ability_has_the_fields_its_effect_needs() -> None:
    for card in CARDS:
        name = card.command
        assert set(card.faces) <= set(range(6)) and set(card.brings_in) <= set(range(6)), name
        assert (card.effect == NO_ABILITY) == (card.kind not in ABILITY), name
        assert (card.effect == BRING_IN_DIE) == bool(card.brings_in), name
        assert bool(card.pips) == (card.effect in (ADD_PIPS, MOVE_PIPS)), name
        assert bool(card.targets) == (card.effect == MOVE_PIPS), name
        if card.effect == ADD_PIPS:  # exactly the dice that stay within 6 with the fewest pips
            assert card.faces == range(LAST_FACE + 1 - card.pips[0]), name
            assert card.most_dice == 1 or len(card.pips) == 1, name  # several dice: no pips to choose
        if card.effect == MOVE_PIPS:  # from a die that can give a pip to one that can take one
            assert card.faces == faces(2, 6) and card.targets == faces(1, 5), name
        if card.effect == SHARE_PIPS:
            assert card.fewest_dice >= 2 and card.most_dice is not None, name
        assert card.fewest_dice <= (card.most_dice or 99), name


def test_a_cost_with_several_conditions_needs_them_all_and_says_so() -> None:
    cost = Cost(of_a_kind=4, pip_total=20)
    assert cost.text == "four of a kind and pip total >= 20"
    assert cost.met_by([0, 0, 0, 0, 4, 0])  # four 5s: 20 pips
    assert not cost.met_by([0, 0, 0, 4, 0, 0])  # four 4s: 16 pips
    assert not cost.met_by([0, 0, 0, 0, 3, 2])  # 27 pips, no four of a kind
    assert Cost().met_by([0] * 6) and Cost().text == "anything"
    assert not Cost(bought=False, condition="never").met_by([0, 0, 0, 0, 0, 9])
    assert Cost(only_faces=(0, 5)).text == "only 1, 6"
