"""The one model class: both file layouts, what a model says of itself, and the bots that play it."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.net import PolicyValueNet, load_model
from tablezoo.bots.policy import NumpyPolicy, PolicyBot
from tablezoo.bots.registry import AGENTS_DIR, make_bot
from tablezoo.bots.search import AgentBot
from tablezoo.games import make
from tablezoo.games.core import ConfigError, Game
from tablezoo.release.export import random_positions


def ppo_policy(
    game: Game[Any], activation: str = "tanh", meta: dict[str, Any] | None = None
) -> PolicyValueNet:
    """A policy of one seat count as PPO exports it, random weights."""
    rng = np.random.default_rng(0)
    sizes = [game.observation_spec.size, 16, 8, game.num_actions]
    weights = [rng.normal(size=(b, a)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    biases = [rng.normal(size=b).astype(np.float32) for b in sizes[1:]]
    meta = {"env": "diamant_v0", "num_players": game.num_seats} if meta is None else meta
    return PolicyValueNet(
        weights, biases, None, None, game.observation_spec.scale(), meta, activation=activation, padded=False
    )


def stored(path: Path) -> tuple[dict[str, np.ndarray], Any]:
    """The arrays of a ``.npz`` file and its meta, parsed."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files if k != "meta"}
        return arrays, json.loads(str(data["meta"]))


def test_a_ppo_policy_keeps_its_layout_and_its_arithmetic(tmp_path: Path) -> None:
    game = make("diamant", 4)
    policy = ppo_policy(game)
    policy.save(tmp_path / "policy.npz")
    arrays, meta = stored(tmp_path / "policy.npz")
    # the layout NumpyPolicy wrote: the shape in meta, no value head, no head_size array
    assert meta == {"env": "diamant_v0", "num_players": 4, "activation": "tanh", "layers": 3}
    assert sorted(arrays) == ["b0", "b1", "b2", "scale", "w0", "w1", "w2"]
    legacy = NumpyPolicy(policy.weights, policy.biases, policy.scale, "tanh", policy.meta)
    legacy.save(tmp_path / "legacy.npz")
    assert stored(tmp_path / "legacy.npz")[1] == meta

    again = load_model(tmp_path / "legacy.npz")
    assert type(again) is PolicyValueNet and again.meta == policy.meta
    assert (again.padded, again.folds_scale, again.has_value_head, again.activation) == (
        False,
        False,
        False,
        "tanh",
    )
    assert again.kind == "policy" and again.describe()["kind"].startswith("policy (")
    observations, masks, _ = random_positions(game, 30, seed=2)
    for o, m in zip(observations, masks, strict=True):
        # the observation divided by the scale first, as stable-baselines3 computed it
        h = np.tanh(
            policy.weights[1] @ np.tanh(policy.weights[0] @ (o / policy.scale) + policy.biases[0])
            + policy.biases[1]
        )
        expected = policy.weights[2] @ h + policy.biases[2]
        assert np.array_equal(again.logits(again.reads(game, o)), expected)
        assert again.act(o, m) == int(np.argmax(np.where(m.astype(bool), expected, -np.inf)))
    with pytest.raises(ConfigError, match="this policy has no value head"):
        again.evaluate(observations[0])


def test_a_shipped_agent_loads_and_saves_as_it_was(tmp_path: Path) -> None:
    net = load_model(AGENTS_DIR / "sechs_nimmt.npz")
    assert (net.padded, net.folds_scale, net.has_value_head, net.activation) == (True, True, True, "relu")
    assert net.head is not None and net.kind == "policy-and-value network"
    net.save(tmp_path / "again.npz")
    (arrays, meta), (old_arrays, old_meta) = (
        stored(tmp_path / "again.npz"),
        stored(AGENTS_DIR / "sechs_nimmt.npz"),
    )
    assert meta == old_meta and sorted(arrays) == sorted(old_arrays)
    assert all(np.array_equal(arrays[k], old_arrays[k]) for k in arrays)
    game = make("sechs_nimmt", 5)
    x = net.reads(game, random_positions(game, 1, seed=1)[0][0])
    assert x.shape == (game.padded_spec.size,) and np.array_equal(net.logits(x), net.evaluate(x)[0])


