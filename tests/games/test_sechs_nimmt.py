"""6 nimmt!: every rule of the spec in tablezoo.games.sechs_nimmt, each option alone and combined,
hidden information, errors, and properties over many random games."""

from __future__ import annotations

import itertools
import json
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablezoo.envs import sechs_nimmt_v0
from tablezoo.games import make
from tablezoo.games.core import CHANCE, TERMINAL, CommandError, Game, IllegalActionError, OutcomeError
from tablezoo.games.sechs_nimmt import (
    CHOOSE,
    DRAFT,
    HEADS,
    ROW,
    ROW_MAX,
    ROWS,
    deck_size,
    heads,
    target,
)
from tests.conftest import random_playout

SEEDS = st.integers(0, 2**32 - 1)
OPTION_COMBOS = [
    dict(zip(("tactic", "profi", "logic"), values, strict=True))
    for values in itertools.product((False, True), repeat=3)
]
COMBO_IDS = ["+".join(k for k, v in c.items() if v) or "basic" for c in OPTION_COMBOS]


def prepared(game: Game[Any], **fields: Any) -> Any:
    """A state in the card choice of a round, with the given fields replaced."""
    n = game.num_seats
    base = {
        "phase": CHOOSE,
        "turn": 0,
        "pool": [],
        "hands": [[] for _ in range(n)],
        "rows": [[1], [2], [3], [4]],
    }
    return game.replace(game.initial_state(), **{**base, **fields})


def play_trick(game: Game[Any], state: Any, cards: list[int]) -> None:
    """Every seat, in seat order, chooses the given card."""
    for seat, card in enumerate(cards):
        assert game.to_move(state) == seat
        game.apply(state, game.parse_command(f"play {card}"))


def dealt(game: Game[Any], seed: int = 0) -> Any:
    state = game.initial_state()
    game.advance(state, np.random.default_rng(seed))
    return state


def check_invariants(game: Game[Any], state: Any) -> None:
    """Cards are conserved and the bookkeeping agrees with them."""
    n, d = game.num_seats, game.deck
    if state.phase not in (CHOOSE, ROW, DRAFT):
        return
    held = [c for h in state.hands for c in h]
    table = [c for r in state.rows for c in r]
    taken = [c for p in state.piles for c in p]
    pending = [state.trick[s] for s in state.pending]
    cards = held + table + taken + pending + state.pool
    assert len(cards) == len(set(cards)), "a card is in two places"
    assert all(1 <= c <= d for c in cards)
    assert len(cards) == 10 * n + 4, "cards of the round lost or added"
    if game.options["tactic"] or game.options["logic"]:
        assert sorted(cards) == list(range(1, d + 1))
    for seat in range(n):
        assert sum(HEADS[c] for c in state.piles[seat]) == state.round_heads[seat]
        assert state.hands[seat] == sorted(state.hands[seat])
        if state.chosen[seat]:
            assert state.phase == CHOOSE and seat < state.turn and state.chosen[seat] in state.hands[seat]
        elif state.phase == CHOOSE:
            assert seat >= state.turn
    if state.phase != DRAFT:
        assert len(state.rows) == 4 and all(1 <= len(r) <= 5 for r in state.rows)
        assert all(r == sorted(r) for r in state.rows)
        if state.phase == CHOOSE:
            assert len({len(h) for h in state.hands}) == 1
    else:
        assert state.rows == [] and sum(map(len, state.hands)) + len(state.pool) == d


# --------------------------------------------------------------------------- components


def test_bull_heads_of_all_104_cards() -> None:
    expected = {}
    for card in range(1, 105):
        if card == 55:
            expected[card] = 7
        elif card in (11, 22, 33, 44, 66, 77, 88, 99):
            expected[card] = 5
        elif card in (10, 20, 30, 40, 50, 60, 70, 80, 90, 100):
            expected[card] = 3
        elif card in (5, 15, 25, 35, 45, 65, 75, 85, 95):
            expected[card] = 2
        else:
            expected[card] = 1
    assert {c: heads(c) for c in range(1, 105)} == expected
    assert list(HEADS[1:]) == [expected[c] for c in range(1, 105)]
    assert sum(HEADS) == 171
    counts = {h: list(HEADS[1:]).count(h) for h in (1, 2, 3, 5, 7)}
    assert counts == {7: 1, 5: 8, 3: 10, 2: 9, 1: 76}


@pytest.mark.parametrize("combo", OPTION_COMBOS, ids=COMBO_IDS)
@pytest.mark.parametrize("seats", [2, 5, 10])
def test_action_table(seats: int, combo: dict[str, bool]) -> None:
    game = make("sechs_nimmt", seats, **combo)
    d = 10 * seats + 4 if combo["tactic"] or combo["logic"] else 104
    assert game.deck == d == deck_size(seats, combo["tactic"], combo["logic"])
    assert game.action_names[0] == "play 1" and game.action_names[d - 1] == f"play {d}"
    if combo["logic"]:
        assert game.num_actions == 2 * d + 4
        assert game.action_names[d] == "pick 1" and game.action_names[2 * d - 1] == f"pick {d}"
    else:
        assert game.num_actions == d + 4
        assert not any(a.startswith("pick") for a in game.action_names)
    assert game.action_names[-4:] == ("row 1", "row 2", "row 3", "row 4")
    assert game.parse_command("take 3") == game.num_actions - 2
    if not combo["logic"]:
        assert game.parse_command("42" if d >= 42 else "7") == (41 if d >= 42 else 6)


