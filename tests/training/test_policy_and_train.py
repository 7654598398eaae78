"""Trained policies on numpy alone, and a smoke run of training (a few hundred steps)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from tablezoo.bots.policy import NumpyPolicy, PolicyBot
from tablezoo.bots.registry import make_bot
from tablezoo.games import make
from tablezoo.games.core import ConfigError
from tablezoo.training.ppo import config as training_train
from tablezoo.training.ppo.config import (
    HYPERPARAMS,
    TrainConfig,
    load_hyperparams,
    new_run,
    resolve_hyperparams,
)
from tablezoo.training.ppo.sb3 import train

pytest.importorskip("sb3_contrib", reason="needs the train extra")

TINY = {"n_envs": 2, "n_steps": 64, "batch_size": 64, "n_epochs": 2, "net_arch": [16, 16]}
"""Overrides of the packaged hyperparameters (``--hp``) that make a run a smoke run."""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs")
    config = TrainConfig(
        env="diamant_v0",
        num_players=3,
        timesteps=256,
        opponents=["heuristic", "random"],
        self_play=0.5,
        snapshot_every=128,
        eval_every=128,
        eval_games=6,
        hp=TINY,
        out=str(folder),
        progress_bar=False,
        seed=5,
    )
    return train(config, command=["test"])


@pytest.fixture(scope="module")
def head_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6 nimmt!, whose hyperparameters give it an action head; cloned from the heuristic first."""
    folder = tmp_path_factory.mktemp("head_runs")
    config = TrainConfig(
        env="sechs_nimmt_v0",
        num_players=2,
        timesteps=128,
        opponents=["heuristic"],
        eval_every=0,
        teacher="heuristic",
        teacher_decisions=200,
        teacher_epochs=2,
        hp={**TINY, "net_arch": [16, 8], "action_head": 8},
        out=str(folder),
        progress_bar=False,
        seed=6,
    )
    return train(config, command=["test"])


def test_a_run_saves_everything(run: Path) -> None:
    for name in ("config.yaml", "curve.csv", "curve.png", "model.zip", "policy.npz"):
        assert (run / name).exists(), name
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["seed"] == 5 and saved["command"] == ["test"] and saved["num_players"] == 3
    assert saved["resolved_hyperparams"]["n_steps"] == 64
    rows = (run / "curve.csv").read_text().splitlines()
    assert rows[0] == "step,against,win_rate,low,high" and len(rows) >= 3
    assert any((run / "tensorboard").iterdir())


@pytest.mark.parametrize(
    ("which", "game_name", "seats"), [("run", "diamant", 3), ("head_run", "sechs_nimmt", 2)]
)
def test_the_numpy_policy_plays_as_the_sb3_model(
    which: str, game_name: str, seats: int, request: pytest.FixtureRequest
) -> None:
    from sb3_contrib import MaskablePPO

    run = request.getfixturevalue(which)
    model = MaskablePPO.load(run / "model.zip")
    policy = NumpyPolicy.load(run / "policy.npz")
    assert (policy.head is not None) == (game_name == "sechs_nimmt")
    game = make(game_name, seats)
    rng = np.random.default_rng(0)
    checked = 0
    state = game.initial_state()
    while checked < 60:
        if game.advance(state, rng) < 0:  # game over: another one
            state = game.initial_state()
            continue
        seat = game.to_move(state)
        obs, mask = game.observe(state, seat), game.legal_mask(state).astype(bool)
        expected, _ = model.predict(obs / policy.scale, action_masks=mask, deterministic=True)
        assert policy.act(obs, mask) == int(expected)
        logits = (
            model.policy.get_distribution(model.policy.obs_to_tensor(obs / policy.scale)[0])
            .distribution.logits.detach()
            .numpy()[0]
        )
        ours = policy.logits(obs)
        ours = ours - np.log(np.exp(ours - ours.max()).sum()) - ours.max()  # torch keeps log-probabilities
        assert np.allclose(ours, logits, atol=1e-4)
        game.apply(state, int(rng.choice(np.flatnonzero(mask))))
        checked += 1
    assert checked == 60


def test_policy_files_load_as_bots(run: Path) -> None:
    game = make("diamant", 3)
    bot = make_bot(str(run / "policy.npz"), game)
    assert isinstance(bot, PolicyBot)
    with pytest.raises(ConfigError, match="trained for observations of"):
        make_bot(str(run / "policy.npz"), make("diamant", 4))
    with pytest.raises(ConfigError, match="no policy file"):
        make_bot(str(run / "missing.npz"), game)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    policy = NumpyPolicy(
        [rng.normal(size=(4, 3)), rng.normal(size=(2, 4))],
        [rng.normal(size=4), rng.normal(size=2)],
        np.array([1.0, 2.0, 3.0]),
        "relu",
        {"env": "x"},
    )
    policy.save(tmp_path / "p.npz")
    again = NumpyPolicy.load(tmp_path / "p.npz")
    obs = np.array([1.0, 1.0, 1.0])
    assert np.allclose(again.logits(obs), policy.logits(obs)) and again.meta == {"env": "x"}
    assert again.act(obs, np.array([0, 1])) == 1


