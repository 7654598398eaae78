"""The native search (``agent:search=N`` on the native core): the core's forward pass is numpy's
to 1e-5, its determinisations are the Python games' draw for draw, and the search plays legal
moves, is deterministic given its seed, reads only what its seat may know and is the same player
as the Python search head to head."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.native import NativeAgentBot, native_net
from tablezoo.bots.net import ActionHead, PolicyValueNet
from tablezoo.bots.registry import make_bot, shipped_agent
from tablezoo.bots.search import AgentBot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module chooses its cores itself (it overrides the folder's both-cores fixture)."""
    return "both"


def positions(game: Any, count: int, seed: int) -> list[Any]:
    """The decisions of seeded games of random moves, ``count`` of them at most."""
    rng = np.random.default_rng(seed)
    found: list[Any] = []
    while len(found) < count:
        state = game.initial_state()
        while game.advance(state, rng) >= 0 and len(found) < count:
            found.append(game.clone(state))
            game.apply(state, int(rng.choice(game.legal_actions(state))))
    return found


def searching() -> list[str]:
    """The games whose native core runs the search (it determinises them)."""
    return [n for n in GAMES if make(n, core="native").has_native_search] if available() else []


def plain_policy(game: Any) -> PolicyValueNet:
    """A policy as a PPO run exports one: tanh, the plain observation of one seat count divided
    by its scale, no value head (6 nimmt!'s with an action head on the plain fields)."""
    fresh = PolicyValueNet.initial(game, (24, 12), seed=3)
    spec = game.observation_spec
    head = None
    if fresh.head is not None:
        arrays = {a: getattr(fresh.head, a) for a in ActionHead.ARRAYS[1:]}
        offsets = np.array([spec.offsets[f] for f in game.action_fields])
        head = ActionHead(offsets=offsets, size=fresh.head.size, **arrays)
    weights = [fresh.weights[0][:, game._padded_index], *fresh.weights[1:]]
    return PolicyValueNet(
        weights, fresh.biases, None, None, spec.scale(), {}, head, activation="tanh", padded=False
    )