def test_metadata() -> None:
    info = make("sechs_nimmt").info
    assert (info.name, info.title, info.min_seats, info.max_seats, info.default_seats) == (
        "sechs_nimmt",
        "6 nimmt!",
        2,
        10,
        4,
    )
    assert info.option_names == ("tactic", "profi", "logic") and info.hidden_information
    assert info.defaults() == {"tactic": False, "profi": False, "logic": False}
    assert make("sechs_nimmt").num_seats == 4


# --------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("tactic", [False, True])
@pytest.mark.parametrize("seats", [2, 4, 10])
def test_the_deal_is_one_chance_node(seats: int, tactic: bool) -> None:
    game = make("sechs_nimmt", seats, tactic=tactic)
    state = game.initial_state()
    assert game.to_move(state) == CHANCE and game.legal_actions(state) == []
    with pytest.raises(NotImplementedError):
        game.chance_outcomes(state)
    outcome = game.sample_chance(state, np.random.default_rng(seats))
    json.dumps(outcome)
    assert game.check_outcome(state, outcome) == outcome
    hands, rows = outcome["hands"], outcome["rows"]
    assert len(hands) == seats and all(len(h) == 10 and h == sorted(h) for h in hands)
    cards = [c for h in hands for c in h] + rows
    assert len(rows) == 4 and len(set(cards)) == 10 * seats + 4
    if tactic:
        assert sorted(cards) == list(range(1, 10 * seats + 5))
    else:
        assert max(cards) <= 104
    game.apply_chance(state, outcome)
    assert game.to_move(state) == 0 and state.rows == [[c] for c in rows]
    assert game.legal_actions(state) == [c - 1 for c in hands[0]]


def test_deals_differ_and_are_uniform_enough() -> None:
    game = make("sechs_nimmt", 4)
    rng = np.random.default_rng(1)
    state = game.initial_state()
    counts = np.zeros(105)
    for _ in range(400):
        out = game.sample_chance(state, rng)
        for c in out["rows"]:
            counts[c] += 1
    # 1600 row cards over 104 cards: every card appears, none wildly often
    assert counts[1:].min() > 0 and counts[1:].max() < 45


HANDS = [list(range(10 * s + 1, 10 * s + 11)) for s in range(4)]


@pytest.mark.parametrize(
    ("outcome", "message"),
    [
        ("41 42 43", "a deal is"),
        ({"hands": [], "cards": []}, "a deal is"),
        ({"hands": [[1] * 10] * 3, "rows": [1, 2, 3, 4]}, "needs 4 hands"),
        ({"hands": "x", "rows": [1, 2, 3, 4]}, "needs 4 hands"),
        ({"hands": HANDS, "rows": [101, 102, 103]}, "needs 4 row cards"),
        ({"hands": [h[:9] for h in HANDS], "rows": [101, 102, 103, 104]}, "hand 0 must be a list of 10"),
        ({"hands": HANDS, "rows": [101, 102, 103, 105]}, "card 105 is not in the deck"),
        ({"hands": HANDS, "rows": [101, 102, 103, 0]}, "cards are 1..104"),
        ({"hands": HANDS, "rows": [101, 102, 103, True]}, "not in the deck"),
        ({"hands": HANDS, "rows": [101, 102, 103, "7"]}, "not in the deck"),
        ({"hands": HANDS, "rows": [101, 102, 103, 40]}, "card 40 is dealt twice"),
    ],
)
def test_malformed_deals_are_refused(outcome: Any, message: str) -> None:
    game = make("sechs_nimmt", 4)
    state = game.initial_state()
    before = game.to_json(state)
    with pytest.raises(OutcomeError, match=message):
        game.apply_chance(state, outcome)
    assert game.to_json(state) == before


def test_deal_outside_the_tactic_deck_is_refused() -> None:
    game = make("sechs_nimmt", 2, tactic=True)
    state = game.initial_state()
    deal = {"hands": [list(range(1, 11)), list(range(11, 21))], "rows": [21, 22, 23, 25]}
    with pytest.raises(OutcomeError, match=r"card 25 is not in the deck in use: cards are 1..24"):
        game.apply_chance(state, deal)
    deal["rows"] = [24, 21, 23, np.int64(22)]
    deal["hands"][0] = list(reversed(deal["hands"][0]))
    game.apply_chance(state, deal)
    assert state.rows == [[24], [21], [23], [22]], "rows keep the order the deal gives"
    assert state.hands[0] == list(range(1, 11)) and type(state.rows[3][0]) is int
    assert game.from_json(game.to_json(state)) == state


def test_forced_outcome_when_no_chance_is_due() -> None:
    game = make("sechs_nimmt", 3)
    state = dealt(game)
    with pytest.raises(OutcomeError, match="no chance outcome is due"):
        game.apply_chance(state, game.sample_chance(state, np.random.default_rng(0)))
    logic = make("sechs_nimmt", 3, logic=True)
    state = logic.initial_state()
    assert logic.to_move(state) == 0, "logic has no deal"
    with pytest.raises(OutcomeError, match="no chance outcome is due"):
        logic.apply_chance(state, {"hands": [], "rows": []})


# --------------------------------------------------------------------------- a trick


