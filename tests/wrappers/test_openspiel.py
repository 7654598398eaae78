"""The four games under OpenSpiel's contract: its own random-simulation test, chance odds equal to
the engine's, hidden information kept hidden, and the same game through OpenSpiel as through the
engine, on both cores; and the two OpenSpiel examples as programs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel adapter needs the openspiel extra")

from tablezoo.games import CHANCE, TERMINAL, game_class, make  # noqa: E402
from tablezoo.games.native import available  # noqa: E402
from tablezoo.wrappers import openspiel as ow  # noqa: E402

CORES = ["native", "python"] if available() else ["python"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def seat_counts(name: str) -> list[int]:
    """The smallest, 4 and the largest seat count of a game."""
    info = game_class(name).info
    return sorted({info.min_seats, 4, info.max_seats})


SIM_CASES = [(name, n) for name in ow.GAME_NAMES for n in seat_counts(name)]


def load(name: str, players: int, **params: Any) -> Any:
    text = ",".join(f"{k}={v}" for k, v in {"players": players, **params}.items())
    return pyspiel.load_game(f"tablezoo_{name}({text})")


def play_chance(state: Any, rng: np.random.Generator) -> None:
    actions, odds = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(int(rng.choice(actions, p=odds)))


def step_random(state: Any, rng: np.random.Generator) -> None:
    if state.is_chance_node():
        play_chance(state, rng)
    else:
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])


# --------------------------------------------------------------------------- OpenSpiel's own test


@pytest.mark.parametrize(("name", "players"), SIM_CASES)
def test_random_sim_test_with_serialisation(name: str, players: int) -> None:
    # To Court the King's random games run thousands of decisions: one game, cut short at 1,500
    # steps (a draw) at its larger tables, and one played to its end at two seats
    params: dict[str, Any] = {"max_moves": 1500} if name == "court" and players > 2 else {}
    game = load(name, players, core=CORES[0], **params)
    pyspiel.random_sim_test(game, num_sims=1 if name == "court" else 2, serialize=True, verbose=False)


@pytest.mark.parametrize(
    "spec",
    [
        "sechs_nimmt(players=3,logic=True)",
        "sechs_nimmt(players=5,profi=True,tactic=True)",
        "heckmeck(players=3,quick=True)",
    ],
)
def test_random_sim_test_with_options(spec: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(f"tablezoo_{spec}"), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", list(ow.GAME_NAMES))
def test_random_sim_test_on_the_python_reference(name: str) -> None:
    params: dict[str, Any] = {"max_moves": 1500} if name == "court" else {}
    game = load(name, 4 if name != "court" else 3, core="python", **params)
    assert game.engine.core == "python"
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


# --------------------------------------------------------------------------- what the games declare


def test_the_game_types_say_what_is_true() -> None:
    kind = pyspiel.GameType
    for name, hidden in [("heckmeck", False), ("sechs_nimmt", True), ("diamant", True), ("court", False)]:
        game = load(name, 4)
        declared = game.get_type()
        assert declared.dynamics == kind.Dynamics.SEQUENTIAL
        assert declared.chance_mode == kind.ChanceMode.EXPLICIT_STOCHASTIC
        expected = kind.Information.IMPERFECT_INFORMATION if hidden else kind.Information.PERFECT_INFORMATION
        assert declared.information == expected
        assert declared.utility == kind.Utility.ZERO_SUM
        assert declared.provides_information_state_string and not declared.provides_information_state_tensor
        assert game.num_players() == 4 and game.num_distinct_actions() == game.engine.num_actions
        # the engine's returns: a sole winner +1, a sole loser -1
        assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
        assert game.observation_tensor_shape() == [game.engine.observation_spec.size]
    # under logic nothing is left to chance
    logic = pyspiel.load_game("tablezoo_sechs_nimmt(players=4,logic=True)")
    assert logic.get_type().chance_mode == kind.ChanceMode.DETERMINISTIC
    assert logic.max_chance_outcomes() == 0
    assert pyspiel.load_game("tablezoo_sechs_nimmt(players=4,tactic=True)").max_chance_outcomes() == 44
    assert load("diamant", 3).max_chance_outcomes() == 17
    assert load("heckmeck", 2).max_chance_outcomes() == 3003  # face counts of 0..8 dice


def test_utilities_are_computed_from_the_engines_rule() -> None:
    engine = make("diamant", 4)
    assert ow.utility_range(engine) == (-1.0, 1.0, 0.0)
    two_of_three = type(engine).returns(ow._Winners(3, [0, 1]), None)  # type: ignore[arg-type]
    assert two_of_three == [0.5, 0.5, -1.0]


def test_game_lengths_are_bounds_of_real_games() -> None:
    rng = np.random.default_rng(3)
    for spec in ["diamant(players=3)", "sechs_nimmt(players=2)", "sechs_nimmt(players=3,logic=True)"]:
        game = pyspiel.load_game(f"tablezoo_{spec}")
        for _ in range(3):
            state, decisions, chance = game.new_initial_state(), 0, 0
            while not state.is_terminal():
                chance += state.is_chance_node()
                decisions += not state.is_chance_node()
                step_random(state, rng)
            assert decisions <= game.max_game_length() and chance <= game.max_chance_nodes_in_history()


def test_a_game_cut_at_max_moves_is_a_draw() -> None:
    game = load("court", 2, max_moves=40)
    assert game.max_game_length() == 40
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    while not state.is_terminal():
        step_random(state, rng)
    assert len(state.history()) == 40 and state.returns() == [0.0, 0.0]


def test_bad_parameters_are_named() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'quick'"):
        pyspiel.load_game("tablezoo_diamant(players=3,quick=True)")
    with pytest.raises(ValueError, match="core='rust' names no core; cores are: auto, native, python"):
        pyspiel.load_game("tablezoo_diamant(core=rust)")
    with pytest.raises(ValueError, match="is for 3 to 8 players, not 2"):
        pyspiel.load_game("tablezoo_diamant(players=2)")


def test_the_observer_is_built_from_the_named_fields() -> None:
    from open_spiel.python.observation import make_observation

    game = load("sechs_nimmt", 4)
    state = _deal_to_choice(game, 3)
    spec = game.engine.observation_spec
    observation = make_observation(game)
    observation.set_from(state, 2)
    assert list(observation.dict) == [f.name for f in spec.fields]
    expected = game.engine.observe(state.engine_state, 2)
    assert np.array_equal(observation.tensor, expected)
    assert np.array_equal(observation.dict["hand"], spec.unpack(expected)["hand"])
    assert observation.string_from(state, 2) == state.observation_string(2)
    cards = [int(c) for c in np.flatnonzero(observation.dict["hand"]) + 1]
    assert cards == state.engine_state.hands[2]
    history = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert history.tensor is None
    assert history.string_from(state, 2) == state.information_state_string(2)
    with pytest.raises(ValueError, match="private_info=SINGLE_PLAYER"):
        all_hands = pyspiel.IIGObservationType(
            perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
        )
        make_observation(game, all_hands)


# --------------------------------------------------------------------------- chance and words


@pytest.mark.parametrize("core", CORES)
def test_chance_odds_are_the_engines(core: str) -> None:
    rng = np.random.default_rng(5)
    for name, players in [("heckmeck", 3), ("diamant", 4), ("court", 2)]:
        game = load(name, players, core=core)
        state, checked = game.new_initial_state(), 0
        while checked < 25 and not state.is_terminal():
            if state.is_chance_node():
                engine, inner = state.engine, state.engine_state
                odds = dict(state.chance_outcomes())
                assert abs(sum(odds.values()) - 1.0) < 1e-9
                try:
                    expected = engine.chance_outcomes(inner)
                except NotImplementedError:  # a roll of more than 8 dice: not enumerated there
                    expected = []
                for outcome, p in expected:
                    (action,) = ow.outcome_actions(state, outcome)
                    assert odds[action] == pytest.approx(p, rel=1e-12)
                assert len(expected) in (0, len(odds))
                checked += 1
            step_random(state, rng)
    # 6 nimmt!'s deal, card by card: each slot uniform over the cards not dealt yet
    state = load("sechs_nimmt", 2, tactic=True).new_initial_state()
    for k in range(24):
        odds = state.chance_outcomes()
        assert len(odds) == 24 - k and all(p == pytest.approx(1 / (24 - k)) for _, p in odds)
        state.apply_action(odds[-1][0])
    assert not state.is_chance_node() and len(state.engine_state.hands[0]) == 10


def test_actions_read_as_the_engines_command_words() -> None:
    state = load("heckmeck", 2).new_initial_state()
    roll = ow.outcome_actions(state, [2, 0, 0, 3, 1, 2])[0]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, roll) == "roll 1 1 4 4 4 5 W W"
    state.apply_action(roll)
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == [
        "keep 1",
        "keep 4",
        "keep 5",
        "keep worm",
    ]
    diamant = load("diamant", 3).new_initial_state()
    assert {diamant.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in diamant.chance_outcomes()} >= {
        "reveal 17",
        "reveal snake",
    }


# --------------------------------------------------------------------------- hidden information


def _deal_to_choice(game: Any, seed: int) -> Any:
    state, rng = game.new_initial_state(), np.random.default_rng(seed)
    while state.is_chance_node():
        play_chance(state, rng)
    return state


@pytest.mark.parametrize("core", CORES)
def test_what_a_seat_cannot_see_redrawn_changes_nothing_it_sees(core: str) -> None:
    rng = np.random.default_rng(11)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    for name, players in [("sechs_nimmt", 4), ("diamant", 4)]:
        game = load(name, players, core=core)
        state, others_changed, checked = game.new_initial_state(), 0, 0
        while not state.is_terminal() and checked < 40:
            if state.is_chance_node():
                play_chance(state, rng)
                continue
            seat = state.current_player()
            for _ in range(3):
                redrawn = state.resample_from_infostate(seat, sampler)
                assert redrawn.observation_tensor(seat) == state.observation_tensor(seat)
                assert redrawn.observation_string(seat) == state.observation_string(seat)
                assert redrawn.information_state_string(seat) == state.information_state_string(seat)
                assert redrawn.legal_actions() == state.legal_actions()
                others_changed += any(
                    redrawn.information_state_string(s) != state.information_state_string(s)
                    for s in range(players)
                    if s != seat
                )
            checked += 1
            state.apply_action(state.legal_actions()[int(rng.integers(len(state.legal_actions())))])
        assert others_changed > 0, f"{name}: no redraw ever changed what the other seats hold"


def test_a_later_seat_learns_only_that_an_earlier_seat_chose() -> None:
    # Two histories that differ only in what seat 0 chose: seat 1 cannot tell them apart until
    # the choices are revealed, seat 0 can
    game = load("sechs_nimmt", 3)
    first = _deal_to_choice(game, 4)
    second = first.clone()
    hand = first.legal_actions()
    first.apply_action(hand[0])
    second.apply_action(hand[-1])
    assert first.information_state_string(1) == second.information_state_string(1)
    assert first.observation_tensor(1) == second.observation_tensor(1)
    assert first.information_state_string(0) != second.information_state_string(0)
    assert first.information_state_string(1).splitlines()[-2] == "p0 chose"
    for state in (first, second):  # seats 1 and 2 choose: the trick is revealed to all
        state.apply_action(state.legal_actions()[0])
        state.apply_action(state.legal_actions()[0])
    assert first.information_state_string(1) != second.information_state_string(1)
    assert "reveal p0 play" in first.information_state_string(1)
    # Diamant: the same for go and camp
    diamant = _deal_to_choice(load("diamant", 3), 1)
    went, camped = diamant.clone(), diamant.clone()
    went.apply_action(0)
    camped.apply_action(1)
    assert went.information_state_string(1) == camped.information_state_string(1)
    assert went.observation_string(2) == camped.observation_string(2)
    assert went.information_state_string(0) != camped.information_state_string(0)


def test_other_hands_dealt_otherwise_are_the_same_information_state() -> None:
    # Seat 2's hand and the rows fixed, the other hands dealt anew: seat 2 sees the same game
    game = load("sechs_nimmt", 3, tactic=True)
    state = _deal_to_choice(game, 8)
    engine, inner = state.engine, state.engine_state
    other = engine.determinize(inner, 2, np.random.default_rng(1))
    assert other.hands[0] != inner.hands[0]
    again = game.new_initial_state()
    for action in ow.outcome_actions(again, {"hands": other.hands, "rows": [r[0] for r in other.rows]}):
        again.apply_action(action)
    assert again.information_state_string(2) == state.information_state_string(2)
    assert again.information_state_string(0) != state.information_state_string(0)


# --------------------------------------------------------------------------- the same game


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("name", list(ow.GAME_NAMES))
def test_the_same_seed_and_moves_give_the_same_game(name: str, core: str) -> None:
    players = 3 if name in ("diamant", "court") else 2
    engine = make(name, players, core=core)
    game = load(name, players, core=core)
    spiel = game.new_initial_state()
    inner = engine.initial_state()
    chance_rng, move_rng = np.random.default_rng(17), np.random.default_rng(18)
    steps = 0
    while engine.to_move(inner) != TERMINAL and steps < 2000:
        if engine.to_move(inner) == CHANCE:
            outcome = engine.sample_chance(inner, chance_rng)
            engine.apply_chance(inner, outcome)
            for action in ow.outcome_actions(spiel, outcome):
                assert spiel.is_chance_node()
                spiel.apply_action(action)
        else:
            legal = engine.legal_actions(inner)
            assert spiel.legal_actions() == legal and spiel.current_player() == engine.to_move(inner)
            action = legal[int(move_rng.integers(len(legal)))]
            engine.apply(inner, action)
            spiel.apply_action(action)
            for seat in range(players):
                assert np.array_equal(spiel.observation_tensor(seat), engine.observe(inner, seat))
        assert spiel.engine.to_json(spiel.engine_state) == engine.to_json(inner)
        steps += 1
    if engine.to_move(inner) == TERMINAL:
        assert spiel.is_terminal() and spiel.returns() == engine.returns(inner)
    else:
        assert name == "court"  # long games: compared over their first 2,000 steps


def test_a_serialised_state_comes_back_with_its_log_and_deal() -> None:
    game = load("sechs_nimmt", 3)
    state = _deal_to_choice(game, 2)
    state.apply_action(state.legal_actions()[3])
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history()
    assert all(copy.information_state_string(s) == state.information_state_string(s) for s in range(3))
    dealing = game.new_initial_state()
    for _ in range(7):
        play_chance(dealing, np.random.default_rng(0))
    back = game.deserialize_state(dealing.serialize())
    assert back.chance_outcomes() == dealing.chance_outcomes()
    assert "dealing (7 cards" in back.information_state_string(0)


# --------------------------------------------------------------------------- the examples, as programs


def run_example(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.stdout


def test_the_ismcts_example_plays_our_bots() -> None:
    out = run_example(
        "openspiel_ismcts.py", "--game", "diamant", "--players", "3", "--games", "2", "--simulations", "20"
    )
    assert "ismcts" in out and "returns" in out


def test_the_learning_example_trains() -> None:
    pytest.importorskip("torch", reason="OpenSpiel's PyTorch learners need torch (the train extra)")
    out = run_example("openspiel_policy_gradient.py", "--episodes", "20", "--eval-games", "4")
    assert "trained" in out
