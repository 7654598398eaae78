"""Trained policies on numpy alone, and a smoke run of training (a few hundred steps)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from tablezoo.games import make
from tablezoo.games.core import ConfigError
from tablezoo.training.policy import NumpyPolicy, PolicyBot
from tablezoo.training.registry import make_bot
from tablezoo.training.train import TrainConfig, load_hyperparams, train

pytest.importorskip("sb3_contrib", reason="needs the train extra")

TINY = {"default": {"n_envs": 2, "n_steps": 64, "batch_size": 64, "n_epochs": 2, "net_arch": [16, 16]}}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs")
    hyper = folder / "tiny.yml"
    hyper.write_text(yaml.safe_dump(TINY))
    config = TrainConfig(
        env="diamant_v0",
        num_players=3,
        timesteps=256,
        opponents=["heuristic", "random"],
        self_play=0.5,
        snapshot_every=128,
        eval_every=128,
        eval_games=6,
        hyperparams=str(hyper),
        out=str(folder),
        progress_bar=False,
        seed=5,
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


def test_the_numpy_policy_plays_as_the_sb3_model(run: Path) -> None:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run / "model.zip")
    policy = NumpyPolicy.load(run / "policy.npz")
    game = make("diamant", 3)
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


def test_hyperparams_are_keyed_by_env_id() -> None:
    heckmeck = load_hyperparams(TrainConfig().hyperparams, "heckmeck_v0")
    court = load_hyperparams(TrainConfig().hyperparams, "court_v0")
    assert heckmeck["gamma"] != court.get("gamma") or heckmeck["net_arch"] != court["net_arch"]
    assert heckmeck["gae_lambda"] == court["gae_lambda"]  # from `default`
    assert court["learning_rate"] < heckmeck["learning_rate"]  # court_v0's own (the fine-tuning entry)


def test_ship_writes_the_policy_and_a_model_card(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tablezoo.training import registry, ship

    monkeypatch.setattr(ship, "AGENTS_DIR", tmp_path)
    monkeypatch.setattr(registry, "AGENTS_DIR", tmp_path)
    ship.main([str(run), "--games", "6"])
    card = (tmp_path / "diamant-3p.md").read_text()
    assert "| random | 6 |" in card and "| heuristic | 6 |" in card
    assert "tablezoo train diamant_v0 --players 3 --timesteps 256" in card
    game = make("diamant", 3)
    assert "agent" in registry.bot_names(game)
    assert isinstance(make_bot("agent", game), PolicyBot)