def test_cards_are_chosen_seat_by_seat_and_revealed_together() -> None:
    game = make("sechs_nimmt", 3)
    state = prepared(game, hands=[[50, 60], [51, 61], [52, 62]], rows=[[10], [20], [30], [40]])
    game.apply(state, game.parse_command("play 60"))
    assert state.chosen == [60, 0, 0] and state.rows == [[10], [20], [30], [40]]
    assert game.to_move(state) == 1 and state.hands[0] == [50, 60], "kept in hand until the reveal"
    game.apply(state, game.parse_command("play 51"))
    assert game.to_move(state) == 2 and state.rows == [[10], [20], [30], [40]]
    game.apply(state, game.parse_command("play 62"))
    # revealed together and placed lowest first: 51, 60, 62 all after 40
    assert state.rows == [[10], [20], [30], [40, 51, 60, 62]]
    assert state.hands == [[50], [61], [52]] and state.chosen == [0, 0, 0]
    assert state.trick == [60, 51, 62] and game.to_move(state) == 0


def test_a_card_goes_after_the_highest_last_card_below_it() -> None:
    game = make("sechs_nimmt", 2)
    state = prepared(game, hands=[sorted(h) for h in ([33, 1], [19, 2])], rows=[[5], [30], [18], [25]])
    play_trick(game, state, [33, 19])
    assert state.rows == [[5], [30, 33], [18, 19], [25]]
    assert target([[5], [30], [18], [25]], 26, False) == 3
    assert target([[5], [30], [18], [25]], 4, False) == -1


def test_the_sixth_card_takes_the_five() -> None:
    game = make("sechs_nimmt", 2)
    state = prepared(game, hands=[[56, 57], [1, 2]], rows=[[50, 51, 52, 53, 55], [10], [20], [30]])
    # 1 is too low: seat 1 chooses first (lowest card), then 56 makes a sixth card
    play_trick(game, state, [56, 1])
    assert game.to_move(state) == 1
    game.apply(state, game.parse_command("row 4"))
    assert state.rows == [[56], [10], [20], [1]]
    assert state.round_heads == [3 + 1 + 1 + 1 + 7, 3] and game.scores(state) == [-13, -3]
    assert state.piles == [[50, 51, 52, 53, 55], [30]]
    assert "seat 0 took row 1 (13 heads) with 56" in state.last


def test_a_too_low_card_lets_its_owner_choose_any_row_after_seeing_the_trick() -> None:
    game = make("sechs_nimmt", 3)
    rows = [[10, 11, 12, 13, 14], [20], [30], [40, 55]]
    state = prepared(game, hands=[[5, 6], [15, 16], [41, 42]], rows=rows)
    play_trick(game, state, [5, 15, 41])
    assert game.to_move(state) == 0 and state.phase == ROW
    assert [game.command(a) for a in game.legal_actions(state)] == ["row 1", "row 2", "row 3", "row 4"]
    # what the owner sees when choosing: every revealed card of the trick
    view = game.view(state, 0)
    assert view["trick"] == [5, 15, 41] and view["to_place"] == [5, 15, 41]
    assert view["placing"] == {"seat": 0, "card": 5}
    fields = game.observation_spec.unpack(game.observe(state, 0))
    assert np.flatnonzero(fields["trick"]).tolist() == [4, 14, 40]
    assert fields["placing"][0] == 5 and fields["phase"].tolist() == [0, 1, 0]
    # refused: another card, a draft pick, a row that does not exist
    for word in ("play 6", "pick 5", "row 5"):
        before = game.to_json(state)
        with pytest.raises((IllegalActionError, CommandError)):
            game.apply(state, game.parse_move(state, word))
        assert game.to_json(state) == before
    # not the cheapest row (row 2, 3 heads): row 1 (11 heads); 15 then follows 5, and
    # 41 is below 55, the last card of row 4: it goes after 30
    game.apply(state, game.parse_command("row 1"))
    assert state.rows == [[5, 15], [20], [30, 41], [40, 55]]
    assert state.round_heads == [11, 0, 0] and game.to_move(state) == 0


def test_row_choice_happens_when_the_card_is_placed_not_before() -> None:
    # seat 1's 3 is placed after seat 0's 2 changed the rows: 2 was too low too
    game = make("sechs_nimmt", 2)
    state = prepared(game, hands=[[2, 90], [3, 91]], rows=[[10], [20], [30], [40]])
    play_trick(game, state, [2, 3])
    assert game.to_move(state) == 0 and game.view(state, 1)["placing"] == {"seat": 0, "card": 2}
    game.apply(state, game.parse_command("row 2"))
    # 3 now fits after 2: no second row choice
    assert state.rows == [[10], [2, 3], [30], [40]] and game.to_move(state) == 0
    assert state.round_heads == [3, 0]


def test_illegal_commands_name_the_legal_moves_and_change_nothing() -> None:
    game = make("sechs_nimmt", 4)
    state = dealt(game, 3)
    before = game.to_json(state)
    hand = state.hands[0]
    missing = next(c for c in range(1, 105) if c not in hand)
    with pytest.raises(
        IllegalActionError,
        match=f"'play {missing}' is not legal for seat 0 now; legal moves: play {hand[0]} ",
    ):
        game.apply(state, game.parse_command(f"play {missing}"))
    with pytest.raises(IllegalActionError, match="legal moves: play"):
        game.parse_move(state, "row 2")
    with pytest.raises(CommandError, match="moves start with: play, row"):
        game.parse_command("pick 3")
    with pytest.raises(CommandError, match="not a move"):
        game.parse_command("play 105")
    with pytest.raises(IllegalActionError, match="out of range"):
        game.command(game.num_actions)
    assert game.to_json(state) == before  # fmt: skip