@pytest.mark.parametrize(("padded", "value"), [(True, False), (False, True)])
def test_every_combination_of_layout_and_value_head_round_trips(
    tmp_path: Path, padded: bool, value: bool
) -> None:
    game = make("heckmeck", 3)
    size = game.padded_spec.size if padded else game.observation_spec.size
    scale = game.padded_spec.scale() if padded else game.observation_spec.scale()
    rng = np.random.default_rng(1)
    model = PolicyValueNet(
        [rng.normal(size=(8, size)), rng.normal(size=(game.num_actions, 8))],
        [rng.normal(size=8), rng.normal(size=game.num_actions)],
        rng.normal(size=8) if value else None,
        np.ones(1) if value else None,
        scale,
        {"game": "heckmeck"},
        activation="tanh",
        padded=padded,
    )
    model.save(tmp_path / "m.npz")
    again = load_model(tmp_path / "m.npz")
    assert (again.padded, again.has_value_head, again.activation, again.meta) == (
        padded,
        value,
        "tanh",
        model.meta,
    )
    again.check_fits(game)
    observations, _, _ = random_positions(game, 5, seed=3)
    batch = again.reads(game, observations)
    assert batch.shape == (5, size)
    assert np.array_equal(model.logits(batch[0]), again.logits(batch[0]))
    if value:  # one call for the batch gives what one call each gives
        logits, values = again.forward(batch)
        for x, row, v in zip(batch, logits, values, strict=True):
            assert np.allclose(row, again.evaluate(x)[0], atol=1e-5) and np.isclose(v, again.evaluate(x)[1])


def test_what_does_not_fit_or_is_no_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no policy file"):
        load_model(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(ConfigError, match=r"text\.npz is not a policy \.npz"):
        load_model(tmp_path / "text.npz")
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(ConfigError, match=r"other\.npz is not a policy \.npz"):
        load_model(tmp_path / "other.npz")

    policy = ppo_policy(make("diamant", 4), meta={"options": []})
    with pytest.raises(ConfigError, match=r"trained for observations of \d+ and \d+ actions; .* has"):
        policy.check_fits(make("diamant", 3), "the policy")
    net = PolicyValueNet.initial(make("heckmeck", 2), (8,))
    net.check_fits(make("heckmeck", 2, quick=True))  # the sizes fit: played as it comes
    with pytest.raises(ConfigError, match="plays with the options none only"):
        net.check_fits(make("heckmeck", 2, quick=True), options=True)
    policy.check_fits(make("diamant", 4), options=True)
    with pytest.raises(ValueError, match="activation must be one of"):
        PolicyValueNet(net.weights, net.biases, None, None, net.scale, {}, activation="gelu")
    with pytest.raises(ValueError, match="a value head needs both"):
        PolicyValueNet(net.weights, net.biases, net.value_w, None, net.scale, {})


def test_a_file_is_played_by_what_it_can_do(tmp_path: Path) -> None:
    game = make("diamant", 4)
    ppo_policy(game).save(tmp_path / "ppo.npz")
    PolicyValueNet.initial(game, (8,)).save(tmp_path / "net.npz")
    policy_bot = make_bot(str(tmp_path / "ppo.npz"), game)
    assert isinstance(policy_bot, PolicyBot) and policy_bot.name == "ppo"
    with pytest.raises(ConfigError, match=r"ppo\.npz is a policy without a value head: it takes no settings"):
        make_bot(f"{tmp_path / 'ppo.npz'}:search=4", game)
    agent = make_bot(f"{tmp_path / 'net.npz'}:search=4", game)
    assert isinstance(agent, AgentBot) and agent.simulations == 4 and agent.net is not None
    # a policy bot plays a padded network too, at any seat count: it reads what the model reads
    three = make("diamant", 3)
    state = three.initial_state()
    at = Seat.of(three, state, three.advance(state, np.random.default_rng(0)))
    assert PolicyBot(agent.net).act(at) == AgentBot(agent.net).act(at)