@pytest.mark.parametrize("name", list(GAMES))
def test_the_native_forward_pass_is_numpys(name: str) -> None:
    """Logits and win share of the shipped network (padded, ReLU; 6 nimmt!'s with an action head)
    at every seat count, and of a plain tanh policy, on the observations of random positions:
    numpy's one-observation path and batched forward, to 1e-5."""
    info = game_class(name).info
    for kind, net in [("shipped", shipped_agent(make(name))), ("plain", plain_policy(make(name)))]:
        twin = native_net(net)
        assert native_net(net) is twin  # handed over once
        assert (twin.padded, twin.has_value_head, twin.num_actions) == (
            net.padded,
            net.has_value_head,
            net.num_actions,
        )
        for seats in info.seat_range if net.padded else [info.default_seats]:
            game = make(name, seats, core="native")
            states = positions(game, 12, seed=seats)
            x = np.stack([net.reads(game, game.observe(s, game.to_move(s))) for s in states])
            native = [twin.evaluate(row) for row in x]
            for row, (logits, value) in zip(x, native, strict=True):
                expected, share = net.evaluate(row) if net.has_value_head else (net.logits(row), 0.0)
                np.testing.assert_allclose(
                    logits, expected, rtol=0, atol=1e-5, err_msg=f"{kind}, {seats} seats"
                )
                assert abs(value - share) < 1e-5, (kind, seats)
            if net.has_value_head:
                batch_logits, batch_values = net.forward(x)
                np.testing.assert_allclose(np.stack([n[0] for n in native]), batch_logits, rtol=0, atol=1e-5)
                np.testing.assert_allclose([n[1] for n in native], batch_values, rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", list(GAMES))
def test_the_native_forward_pass_computes_only_what_is_asked(name: str) -> None:
    """``evaluate(x, only)``, as the search asks at its play-outs: an empty list gives the win
    share alone (every logit NaN), the same as the whole pass; an action head (6 nimmt!'s) gives
    the asked actions' logits bit for bit as the whole pass does, so that a search asking only
    for the legal moves plays the same moves. A bad list is refused and names what is allowed."""
    game = make(name, core="native")
    net = shipped_agent(game)
    twin = native_net(net)
    for state in positions(game, 8, seed=3):
        x = net.reads(game, game.observe(state, game.to_move(state)))
        logits, value = twin.evaluate(x)
        alone, alone_value = twin.evaluate(x, [])
        assert alone_value == value and np.isnan(alone).all()
        legal = game.legal_actions(state)
        asked, asked_value = twin.evaluate(x, legal)
        assert asked_value == value
        if net.head is not None:
            np.testing.assert_array_equal(asked[legal], logits[legal])
        else:
            np.testing.assert_allclose(asked[legal], logits[legal], rtol=0, atol=1e-5)
        assert np.isnan(np.delete(asked, legal)).all()
    with pytest.raises(ValueError, match=f"only lists actions 0..{game.num_actions - 1}, not -1"):
        twin.evaluate(x, [0, -1])
    with pytest.raises(ValueError, match=r"only\[0\] should be a whole number, not '0'"):
        twin.evaluate(x, ["0"])


def test_the_native_network_refuses_malformed_arrays() -> None:
    """Every array is checked when the network is handed over: a Python error names it and
    what it should be; nothing is read out of bounds."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    net = PolicyValueNet.initial(make("heckmeck", core="python"), (8,), seed=1)
    good = dict(
        weights=net.weights,
        biases=net.biases,
        value_w=net.value_w,
        value_b=np.array([net.value_b]),
        scale=net.scale,
        head=None,
        activation="relu",
        padded=True,
    )
    assert _native.PolicyValueNet(**good).observation_size == net.observation_size
    bad: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"activation": "gelu"}, ValueError, "activation is 'relu' or 'tanh'"),
        ({"weights": net.weights[:1]}, ValueError, "one bias per weight matrix"),
        ({"weights": [net.weights[0][:, :-1], net.weights[1]]}, ValueError, "w0 has shape .* it reads"),
        ({"weights": [net.weights[0], net.weights[1][:, :-1]]}, ValueError, "w1 has shape"),
        ({"biases": [net.biases[0][:-1], net.biases[1]]}, ValueError, "b0 has shape .* one per output"),
        ({"weights": [net.weights[0].ravel(), net.weights[1]]}, ValueError, "w0 should have 2 dimensions"),
        ({"weights": ["a", net.weights[1]]}, TypeError, "w0 should be an array of numbers"),
        ({"value_w": net.value_w[:-1]}, ValueError, "value_w has shape"),
        ({"value_b": None}, ValueError, "both value_w and value_b"),
        ({"scale": net.scale[:-1]}, ValueError, "w0 has shape"),
        ({"weights": net.weights[:1], "biases": net.biases[:1]}, ValueError, "needs hidden layers"),
        ({"head": {"size": 3}}, ValueError, "head has no 'offsets'"),
    ]
    for change, error, message in bad:
        with pytest.raises(error, match=message):
            _native.PolicyValueNet(**{**good, **change})
    game = make("sechs_nimmt", core="python")
    headed = PolicyValueNet.initial(game, (8,), seed=1)
    assert headed.head is not None
    arrays = {a: getattr(headed.head, a) for a in headed.head.ARRAYS} | {"size": headed.head.size}
    base = {
        **good,
        "weights": headed.weights,
        "biases": headed.biases,
        "value_w": headed.value_w,
        "scale": headed.scale,
        "head": arrays,
    }
    assert _native.PolicyValueNet(**base).num_actions == game.num_actions
    for change, message in [
        ({"offsets": arrays["offsets"] + 10_000}, "head offsets.* starts at"),
        ({"card": arrays["card"][:, :-1]}, "head card has shape"),
        ({"context": arrays["context"][:, :-1]}, "head context has shape"),
        ({"rest_bias": arrays["rest_bias"][:-1]}, "head rest_bias has shape"),
        ({"size": 0}, "head size is 1"),
    ]:
        with pytest.raises(ValueError, match=message):
            _native.PolicyValueNet(**{**base, "head": {**arrays, **change}})


@pytest.mark.parametrize("name", list(GAMES))
def test_the_native_determinisation_draws_what_the_python_one_draws(name: str) -> None:
    """From a numpy Generator, the core's determinize (where the game has one) draws the Python
    game's determinisation, draw for draw; and it keeps what the seat sees."""
    game = make(name, 4, core="native")
    if not game.has_native_search:
        pytest.skip(f"the core does not determinise {game.info.title} yet")
    for k, state in enumerate(positions(game, 200, seed=4)):
        mover = game.to_move(state)
        for seat in {mover, (mover + 1) % 4}:
            ours = game._native.determinize(state, seat, np.random.default_rng(k))
            theirs = game.determinize(state, seat, np.random.default_rng(k))
            assert ours.to_fields() == theirs.to_fields(), game.to_json(state)
            assert np.array_equal(game.observe(ours, seat), game.observe(state, seat))


def test_make_bot_seats_the_native_search_where_the_core_has_one(tmp_path: Path) -> None:
    """``agent:search=N`` (and a network file's ``:search=N``) is the native search on a native
    game the core determinises, with any N, c_puct and horizon; ``batch`` other than 1, the
    network alone, the Python core and a game the core does not determinise: the Python bot."""
    for name in GAMES:
        game = make(name, core="native")
        bot = make_bot("agent:search=8,c_puct=2.0,horizon=3", game)
        assert isinstance(bot, AgentBot) and (bot.simulations, bot.c_puct, bot.horizon) == (8, 2.0, 3)
        assert isinstance(bot, NativeAgentBot) == game.has_native_search, name
        for python in ("agent", "agent:search=8,batch=2,root=puct"):
            assert not isinstance(make_bot(python, game), NativeAgentBot)
        assert not isinstance(make_bot("agent:search=8", make(name, core="python")), NativeAgentBot)
    assert {"heckmeck", "diamant", "court"} <= set(searching())
    game = make("heckmeck", core="native")
    shipped_agent(game).save(tmp_path / "net.npz")
    bot = make_bot(f"{tmp_path / 'net.npz'}:search=4", game)
    assert isinstance(bot, NativeAgentBot) and bot.name == "net" and bot.simulations == 4


@pytest.mark.parametrize("name", searching())
def test_the_native_search_plays_legal_moves_and_is_deterministic_given_its_seed(name: str) -> None:
    """Along seeded games at the fewest and most seats: every move is legal, and two searches
    seeded alike (one a deep copy, as a vector env copies its opponents) make the same moves; a
    reset with the seed plays them again."""
    info = game_class(name).info
    for seats in (info.min_seats, min(info.max_seats, 5)):
        game = make(name, seats, core="native")
        bot = make_bot("agent:search=6", game)
        bot.reset(seed=seats)
        twin = copy.deepcopy(bot)
        moves = []
        for state in positions(game, 25, seed=seats):
            seat = Seat.of(game, state, game.to_move(state))
            move = bot.act(seat)
            assert move in seat.legal, game.to_json(state)
            assert twin.act(seat) == move
            moves.append(move)
        bot.reset(seed=seats)
        assert [bot.act(Seat.of(game, s, game.to_move(s))) for s in positions(game, 25, seed=seats)] == moves


@pytest.mark.parametrize("name", [n for n in searching() if game_class(n).info.hidden_information])
def test_the_native_search_reads_only_what_its_seat_may_know(name: str) -> None:
    """Handed the whole state, seeded alike, it makes the same move on the true state and on
    states whose hidden parts were drawn anew (determinize): the others' secret choices."""
    game = make(name, 4, core="native")
    rng = np.random.default_rng(11)
    hidden = 0
    for state in positions(game, 60, seed=11):
        mover = game.to_move(state)
        moves = set()
        samples = [state, *(game.determinize(state, mover, rng) for _ in range(3))]
        for sample in samples:
            bot = make_bot("agent:search=8", game)
            bot.reset(seed=5)
            moves.add(bot.act(Seat.of(game, sample, mover)))
        assert len(moves) == 1, game.to_json(state)
        hidden += any(s.to_fields() != state.to_fields() for s in samples)
    assert hidden > 10


def test_the_native_search_is_the_same_player_as_the_python_search() -> None:
    """Heckmeck, 2 seats, the shipped agent guiding 8 simulations: the native search against
    the Python search (seats rotated, seeded); its win share's 95% interval holds 0.5."""
    from tablezoo.evaluation.tournament import tournament

    game = make("heckmeck", 2, core="native")
    net = shipped_agent(game)
    lineup = [
        ("native", lambda: make_bot("agent:search=8", game)),
        ("python", lambda: AgentBot(net, search=8)),
    ]
    native, python = tournament(game, lineup, games=120, seed=2026)
    assert native.games == python.games == 120
    low, high = native.interval()
    assert low < 0.5 < high, (native.win_rate, native.interval())


def test_the_native_search_refuses_what_it_cannot_search() -> None:
    """A network of another game or without a value head, settings out of range, a state of
    another configuration or with no seat to move: each a Python error that says so."""
    game = make("heckmeck", 3, core="native")
    net = native_net(shipped_agent(game))
    search = game.native_search(net, 4)
    state = game.initial_state()
    with pytest.raises(ValueError, match="chance outcome is due"):
        search.act(state)
    with pytest.raises(TypeError, match="not a native state"):
        search.act(make("heckmeck", 3, core="python").initial_state())
    game.advance(state, np.random.default_rng(0))
    with pytest.raises(ValueError, match="another configuration"):
        make("heckmeck", 4, core="native").native_search(net, 4).act(state)
    for settings, message in [
        ((0,), "simulations are 1"),
        ((4, 0.0), "c_puct is above 0"),
        ((4, 1.5, -1), "horizon"),
    ]:
        with pytest.raises(ValueError, match=message):
            game.native_search(net, *settings)
    with pytest.raises(ValueError, match=r"own is one of network, heuristic, solver, margin \(the core's"):
        game.native_search(net, 4, own="search")
    with pytest.raises(ValueError, match=r"own \(the seat's own moves in a simulation\) is the gumbel"):
        game.native_search(net, 4, own="solver", root="puct")
    with pytest.raises(TypeError):
        game.native_search(net, 4, own=3)
    with pytest.raises(ValueError, match=r"advice is one of none, solver, margin \(the core's bots of this"):
        game.native_search(net, 4, advice="heuristic")
    with pytest.raises(ValueError, match=r"advice \(a bot's values added to the root's logits\) is the"):
        game.native_search(net, 4, advice="solver", root="puct")
    with pytest.raises(ValueError, match="heed is the logits a unit of the advice's value weighs"):
        game.native_search(net, 4, advice="solver", heed=float("nan"))
    with pytest.raises(ValueError, match="reads observations of 175 entries"):
        make("court", 3, core="native").native_search(net, 4)
    policy = native_net(plain_policy(make("heckmeck", 3)))
    with pytest.raises(ValueError, match="without a value head"):
        game.native_search(policy, 4)
    with pytest.raises(TypeError):
        game.native_search("net", 4)


def test_the_native_root_is_what_expert_iteration_trains_on() -> None:
    """``NativeAgentBot.root``: every simulation counted at the root's legal moves; Dirichlet
    noise mixed into the priors with the weight asked (none: the network's policy), the
    noise's concentration showing in how far the priors move; out-of-range noise refused."""
    game = make("heckmeck", 3, core="native")
    net = shipped_agent(game)
    bot = NativeAgentBot(game, net, 16, seed=1)
    state = next(s for s in positions(game, 40, seed=4) if len(game.legal_actions(s)) > 2)
    seat = Seat.of(game, state, game.to_move(state))
    plain = bot.root(seat)
    assert plain.legal == seat.legal and plain.visits.sum() == plain.total == 16
    logits, _ = net.evaluate(net.reads(game, seat.observation))
    shifted = np.exp(logits[seat.legal] - logits[seat.legal].max())
    np.testing.assert_allclose(plain.prior, shifted / shifted.sum(), rtol=1e-4, atol=1e-6)
    spread = {
        alpha: [bot.root(seat, noise=1.0, dirichlet_alpha=alpha).prior for _ in range(200)]
        for alpha in (0.05, 50.0)
    }
    for priors in spread.values():
        np.testing.assert_allclose(np.sum(priors, axis=1), 1.0, atol=1e-5)
    # concentration 0.05 piles the noise on one move, 50 spreads it evenly (the largest share
    # averages 0.94 to 0.82 for 0.05 over 3 to 9 moves, 0.37 to 0.13 for 50)
    assert np.mean(np.max(spread[0.05], axis=1)) > 0.75 > 0.45 > np.mean(np.max(spread[50.0], axis=1))
    half = bot.root(seat, noise=0.5)
    assert np.all(half.prior >= 0.5 * plain.prior - 1e-6)
    for noise, alpha in ((1.5, 0.3), (-0.1, 0.3), (0.2, 0.0)):
        with pytest.raises(ValueError, match=r"noise is a weight|dirichlet_alpha is above 0"):
            bot.root(seat, noise=noise, dirichlet_alpha=alpha)