# --------------------------------------------------------------------------- rounds and the end


def test_round_end_adds_up_and_deals_again() -> None:
    game = make("sechs_nimmt", 2)
    state = prepared(
        game,
        hands=[[60], [70]],
        rows=[[10, 11, 12, 13, 14], [20], [30], [40]],
        piles=[[55], []],
        round_heads=[7, 0],
        totals=[30, 58],
        history=[[30, 58]],
    )
    play_trick(game, state, [60, 70])
    assert game.to_move(state) == CHANCE and state.round == 2
    assert state.totals == [37, 58] and state.round_heads == [0, 0] and state.piles == [[], []]
    assert state.history == [[30, 58], [7, 0]] and game.scores(state) == [-37, -58]
    assert state.rows == [] and state.hands == [[], []]
    game.advance(state, np.random.default_rng(0))
    assert game.to_move(state) == 0 and all(len(h) == 10 for h in state.hands)


@pytest.mark.parametrize(("total", "over"), [(65, False), (66, True), (80, True)])
def test_the_game_ends_when_a_total_reaches_66(total: int, over: bool) -> None:
    game = make("sechs_nimmt", 3)
    # seat 2 takes row 1 (27 heads) with the sixth card; its total before the round is below
    # 66, as in any game not over (the native core refuses a state that says otherwise)
    state = prepared(
        game,
        hands=[[90], [91], [100]],
        rows=[[55, 66, 77, 88, 99], [20], [30], [40]],
        totals=[10, 10, total - 27],
    )
    play_trick(game, state, [90, 91, 100])
    assert state.totals == [10, 10, total]
    assert game.is_terminal(state) is over
    if over:
        assert game.winners(state) == [0, 1], "equal lowest totals share the win"
        assert game.returns(state) == [0.5, 0.5, -1.0]
        assert game.legal_actions(state) == []
        assert "the game ends" in state.last and "winner(s): seat 0, seat 1" in game.render(state)
    else:
        assert game.to_move(state) == CHANCE


def test_a_single_winner() -> None:
    game = make("sechs_nimmt", 2)
    # a total of 66 or more only once the game is over (the native core checks it)
    state = prepared(
        game, hands=[[90], [91]], rows=[[1, 2, 3, 4, 5], [20], [30], [40]], totals=[70, 12], phase="over"
    )
    assert game.winners(state) == [1] and game.returns(state) == [-1.0, 1.0]


# --------------------------------------------------------------------------- tactic


def test_tactic_uses_every_card_of_a_smaller_deck() -> None:
    game = make("sechs_nimmt", 3, tactic=True)
    assert game.deck == 34 and game.num_actions == 38
    state, _ = random_playout(game, 11, visit=lambda s: check_invariants(game, s))
    assert game.is_terminal(state)


# --------------------------------------------------------------------------- profi


def test_profi_nearest_end_and_right_end_on_a_tie() -> None:
    rows = [[40, 50], [70, 75], [10, 20], [30, 35]]
    assert target(rows, 65, True) == 4 + 1, "site example: left of 70 (5) beats right of 50 (15)"
    assert target(rows, 60, True) == 0, "site example: right of 50 ties left of 70: the right end"
    assert target(rows, 25, True) == 2, "right of 20 ties left of 30: the right end"
    assert target(rows, 65, False) == 0, "basic rule: always a right end"
    assert target(rows, 5, True) == 4 + 2 and target(rows, 5, False) == -1
    assert target([[10, 60], [20, 70], [30, 80], [40, 90]], 50, True) == -1


def test_profi_left_end_sixth_card_takes_the_other_five() -> None:
    game = make("sechs_nimmt", 2, profi=True)
    state = prepared(game, hands=[[63, 99], [3, 98]], rows=[[64, 70, 75, 80, 85], [20], [30], [40]])
    play_trick(game, state, [63, 3])
    # 3 is too low for any right end but goes left of 20 (17); 63 left of 64 (1) takes five
    assert state.rows == [[63], [3, 20], [30], [40]]
    assert state.round_heads == [1 + 3 + 2 + 3 + 2, 0]
    assert state.piles[0] == [64, 70, 75, 80, 85]


def test_profi_no_candidate_for_a_card_that_is_not_the_lowest() -> None:
    game = make("sechs_nimmt", 3, profi=True)
    rows = [[10, 60], [20, 70], [30, 80], [40, 90]]
    state = prepared(game, hands=[[5, 6], [50, 51], [95, 96]], rows=[list(r) for r in rows])
    play_trick(game, state, [5, 50, 95])
    assert game.to_move(state) == 1 and state.phase == ROW
    assert state.rows[0] == [5, 10, 60], "the lower card 5 was placed first, at a left end"
    game.apply(state, game.parse_command("row 3"))
    assert state.rows == [[5, 10, 60], [20, 70], [50], [40, 90, 95]]
    assert state.round_heads == [0, 3 + 3, 0]


