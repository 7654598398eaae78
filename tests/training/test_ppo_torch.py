"""The package's plain-PyTorch PPO trainers (the baselines' ``cleanrl_ppo`` and ``batched_ppo``):
deterministic for a seed, run through or resumed, and a cut game paid as asked."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablezoo.games.native import available

torch = pytest.importorskip("torch", reason="the trainers need torch (the train extra)")


def _run(folder: Path, model: str) -> tuple[list[dict[str, Any]], list[Any]]:
    rows = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    kept = [{k: v for k, v in row.items() if k != "seconds" and not k.endswith("_s")} for row in rows]
    return kept, list(torch.load(folder / model, weights_only=False).state_dict().values())


def test_cleanrl_ppo_is_deterministic_for_its_seed_run_through_or_resumed(tmp_path: Path) -> None:
    from tablezoo.training.ppo.cleanrl import CleanRLConfig, train_cleanrl_ppo

    config = CleanRLConfig(
        out=tmp_path / "a", env="heckmeck_v0", num_players=2, rollout=128, minibatch=64, seed=3,
        eval_every=256, eval_games=4, total_steps=512,
    )  # fmt: skip
    train_cleanrl_ppo(config)
    train_cleanrl_ppo(replace(config, out=tmp_path / "b"))
    train_cleanrl_ppo(replace(config, out=tmp_path / "c", total_steps=200))  # stopped, then resumed
    train_cleanrl_ppo(replace(config, out=tmp_path / "c"))
    (curve_a, weights_a), (curve_b, weights_b), (curve_c, weights_c) = (
        _run(tmp_path / name, "model.pt") for name in "abc"
    )
    assert curve_a == curve_b and all(torch.equal(x, y) for x, y in zip(weights_a, weights_b, strict=True))
    assert [r for r in curve_c if "win_share" in r] == [r for r in curve_a if "win_share" in r]
    assert [r["steps"] for r in curve_c] == [r["steps"] for r in curve_a]
    assert all(torch.equal(x, y) for x, y in zip(weights_a, weights_c, strict=True))


@pytest.mark.skipif(not available(), reason="the native core is not built")
def test_selfplay_ppo_is_deterministic_for_its_seed(tmp_path: Path) -> None:
    from tablezoo.training.ppo.batched_selfplay import SelfPlayConfig, train_selfplay_ppo

    config = SelfPlayConfig(
        out=tmp_path / "a", game="heckmeck", num_envs=8, steps=128, eval_every=2, eval_games=8,
        threads=1, seed=4, updates=3,
    )  # fmt: skip
    train_selfplay_ppo(config)
    train_selfplay_ppo(replace(config, out=tmp_path / "b"))
    (rows_a, weights_a), (rows_b, weights_b) = (
        _run(tmp_path / "a", "actor.pt"),
        _run(tmp_path / "b", "actor.pt"),
    )
    assert rows_a == rows_b and any("win_share_vs_heuristic" in r for r in rows_a)
    assert all(torch.equal(x, y) for x, y in zip(weights_a, weights_b, strict=True))


@pytest.mark.skipif(not available(), reason="the native core is not built")
def test_a_game_cut_at_the_cap_pays_the_cut_reward_to_every_seat(tmp_path: Path) -> None:
    from tablezoo.envs.batched import SelfPlayBatch
    from tablezoo.training.ppo.batched_selfplay import Policy, SelfPlayConfig, collect, train_selfplay_ppo

    config = SelfPlayConfig(
        out=tmp_path / "lost", game="court", num_players=2, num_envs=8, steps=64, threads=1,
        eval_every=0, updates=1, max_cycles=2, cut_reward=-1.0,
    )  # fmt: skip
    train_selfplay_ppo(config)
    train_selfplay_ppo(replace(config, out=tmp_path / "default", cut_reward=0.0))
    lost, default = (
        json.loads((tmp_path / name / "metrics.jsonl").read_text().splitlines()[0])
        for name in ("lost", "default")
    )
    # two decisions a seat never finish To Court the King: every game is cut, in both runs alike
    assert lost["cut_games"] == default["cut_games"] > 0
    assert lost["decisions"] == default["decisions"]

    # the returns themselves: every decision of a cut game returns -1 with the cut reward, 0 without
    for cut_reward, expected in ((-1.0, -1.0), (0.0, 0.0)):
        batch = SelfPlayBatch("court", 4, 2, seed=1, num_threads=1, padded=True, max_cycles=2)
        obs, infos = batch.reset(seed=1)
        state = {
            "obs": obs,
            "infos": infos,
            "pending": [[] for _ in range(4)],
            "earned": np.zeros((4, 2)),
            "reward_scale": 1.0,
            "cut_reward": cut_reward,
            "cut": 0,
        }
        policy = Policy(batch.spec.size, batch.game.num_actions)
        data = collect(batch, policy, state, 16, torch.as_tensor(batch.spec.scale()))
        assert state["cut"] >= 4
        assert set(data["return"].tolist()) == {expected}
