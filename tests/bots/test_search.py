"""The network-guided search and the agent bot, on every game."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import RandomBot, Seat
from tablezoo.bots.net import PolicyValueNet, masked_softmax, win_share
from tablezoo.bots.registry import make_bot
from tablezoo.bots.search import (
    OBSERVE_BATCH_FROM,
    AgentBot,
    Evaluation,
    Evaluator,
    NetworkEvaluator,
    Request,
    search,
)
from tablezoo.evaluation.tournament import one_against_all, play_game
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import TERMINAL, ConfigError, Game


def first_decision(name: str, n: int, seed: int = 0) -> tuple:
    game = make(name, n)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    mover = game.advance(state, rng)
    return game, state, mover


def net_of(game: Game[Any]) -> PolicyValueNet:
    return PolicyValueNet.initial(game, (16,), seed=5)


def test_masked_softmax_covers_only_the_legal_moves() -> None:
    p = masked_softmax(np.array([0.0, 5.0, 1.0, 1.0]), [0, 2, 3])
    assert p.shape == (3,) and np.isclose(p.sum(), 1) and np.isclose(p[1], p[2])


@pytest.mark.parametrize("name", list(GAMES))
def test_network_round_trips_and_reads_every_seat_count(name: str, tmp_path: Path) -> None:
    info = game_class(name).info
    net = PolicyValueNet.initial(make(name), (16, 8), seed=1)
    net.save(tmp_path / "net.npz")
    again = PolicyValueNet.load(tmp_path / "net.npz")
    for n in info.seat_range:
        game, state, mover = first_decision(name, n)
        again.check_fits(game)
        x = game.observe_padded(state, mover)
        logits, value = again.evaluate(x)
        assert np.allclose(logits, net.evaluate(x)[0]) and 0 < value < 1
        batch_logits, batch_values = again.forward(np.stack([x, x]))
        assert np.allclose(batch_logits[0], logits, atol=1e-5) and np.isclose(batch_values[1], value)


def test_network_refuses_another_game() -> None:
    net = PolicyValueNet.initial(make("diamant"), (8,))
    with pytest.raises(ConfigError, match="plays 'diamant', not 'heckmeck'"):
        net.check_fits(make("heckmeck"))


@pytest.mark.parametrize("name", ["sechs_nimmt", "court"])  # with an action head, and without
def test_the_mean_of_networks_averages_every_weight(name: str) -> None:
    a, b, c = (PolicyValueNet.initial(make(name), (16, 8), seed=s) for s in (1, 2, 3))
    mean = PolicyValueNet.mean([a, b, c])
    assert (mean.head is None) == (name == "court")
    for got, *parts in zip(
        [*mean.weights, *mean.biases, mean.value_w],
        *([*n.weights, *n.biases, n.value_w] for n in (a, b, c)),
        strict=True,
    ):
        assert np.allclose(got, sum(parts) / 3)
    assert np.isclose(mean.value_b, (a.value_b + b.value_b + c.value_b) / 3)
    if mean.head is not None:
        assert np.allclose(mean.head.card, (a.head.card + b.head.card + c.head.card) / 3)  # type: ignore[union-attr]
    # the mean of one network is that network, move for move
    game, state, mover = first_decision(name, 3)
    x = game.observe_padded(state, mover)
    assert np.allclose(PolicyValueNet.mean([a]).evaluate(x)[0], a.evaluate(x)[0])
    with pytest.raises(ConfigError, match="only networks of one game and layout are averaged"):
        PolicyValueNet.mean([a, PolicyValueNet.initial(make(name), (16, 4))])
    with pytest.raises(ConfigError, match="only networks of one game and layout"):
        PolicyValueNet.mean([a, PolicyValueNet.initial(make("heckmeck"), (16, 8))])


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("sims", [0, 6])
def test_agent_plays_legal_moves_at_the_smallest_and_largest_table(name: str, sims: int) -> None:
    info = game_class(name).info
    net = PolicyValueNet.initial(make(name), (16,), seed=2)
    for n in (info.min_seats, info.max_seats):
        game = make(name, n)
        bots = [AgentBot(net, search=sims, seed=3)] + [RandomBot() for _ in range(n - 1)]
        # play_game applies every move with the legality check: an illegal one would raise
        play_game(game, bots, seed=5, max_decisions=300 if sims else 5000)


def test_search_is_repeatable_under_a_seed_and_counts_every_simulation() -> None:
    game, state, mover = first_decision("sechs_nimmt", 4)
    net = PolicyValueNet.initial(game, (16,), seed=4)
    roots = [search(Seat.of(game, state, mover), net, 30, np.random.default_rng(9)) for _ in range(2)]
    assert roots[0].visits.sum() == 30
    assert np.array_equal(roots[0].visits, roots[1].visits)
    assert roots[0].legal == game.legal_actions(state)


def test_search_never_reads_the_hidden_state() -> None:
    # two states that differ only in what seat 0 cannot see (the others' hands) give the same search
    game, state, mover = first_decision("sechs_nimmt", 3, seed=1)
    assert mover == 0
    other = game.determinize(state, 0, np.random.default_rng(7))
    assert other.hands[1] != state.hands[1]
    net = PolicyValueNet.initial(game, (16,), seed=5)
    a = search(Seat.of(game, state, 0), net, 25, np.random.default_rng(1))
    b = search(Seat.of(game, other, 0), net, 25, np.random.default_rng(1))
    assert np.array_equal(a.visits, b.visits)


def secret_round_starts(game: Game[Any], seed: int, count: int) -> list[Any]:
    """Copies of the states where a round of secret choices begins (its first seat to choose), along
    a game of random moves."""
    rng = np.random.default_rng(seed)
    state, starts, round_seats = game.initial_state(), [], set()
    while len(starts) < count and (mover := game.advance(state, rng)) != TERMINAL:
        if not game.secret_decision(state):
            round_seats = set()
        elif mover in round_seats or not round_seats:  # a seat chooses again: a new round
            round_seats = {mover}
            starts.append(game.clone(state))
        else:
            round_seats.add(mover)
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    return starts


@pytest.mark.parametrize(
    ("name", "n"), [("sechs_nimmt", 2), ("sechs_nimmt", 4), ("diamant", 3), ("diamant", 4)]
)
def test_the_others_of_a_secret_round_are_modelled_blind_to_the_searchers_choice(name: str, n: int) -> None:
    # the search models another seat's move from that seat's observation alone (NetworkEvaluator
    # reads nothing else): whatever the first seat of a round chooses in secret, every later seat of
    # the round sees the same, so their modelled choices cannot answer it
    game = make(name, n)  # the games with secret choices
    later = 0
    for state in secret_round_starts(game, seed=n, count=40):
        first = game.to_move(state)
        views = set()
        for action in game.legal_actions(state):
            x = game.clone(state)
            game.apply(x, action)
            seen = []
            while (mover := game.to_move(x)) >= 0 and mover != first and game.secret_decision(x):
                seen.append(game.observe(x, mover).tobytes())
                game.apply(x, game.legal_actions(x)[0])
            views.add(tuple(seen))
            later += len(seen)
        assert len(views) == 1
    assert later > 0


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_search_alone_beats_random_play(root: str) -> None:
    # an untrained network has no preference; its search's simulations (real outcomes of the engine:
    # the PUCT tree's, or the Gumbel root's games played out, leaf=end) are what make the agent win
    # well above its fair share of 1/3 at a Diamant table of randoms
    game = make("diamant", 3)
    net = PolicyValueNet.initial(game, (16,), seed=6)
    standing = one_against_all(
        game, lambda: AgentBot(net, search=24, root=root, leaf="end"), RandomBot, 40, seed=1
    )
    assert standing.win_rate > 0.45, standing.as_dict()  # fair share 1/3


@pytest.mark.parametrize("batch", [3, 16])
def test_batched_search_counts_every_simulation_repeatably_and_reads_no_hidden_card(batch: int) -> None:
    game, state, mover = first_decision("sechs_nimmt", 3, seed=1)
    other = game.determinize(state, mover, np.random.default_rng(7))
    net = PolicyValueNet.initial(game, (16,), seed=5)
    roots = [
        search(Seat.of(game, s, mover), net, 25, np.random.default_rng(1), batch=batch)
        for s in (state, state, other)
    ]
    assert roots[0].visits.sum() == roots[0].total == 25
    assert np.array_equal(roots[0].visits, roots[1].visits)  # the same seed, the same search
    assert np.array_equal(roots[0].visits, roots[2].visits)  # the hidden hands play no part
    assert np.allclose(roots[0].value, roots[2].value)


def test_simulations_side_by_side_spread_over_the_moves() -> None:
    # the first simulations of a batch are steered apart by the visits counted on their way down:
    # with no value back yet, a batch as large as the legal moves tries each of them once
    game, state, mover = first_decision("heckmeck", 2)
    net = PolicyValueNet.initial(game, (16,), seed=3)
    legal = game.legal_actions(state)
    assert len(legal) > 1
    root = search(Seat.of(game, state, mover), net, len(legal), np.random.default_rng(2), batch=len(legal))
    assert root.visits.tolist() == [1] * len(legal)


@pytest.mark.parametrize("name", list(GAMES))
def test_one_network_call_answers_a_batch_as_single_calls_do(name: str) -> None:
    game = make(name, game_class(name).info.max_seats)
    net = PolicyValueNet.initial(game, (16, 8), seed=4)
    rng = np.random.default_rng(0)
    requests = []
    state = game.initial_state()
    while len(requests) < OBSERVE_BATCH_FROM + 4 and (mover := game.advance(state, rng)) >= 0:
        observed = game.observe(state, mover) if len(requests) % 2 else None  # both kinds of request
        requests.append((game.clone(state), mover, observed))
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    for size in (1, 5, len(requests)):  # one, a few, enough for observe_batch
        answers = NetworkEvaluator(net).evaluate_batch(game, requests[:size])
        for (x, seat, _), (logits, value) in zip(requests[:size], answers, strict=True):
            alone, alone_value = net.evaluate(game.observe_padded(x, seat))
            assert np.allclose(logits, alone, atol=1e-5) and np.isclose(value, alone_value, atol=1e-6)


def test_the_agent_takes_a_batch_setting() -> None:
    game = make("diamant", 4)
    bot = make_bot("agent:search=6,batch=3,root=puct", game)
    assert isinstance(bot, AgentBot) and bot.batch == 3
    play_game(game, [bot, RandomBot(), RandomBot(), RandomBot()], seed=2, max_decisions=200)
    with pytest.raises(ValueError, match="batch 1 or more"):
        AgentBot(bot.net, search=4, batch=0)
    # side by side is the PUCT root's: the Gumbel root (the default) refuses it, naming the way
    with pytest.raises(ConfigError, match="add root=puct"):
        make_bot("agent:search=6,batch=3", game)


# --------------------------------------------------------------------------- other evaluators


class Rollouts:
    """An evaluator with no network: uniform priors, and the win share of one random playout.

    It checks on the way that every state it is asked about is what the seat sees (the
    observation a simulation brought is the seat's observation of that state)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.asked = 0

    def evaluate_batch(self, game: Game[Any], requests: Sequence[Request]) -> list[Evaluation]:
        answers = []
        for state, seat, observation in requests:
            if observation is not None:
                assert np.array_equal(observation, game.observe(state, seat))
            x = game.clone(state)  # the search goes on from its state: a playout of its own
            while (mover := game.advance(x, self.rng)) != TERMINAL:
                legal = game.legal_actions(x)
                game.apply(x, legal[int(self.rng.integers(len(legal)))])
                assert mover >= 0
            answers.append((np.zeros(game.num_actions), win_share(game, x, seat)))
        self.asked += len(requests)
        return answers


class Fixed:
    """An evaluator that favours one action and values every position alike."""

    def __init__(self, favourite: int, value: float) -> None:
        self.favourite, self.value = favourite, value

    def evaluate_batch(self, game: Game[Any], requests: Sequence[Request]) -> list[Evaluation]:
        logits = np.zeros(game.num_actions)
        logits[self.favourite] = 3.0
        return [(logits, self.value) for _ in requests]


@pytest.mark.parametrize("batch", [1, 4])
def test_an_evaluator_without_a_network_guides_the_search(batch: int) -> None:
    game, state, mover = first_decision("sechs_nimmt", 3, seed=1)
    other = game.determinize(state, mover, np.random.default_rng(7))  # other hidden hands
    assert isinstance(Rollouts(0), Evaluator) and isinstance(NetworkEvaluator(net_of(game)), Evaluator)
    roots = []
    for s in (state, state, other):
        rollouts = Rollouts(seed=3)
        roots.append(search(Seat.of(game, s, mover), rollouts, 20, np.random.default_rng(1), batch=batch))
        assert rollouts.asked >= 20  # the root, and every simulation that did not end the game
    assert roots[0].visits.sum() == roots[0].total == 20
    assert np.allclose(roots[0].prior, 1 / len(roots[0].legal))  # its priors: uniform
    assert np.array_equal(roots[0].visits, roots[1].visits)  # the same seeds, the same search
    assert np.array_equal(roots[0].visits, roots[2].visits)  # no hidden card reaches it
    assert np.allclose(roots[0].value, roots[2].value)


def test_the_search_follows_an_evaluators_priors_and_values() -> None:
    game, state, mover = first_decision("heckmeck", 2)
    legal = game.legal_actions(state)
    assert len(legal) > 2
    for favourite in (legal[0], legal[-1]):
        root = search(Seat.of(game, state, mover), Fixed(favourite, 0.25), 40, np.random.default_rng(4))
        assert root.legal[int(np.argmax(root.visits))] == favourite
        assert root.prior.max() == root.prior[root.legal.index(favourite)]
        tried = root.visits > 0
        assert root.value0 == 0.25 and np.allclose(root.value[tried] / root.visits[tried], 0.25)


def test_the_agent_bot_plays_any_evaluator() -> None:
    game = make("diamant", 3)
    for bot in (AgentBot(Rollouts(seed=1), search=6, seed=2), AgentBot(Fixed(0, 0.5))):
        assert bot.net is None
        play_game(game, [bot, RandomBot(), RandomBot()], seed=3, max_decisions=150)
    game, state, mover = first_decision("heckmeck", 2)
    legal = game.legal_actions(state)
    assert AgentBot(Fixed(legal[-1], 0.5)).act(Seat.of(game, state, mover)) == legal[-1]  # alone: its priors


def test_the_root_noise_takes_its_concentration() -> None:
    game, state, mover = first_decision("heckmeck", 2)
    net = net_of(game)

    def prior(**noise: float) -> np.ndarray:
        return search(Seat.of(game, state, mover), net, 4, np.random.default_rng(3), **noise).prior

    plain = prior()
    assert np.array_equal(prior(noise=0.5), prior(noise=0.5, dirichlet_alpha=0.3))  # the default
    assert not np.allclose(prior(noise=0.5), prior(noise=0.5, dirichlet_alpha=5.0))
    assert not np.allclose(prior(noise=0.5), plain) and np.isclose(prior(noise=0.5).sum(), 1)


def test_a_model_without_a_value_head_cannot_guide_a_search() -> None:
    game = make("diamant", 3)
    spec = game.observation_spec
    rng = np.random.default_rng(0)
    policy = PolicyValueNet(
        [rng.normal(size=(8, spec.size)), rng.normal(size=(game.num_actions, 8))],
        [np.zeros(8), np.zeros(game.num_actions)],
        None,
        None,
        spec.scale(),
        {},
        padded=False,
    )
    with pytest.raises(ConfigError, match="a policy has no value head: it cannot guide a search"):
        AgentBot(policy, search=4)