def test_basic_rule_never_uses_the_left_end() -> None:
    game = make("sechs_nimmt", 2)
    state = prepared(game, hands=[[65, 99], [3, 98]], rows=[[40, 50], [70, 75], [10, 20], [30, 35]])
    play_trick(game, state, [65, 98])
    assert state.rows == [[40, 50, 65], [70, 75, 98], [10, 20], [30, 35]]


@pytest.mark.parametrize("profi", [False, True])
def test_left_end_placements_happen_only_under_profi(profi: bool) -> None:
    game = make("sechs_nimmt", 5, profi=profi)
    rng = np.random.default_rng(5)
    state = game.initial_state()
    left_placements = 0
    while not game.is_terminal(state):
        check_invariants(game, state)
        if game.to_move(state) == CHANCE:
            game.step_chance(state, rng)
            continue
        before = [list(r) for r in state.rows]
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
        if state.rows:
            left_placements += sum(new[1:] == old for old, new in zip(before, state.rows, strict=True))
    assert (left_placements > 0) is profi


# --------------------------------------------------------------------------- logic


def draft_states(seats: int, seed: int, **options: bool) -> list[Any]:
    """Copies of the states of a random ``logic`` game where a seat is to move."""
    game = make("sechs_nimmt", seats, logic=True, **options)
    seen: list[Any] = []
    random_playout(game, seed, visit=lambda s: seen.append(game.clone(s)) if game.to_move(s) >= 0 else None)
    return seen


def test_logic_draft_order_over_several_rounds() -> None:
    game = make("sechs_nimmt", 3, logic=True)
    pickers: dict[int, list[int]] = {}
    first_tricks: dict[int, Any] = {}
    for state in draft_states(3, 4):
        assert game.to_move(state) != CHANCE, "logic has no chance node"
        if state.phase == DRAFT:
            pickers.setdefault(state.round, []).append(state.turn)
        elif state.phase == CHOOSE and all(len(h) == 10 for h in state.hands) and state.turn == 0:
            first_tricks.setdefault(state.round, state)
    assert len(pickers) >= 3, "the game should last several rounds"
    for round_number, order in pickers.items():
        first = (round_number - 1) % 3  # Decision: seat (start + k - 1) mod n, start = seat 0
        assert order == [(first + k) % 3 for k in range(30)] == game.draft_order(round_number)
    for state in first_tricks.values():
        rows = [r[0] for r in state.rows]
        assert all(len(r) == 1 for r in state.rows) and rows == sorted(rows), "the 4 left, ascending"
        held = sorted(c for h in state.hands for c in h)
        assert sorted(held + rows) == list(range(1, 35))


def test_logic_draft_picks_from_the_table() -> None:
    game = make("sechs_nimmt", 2, logic=True)
    state = game.initial_state()
    assert game.legal_actions(state) == list(range(24, 48)), "pick 1..24"
    game.apply(state, game.parse_command("pick 7"))
    assert state.pool == [c for c in range(1, 25) if c != 7] and state.hands == [[7], []]
    assert game.to_move(state) == 1 and 24 + 6 not in game.legal_actions(state)
    with pytest.raises(IllegalActionError, match="legal moves: pick 1 \\(24\\)"):
        game.apply(state, game.parse_command("play 1"))
    fields = game.observation_spec.unpack(game.observe(state, 1))
    assert fields["phase"].tolist() == [0, 0, 1] and fields["to_move"].tolist() == [1, 0]
    assert np.flatnonzero(fields["others_hands"]).tolist() == [6]
    assert np.flatnonzero(fields["pool"]).tolist() == [c - 1 for c in state.pool]


@pytest.mark.parametrize("options", [{}, {"tactic": True}, {"profi": True}, {"tactic": True, "profi": True}])
def test_logic_combined_with_other_options(options: dict[str, bool]) -> None:
    game = make("sechs_nimmt", 4, logic=True, **options)
    assert game.deck == 44 and game.num_actions == 2 * 44 + 4
    state, _ = random_playout(game, 2, visit=lambda s: check_invariants(game, s))
    assert game.is_terminal(state) and len(state.history) >= 1


def test_logic_hands_are_public_but_a_choice_is_not() -> None:
    game = make("sechs_nimmt", 3, logic=True)
    state = next(s for s in draft_states(3, 1) if s.phase == CHOOSE and s.turn == 1)
    assert state.chosen[0]
    view = game.view(state, 1)
    assert view["hands"] == state.hands and view["has_chosen"] == [True, False, False]
    assert view["choice"] is None and game.view(state, 0)["choice"] == state.chosen[0]
    obs = game.observe(state, 1)
    fields = game.observation_spec.unpack(obs)
    # seat 1 sees seat 2 then seat 0 (clockwise), seat 0's chosen card still in its hand
    assert np.flatnonzero(fields["others_hands"][:34]).tolist() == [c - 1 for c in state.hands[2]]
    assert np.flatnonzero(fields["others_hands"][34:]).tolist() == [c - 1 for c in state.hands[0]]
    # another choice by seat 0 looks the same to seat 1 and to a spectator
    other = game.replace(
        state, chosen=[next(c for c in state.hands[0] if c != state.chosen[0]), *state.chosen[1:]]
    )
    assert np.array_equal(game.observe(other, 1), obs) and game.view(other, 1) == view
    assert game.view(other, None) == game.view(state, None)
    assert not np.array_equal(game.observe(other, 0), game.observe(state, 0))
    # determinize redraws only the pending choices
    rng = np.random.default_rng(0)
    draws = [game.determinize(state, 1, rng) for _ in range(20)]
    assert all(d.hands == state.hands and d.rows == state.rows for d in draws)
    assert all(d.chosen[0] in d.hands[0] and d.chosen[1:] == [0, 0] for d in draws)
    assert len({d.chosen[0] for d in draws}) > 1