def test_an_action_head_shares_one_network_across_the_cards() -> None:
    # Two cards with the same hand_* entries differ only by their position input.
    from tablezoo.bots.policy import ActionHead

    rng = np.random.default_rng(2)
    game = make("sechs_nimmt", 2)
    spec = game.observation_spec
    head = ActionHead(
        offsets=[spec.offsets[name] for name in game.action_fields],
        size=game.deck,
        card=np.concatenate([rng.normal(size=(5, 4)), np.zeros((5, 1))], axis=1),  # blind to the position
        context=rng.normal(size=(5, 3)),
        bias=rng.normal(size=5),
        out=rng.normal(size=5),
        out_bias=[0.5],
        rest=rng.normal(size=(4, 3)),
        rest_bias=rng.normal(size=4),
    )
    policy = NumpyPolicy([rng.normal(size=(3, spec.size))], [np.zeros(3)], spec.scale(), head=head)
    assert policy.num_actions == game.num_actions and policy.observation_size == spec.size
    obs = np.zeros(spec.size, np.float32)
    for card in (10, 70):  # each: 3rd card of a row of 4 heads, 5 above its end, 2 unseen cards between
        for name, value in zip(game.action_fields, (2, 4, 5, 2), strict=True):
            obs[spec.offsets[name] + card - 1] = value
    logits = policy.logits(obs)
    assert logits.shape == (game.num_actions,) and logits[9] == pytest.approx(logits[69])
    assert logits[0] != pytest.approx(logits[9])  # a card with empty fields scores otherwise


def test_an_action_head_needs_action_fields(tmp_path: Path) -> None:
    config = TrainConfig(
        env="diamant_v0", num_players=3, timesteps=64, hp={**TINY, "action_head": 8}, out=str(tmp_path)
    )
    with pytest.raises(ConfigError, match="Diamant has no action fields"):
        train(config, command=["test"])
    assert not any(tmp_path.glob("diamant_v0-*")), "no run folder for a run that cannot start"


def test_hp_overrides_the_entry_and_unknown_keys_are_refused() -> None:
    packaged = resolve_hyperparams(HYPERPARAMS, "sechs_nimmt_v0")
    assert packaged["action_head"] == 64 and packaged["n_envs"] == 4
    changed = resolve_hyperparams(HYPERPARAMS, "sechs_nimmt_v0", {"gamma": 0.999, "action_head": None})
    assert changed["gamma"] == 0.999 and "action_head" not in changed  # None drops a key
    assert resolve_hyperparams(HYPERPARAMS, "court_v0", {"n_envs": None})["n_envs"] == 4  # ... to its default
    assert {k: v for k, v in changed.items() if k != "gamma"} == {
        k: v for k, v in packaged.items() if k not in ("gamma", "action_head")
    }
    with pytest.raises(ConfigError, match=r"unknown hyperparameter 'gama'; allowed: .*gamma"):
        resolve_hyperparams(HYPERPARAMS, "court_v0", {"gama": 0.9})


def test_hyperparams_are_keyed_by_env_id() -> None:
    heckmeck = load_hyperparams(TrainConfig().hyperparams, "heckmeck_v0")
    court = load_hyperparams(TrainConfig().hyperparams, "court_v0")
    assert heckmeck["gamma"] != court.get("gamma") or heckmeck["net_arch"] != court["net_arch"]
    assert heckmeck["gae_lambda"] == court["gae_lambda"]  # from `default`
    assert court["learning_rate"] < heckmeck["learning_rate"]  # court_v0's own (the fine-tuning entry)


def test_two_runs_of_the_same_second_get_two_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(training_train.time, "strftime", lambda fmt: "20261203-120000")
    config = TrainConfig(env="diamant_v0", out=str(tmp_path / "runs"), seed=1)
    game = make("diamant", 3)
    runs = [new_run(config, game) for _ in range(3)]
    assert [r.name for r in runs] == [
        "diamant_v0-3p-20261203-120000-s1",
        "diamant_v0-3p-20261203-120000-s1-2",
        "diamant_v0-3p-20261203-120000-s1-3",
    ]
    assert all(r.is_dir() for r in runs)