# --------------------------------------------------------------------------- hidden information


def mid_trick(seats: int = 4, seed: int = 7, **options: bool) -> tuple[Game[Any], Any]:
    """A state of trick 3 where seats 0 and 1 have chosen and seat 2 is to choose."""
    game = make("sechs_nimmt", seats, **options)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    while not (state.phase == CHOOSE and len(state.hands[0]) == 8 and state.turn == 2):
        if game.to_move(state) == CHANCE:
            game.step_chance(state, rng)
        else:
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
    return game, state


@pytest.mark.parametrize("tactic", [False, True])
def test_determinize_really_redraws_hidden_cards(tactic: bool) -> None:
    game, state = mid_trick(tactic=tactic)
    rng = np.random.default_rng(1)
    seat = 2
    unseen = sorted(
        c for c in range(1, game.deck + 1) if c not in state.hands[seat] and c not in game.seen_cards(state)
    )
    draws = [game.determinize(state, seat, rng) for _ in range(10)]
    for d in draws:
        check_invariants(game, d)
        assert d.hands[seat] == state.hands[seat] and d.rows == state.rows and d.piles == state.piles
        assert [len(h) for h in d.hands] == [len(h) for h in state.hands]
        assert d.chosen[0] in d.hands[0] and d.chosen[1] in d.hands[1] and d.chosen[2:] == [0, 0]
        others = sorted(c for s in (0, 1, 3) for c in d.hands[s])
        assert set(others) <= set(unseen)
        if tactic:
            assert others == unseen, "with tactic no card is undealt"
    assert any(d.hands[0] != state.hands[0] for d in draws)
    assert any(d.chosen[1] != state.chosen[1] for d in draws)
    if not tactic:
        # undealt cards come into the others' hands
        dealt_now = {c for s in (0, 1, 3) for c in state.hands[s]}
        assert any({c for s in (0, 1, 3) for c in d.hands[s]} - dealt_now for d in draws)
    # the seat sees the same in every draw
    for d in draws:
        assert np.array_equal(game.observe(d, seat), game.observe(state, seat))
        assert game.view(d, seat) == game.view(state, seat)


def test_changing_what_a_seat_cannot_see_changes_nothing_it_sees() -> None:
    game, state = mid_trick()
    seat = 2
    obs, view, text = game.observe(state, seat), game.view(state, seat), game.render(state, seat)
    spectator = game.view(state, None), game.render(state)
    known = set(state.hands[seat]) | set(game.seen_cards(state))
    undealt = next(c for c in range(1, 105) if c not in known and all(c not in h for h in state.hands))
    changes = []
    # seat 0's chosen card: another card of its hand
    # (copies of the fields: a Python state's lists are its own, which must stay as they are)
    chosen = list(state.chosen)
    chosen[0] = next(c for c in state.hands[0] if c != state.chosen[0])
    changes.append(game.replace(state, chosen=chosen))
    # seats 1 and 3 swap a card (seat 1's chosen card among them)
    hands, chosen = [list(h) for h in state.hands], list(state.chosen)
    x, y = chosen[1], hands[3][0]
    hands[1] = sorted([c for c in hands[1] if c != x] + [y])
    hands[3] = sorted([c for c in hands[3] if c != y] + [x])
    chosen[1] = y
    changes.append(game.replace(state, hands=hands, chosen=chosen))
    # an undealt card replaces one of seat 3's cards
    hands = [list(h) for h in state.hands]
    hands[3] = sorted([*hands[3][1:], undealt])
    changes.append(game.replace(state, hands=hands))
    for changed in changes:
        assert changed != state
        assert np.array_equal(game.observe(changed, seat), obs)
        assert game.view(changed, seat) == view and game.render(changed, seat) == text
        assert (game.view(changed, None), game.render(changed)) == spectator
    # sanity: the owner of the changed cards does see the change
    assert not np.array_equal(game.observe(changes[0], 0), game.observe(state, 0))
    assert game.view(changes[2], 3) != game.view(state, 3)


def test_the_row_choice_shows_the_revealed_cards_to_everyone() -> None:
    game = make("sechs_nimmt", 3)
    state = prepared(game, hands=[[2, 90], [50, 91], [60, 92]], rows=[[10], [20], [30], [40]])
    play_trick(game, state, [2, 50, 60])
    assert game.to_move(state) == 0
    for seat in (0, 1, 2, None):
        view = game.view(state, seat)
        assert view["trick"] == [2, 50, 60] and view["placing"] == {"seat": 0, "card": 2}
    for seat in range(3):
        fields = game.observation_spec.unpack(game.observe(state, seat))
        assert np.flatnonzero(fields["trick"]).tolist() == [1, 49, 59]
        assert np.flatnonzero(fields["seen"]).tolist() == [1, 9, 19, 29, 39, 49, 59]
    # determinize keeps the revealed cards
    other = game.determinize(state, 1, np.random.default_rng(0))
    assert other.trick == state.trick and other.pending == state.pending


# --------------------------------------------------------------------------- observation, view, render


def test_observation_fields() -> None:
    game = make("sechs_nimmt", 4)
    spec = game.observation_spec
    assert spec.size == 8 * 104 + 4 * 4 + 21 == 869
    assert make("sechs_nimmt", 4, logic=True).observation_spec.size == 8 * 44 + 16 + 21 + 4 * 44 == 565
    state = prepared(
        game,
        hands=[[5, 60], [6, 61], [7, 62], [8, 63]],
        rows=[[10, 55], [20], [30, 31, 32], [40]],
        piles=[[], [1, 2], [], [99]],
        round_heads=[0, 2, 0, 5],
        totals=[12, 30, 0, 64],
        chosen=[60, 0, 0, 0],
        turn=1,
    )
    fields = spec.unpack(game.observe(state, 3))
    assert np.flatnonzero(fields["hand"]).tolist() == [7, 62]
    assert not fields["choice"].any()
    assert np.flatnonzero(fields["seen"]).tolist() == sorted(
        c - 1 for c in (10, 55, 20, 30, 31, 32, 40, 1, 2, 99)
    )
    assert fields["row_last"].tolist() == [55, 20, 32, 40]
    assert fields["row_first"].tolist() == [10, 20, 30, 40]
    assert fields["row_count"].tolist() == [2, 1, 3, 1]
    assert fields["row_heads"].tolist() == [10, 3, 5, 3]
    # seat-relative: seat 3 first, then 0, 1, 2
    assert fields["heads_round"].tolist() == [5, 0, 2, 0]
    assert fields["heads_total"].tolist() == [64, 12, 30, 0]
    assert fields["has_chosen"].tolist() == [0, 1, 0, 0]
    assert fields["to_move"].tolist() == [0, 0, 1, 0]
    assert fields["phase"].tolist() == [1, 0, 0]
    assert not fields["trick"].any() and fields["placing"][0] == 0
    assert fields["cards_left"][0] == 2
    # where each hand card would go now: 8 is below every row, 63 joins row 1 (55) 8 above its end
    assert np.flatnonzero(fields["hand_fit"]).tolist() == [7, 62]
    assert fields["hand_fit"][[7, 62]].tolist() == [6, 2]
    assert fields["hand_heads"][[7, 62]].tolist() == [3, 10]  # 8: the fewest heads of a row
    assert fields["hand_gap"][[7, 62]].tolist() == [0, 8]
    assert fields["hand_open"][[7, 62]].tolist() == [0, 7]  # 56..62: none seen, none in the hand
    mine = spec.unpack(game.observe(state, 0))
    assert np.flatnonzero(mine["choice"]).tolist() == [59] and mine["has_chosen"].tolist() == [1, 0, 0, 0]
    assert np.flatnonzero(mine["hand"]).tolist() == [4, 59], "the chosen card stays in hand until the reveal"


def test_view_is_json_and_shows_only_the_own_hand() -> None:
    game, state = mid_trick()
    for seat in (None, 0, 1, 2, 3):
        view = game.view(state, seat)
        json.dumps(view)
        text = json.dumps(view)
        assert view["hands"] is None and view["pool"] is None
        for other in range(4):
            if other != seat:
                assert json.dumps(state.hands[other]) not in text
    assert game.view(state, 2)["hand"] == state.hands[2]
    assert game.view(state, None)["hand"] is None
    assert game.view(state, 2)["legal"] == [f"play {c}" for c in state.hands[2]]
    assert game.view(state, 1)["legal"] == []


def test_render_shows_rows_this_round_over_total_and_own_hand() -> None:
    game = make("sechs_nimmt", 3)
    state = prepared(
        game,
        round=2,
        hands=[[2, 90], [50, 91], [60, 92]],
        rows=[[10, 11], [20], [30], [40]],
        round_heads=[3, 0, 0],
        totals=[12, 7, 20],
        piles=[[100], [], []],
    )
    text = game.render(state)
    assert "row 1 |  10  11   .   .   . |  8 heads" in text
    assert "heads (this round / total):" in text
    assert "seat 0         3 /  12" in text and "*seat 1         0 /   7" in text, text
    assert "your hand" not in text and "90" not in text
    mine = game.render(state, 0)
    assert "seat 0 (you)" in mine and "your hand: 2 90" in mine and "91" not in mine
    game.apply(state, game.parse_command("play 2"))
    assert "your hand: [2] 90" in game.render(state, 0)
    assert "[2]" not in game.render(state, 1) and "seat 0         3 /  12  chose" in game.render(state, 1)
    game.apply(state, game.parse_command("play 50"))
    game.apply(state, game.parse_command("play 60"))
    text = game.render(state, 0)
    assert "seat 0 must take a row for 2" in text and "revealed: seat 0 2, seat 1 50, seat 2 60" in text
    assert "moves: row 1, row 2, row 3, row 4" in text


def test_render_logic_draft() -> None:
    game = make("sechs_nimmt", 2, logic=True)
    state = game.initial_state()
    game.apply(state, game.parse_command("pick 3"))
    text = game.render(state, 1)
    assert "(logic)" in text and "draft: seat 1 to pick" in text and "table: 1 2 4 5" in text
    assert "hand 3" in text, "under logic the other hands are public"


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("combo", OPTION_COMBOS, ids=COMBO_IDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, seats=st.integers(2, 10))
def test_random_games_conserve_cards_and_end(combo: dict[str, bool], seed: int, seats: int) -> None:
    game = make("sechs_nimmt", seats, **combo)
    step = iter(range(10**9))

    def visit(state: Any) -> None:
        check_invariants(game, state)
        legal = game.legal_actions(state)
        assert np.flatnonzero(game.legal_mask(state)).tolist() == legal
        assert legal == sorted(legal) and (len(legal) > 0) == (game.to_move(state) >= 0)
        if next(step) % 5 == 0:
            assert game.from_json(game.to_json(state)) == state
            assert json.loads(json.dumps(game.view(state, 0)))["scores"] == game.scores(state)

    state, _ = random_playout(game, seed, visit=visit)
    assert game.is_terminal(state) and max(state.totals) >= 66
    assert all(t < 66 for t in [sum(h[s] for h in state.history[:-1]) for s in range(seats)])
    assert [sum(h[s] for h in state.history) for s in range(seats)] == state.totals
    assert all(sum(h) <= 171 for h in state.history)
    best = min(state.totals)
    assert game.winners(state) == [s for s in range(seats) if state.totals[s] == best]


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, seats=st.integers(2, 10), tactic=st.booleans(), logic=st.booleans())
def test_determinize_is_consistent(seed: int, seats: int, tactic: bool, logic: bool) -> None:
    game = make("sechs_nimmt", seats, tactic=tactic, logic=logic)
    rng = np.random.default_rng(seed)
    count = iter(range(10**9))

    def visit(state: Any) -> None:
        if next(count) % 11 == 0:
            seat = int(rng.integers(seats))
            other = game.determinize(state, seat, rng)
            check_invariants(game, other)
            assert np.array_equal(game.observe(other, seat), game.observe(state, seat))

    random_playout(game, seed, visit=visit)


# --------------------------------------------------------------------------- the environment


def test_env_options_and_spaces() -> None:
    env = sechs_nimmt_v0.raw_env(
        num_players=3, tactic=True, profi=True, logic=True, reward="score", render_mode="ansi"
    )
    game = env.game
    assert game.options == {"tactic": True, "profi": True, "logic": True} and game.num_seats == 3
    env.reset(seed=3)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert obs["observation"].shape == (game.observation_spec.size,)
    assert obs["action_mask"].shape == (2 * 34 + 4,) and env.metadata["name"] == "sechs_nimmt_v0"
    assert env.observation_space(agent)["observation"].contains(obs["observation"])
    text = env.render()
    assert "seat 0" in text and "row 4 |" in text and "this round / total" in text


def test_score_rewards_are_minus_the_heads_as_taken() -> None:
    env = sechs_nimmt_v0.raw_env(num_players=4, reward="score")
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    paid_during_round = 0
    while not all(env.terminations.values()):
        state = env.game_state
        before = [t + h for t, h in zip(state.totals, state.round_heads, strict=True)]
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        state = env.game_state
        after = [t + h for t, h in zip(state.totals, state.round_heads, strict=True)]
        for seat, agent in enumerate(env.possible_agents):
            assert env.rewards[agent] == before[seat] - after[seat] <= 0
            totals[agent] += env.rewards[agent]
            paid_during_round += env.rewards[agent] < 0
    assert paid_during_round > 0
    assert [totals[a] for a in env.possible_agents] == [-t for t in env.game_state.totals]


@pytest.mark.parametrize(
    ("seats", "options"),
    [(3, {"profi": True}), (2, {"logic": True, "tactic": True}), (7, {"tactic": True, "profi": True})],
)
def test_env_api_and_seed(seats: int, options: dict[str, bool]) -> None:
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(sechs_nimmt_v0.env(num_players=seats, **options), num_cycles=100)
        seed_test(lambda: sechs_nimmt_v0.env(num_players=seats, **options), num_cycles=100)


@pytest.mark.parametrize("profi", [False, True])
def test_hand_fields_say_where_each_card_would_go(profi: bool) -> None:
    # Over random games, the hand_* fields agree with the placement rule the engine plays by.
    game = make("sechs_nimmt", 3, profi=profi)
    rng = np.random.default_rng(4)
    state = game.initial_state()
    checked = 0
    while game.advance(state, rng) != TERMINAL and checked < 300:
        seat = game.to_move(state)
        fields = game.observation_spec.unpack(game.observe(state, seat))
        heads = [sum(HEADS[c] for c in row) for row in state.rows]
        for c in state.hands[seat]:
            t = target(state.rows, c, profi)
            if t < 0:
                expect = (ROW_MAX + 1, min(heads), 0)
            else:
                row = state.rows[t % ROWS]
                expect = (len(row), heads[t % ROWS], c - row[-1] if t < ROWS else row[0] - c)
            got = (fields["hand_fit"][c - 1], fields["hand_heads"][c - 1], fields["hand_gap"][c - 1])
            assert got == expect, (c, state.rows)
            # hand_open: the cards between the row's end and the card, neither held nor seen
            if t < 0:
                between: range = range(0)
            elif t < ROWS:
                between = range(state.rows[t][-1] + 1, c)
            else:
                between = range(c + 1, state.rows[t - ROWS][0])
            unseen = [b for b in between if not fields["hand"][b - 1] and not fields["seen"][b - 1]]
            assert fields["hand_open"][c - 1] == len(unseen), (c, state.rows)
            checked += 1
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    assert checked >= 300
