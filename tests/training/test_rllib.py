"""The RLlib adapter and backend: env checks, masking, export, a tiny training, resume, two nodes."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra (pip install 'tablezoo[train,rllib]')")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

import ray
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

from tablezoo.bots.policy import NumpyPolicy
from tablezoo.bots.registry import make_bot
from tablezoo.commands import main
from tablezoo.evaluation.tournament import tournament
from tablezoo.games.core import ConfigError
from tablezoo.training.rllib.backend import (
    MaskedMLPModule,
    RLlibTrainConfig,
    export_policy,
    ppo_settings,
    train_rllib,
)
from tablezoo.wrappers.rllib import MASK_KEY, OBS_KEY, RLlibEnv

GAMES = [("heckmeck_v0", 2), ("sechs_nimmt_v0", 3), ("diamant_v0", 4), ("court_v0", 3)]
TINY = ["n_envs=1", "n_steps=128", "batch_size=64", "n_epochs=2", "net_arch=[16,16]"]
"""``--hp`` overrides that make an RLlib run a smoke run (128 decisions per update)."""


def play_random(env: RLlibEnv, seed: int, rng: np.random.Generator) -> tuple[list[Any], int]:
    """One episode with uniformly random legal actions: the (agent, action, rewards) trail and steps."""
    obs, _ = env.reset(seed=seed)
    trail: list[Any] = []
    while True:
        assert len(obs) == 1, "exactly the learner to move gets an observation"
        ((agent, o),) = obs.items()
        seat = env.possible_agents.index(agent)
        assert env._mover == seat and env._seats[seat] is None  # a learner's own turn
        assert env.observation_spaces[agent].contains(o)
        legal = np.flatnonzero(o[MASK_KEY])
        assert sorted(legal) == sorted(env.game.legal_actions(env.state))
        np.testing.assert_allclose(o[OBS_KEY] * env.scale, env.game.observe(env.state, seat), atol=1e-5)
        action = int(rng.choice(legal))
        obs, rewards, terminated, truncated, _ = env.step({agent: action})
        trail.append((agent, action, dict(rewards)))
        if terminated["__all__"] or truncated["__all__"]:
            assert set(obs) == set(env.agents)  # every learner gets its final observation
            return trail, len(trail)


@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_env_passes_rllib_checks_and_keeps_turns(name: str, seats: int) -> None:
    env = RLlibEnv({"env": name, "num_players": seats, "max_cycles": 2000})
    check_multiagent_environments(env)  # samples an action without the mask: the episode ends, no crash
    rng = np.random.default_rng(0)
    for seed in range(3):
        play_random(env, seed, rng)
    league = RLlibEnv(
        {"env": name, "num_players": seats, "opponents": ["heuristic", "random"], "max_cycles": 2000}
    )
    for seed in range(3):
        play_random(league, seed, rng)
        assert len(league.learners()) == 1  # learner_share 0: one learner, the rest bots


def test_seeded_episodes_repeat_and_differ() -> None:
    config = {
        "env": "diamant_v0",
        "num_players": 4,
        "opponents": ["heuristic", "random"],
        "learner_share": 0.4,
    }
    first = play_random(RLlibEnv(config), 11, np.random.default_rng(1))
    again = play_random(RLlibEnv(config), 11, np.random.default_rng(1))
    other = play_random(RLlibEnv(config), 12, np.random.default_rng(1))
    assert first == again
    assert first != other


def test_zero_sum_rewards_reach_every_learner() -> None:
    env = RLlibEnv({"env": "heckmeck_v0", "num_players": 2, "learner_share": 1.0})
    trail, _ = play_random(env, 3, np.random.default_rng(3))
    totals = dict.fromkeys(env.agents, 0.0)
    for _, _, rewards in trail:
        for agent, value in rewards.items():
            totals[agent] += value
    assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_illegal_action_ends_the_episode_and_is_counted() -> None:
    env = RLlibEnv({"env": "heckmeck_v0", "num_players": 2, "illegal_reward": -5.0})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    _, rewards, terminated, _, infos = env.step({agent: illegal})
    assert terminated["__all__"] and rewards[agent] == -5.0 and infos[agent]["illegal_move"]
    assert env.illegal_moves == 1
    with pytest.raises(RuntimeError, match="reset"):
        env.step({agent: 0})


def test_bad_env_config_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown env_config key 'player'"):
        RLlibEnv({"env": "diamant_v0", "player": 4})
    with pytest.raises(ConfigError, match="no environment 'chess_v0'"):
        RLlibEnv({"env": "chess_v0"})
    with pytest.raises(ConfigError, match="learner_share must be a probability"):
        RLlibEnv({"env": "diamant_v0", "learner_share": 2})
    with pytest.raises(ConfigError, match="no bot 'solver'"):
        RLlibEnv({"env": "diamant_v0", "opponents": ["solver"]})


def test_unsupported_hyperparameters_are_refused() -> None:
    with pytest.raises(ConfigError, match="does not take hyperparameter 'target_kl'"):
        ppo_settings(RLlibTrainConfig(env="diamant_v0", hp={"target_kl": 0.02}))
    with pytest.raises(ConfigError, match="no action head"):
        ppo_settings(RLlibTrainConfig(env="sechs_nimmt_v0", hp={"action_head": 8}))
    _, training = ppo_settings(RLlibTrainConfig(env="sechs_nimmt_v0"))  # the packaged head is dropped
    assert training["model_hidden"] == [256, 64] and training["train_batch_size_per_learner"] == 4096


def module_for(env: RLlibEnv, seed: int) -> MaskedMLPModule:
    torch.manual_seed(seed)
    agent = env.possible_agents[0]
    return MaskedMLPModule(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={"hidden": [32, 16]},
    )


def observations(env: RLlibEnv, episodes: int) -> list[dict[str, np.ndarray]]:
    """The learners' observations over some random games."""
    rng = np.random.default_rng(5)
    seen = []
    for seed in range(episodes):
        obs, _ = env.reset(seed=seed)
        while True:
            ((agent, o),) = obs.items()
            seen.append(o)
            obs, _, terminated, truncated, _ = env.step({agent: int(rng.choice(np.flatnonzero(o[MASK_KEY])))})
            if terminated["__all__"] or truncated["__all__"]:
                break
    return seen


def batch_of(seen: list[dict[str, np.ndarray]]) -> dict[str, Any]:
    return {
        Columns.OBS: {
            OBS_KEY: torch.as_tensor(np.stack([o[OBS_KEY] for o in seen])),
            MASK_KEY: torch.as_tensor(np.stack([o[MASK_KEY] for o in seen])),
        }
    }


@pytest.mark.parametrize(("name", "seats"), GAMES[:3])
def test_masked_module_never_samples_an_illegal_action(name: str, seats: int) -> None:
    env = RLlibEnv({"env": name, "num_players": seats, "learner_share": 1.0})
    seen = observations(env, 3)
    module = module_for(env, 0)
    with torch.no_grad():
        logits = module.forward_exploration(batch_of(seen))[Columns.ACTION_DIST_INPUTS]
        # big untrained logits make the masked ones as tempting as they can be
        dist = TorchCategorical.from_logits(logits)
        actions = torch.stack([dist.sample() for _ in range(50)]).numpy()
    masks = np.stack([o[MASK_KEY] for o in seen])
    assert np.all(np.take_along_axis(masks, actions.T, axis=1) == 1.0)


def test_rllibs_own_action_masking_module_reads_our_observations() -> None:
    """RLlib's example masking module takes the env as it is (no renamed keys, no wrapper)."""
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env = RLlibEnv({"env": "heckmeck_v0", "num_players": 2, "learner_share": 1.0})
    seen = observations(env, 1)
    agent = env.possible_agents[0]
    module = ActionMaskingTorchRLModule(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={"fcnet_hiddens": [16]},
    )
    with torch.no_grad():
        logits = module.forward_exploration(batch_of(seen))[Columns.ACTION_DIST_INPUTS].numpy()
    masks = np.stack([o[MASK_KEY] for o in seen])
    assert np.all((logits > -1e30) == (masks > 0))


@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_exported_policy_picks_the_modules_actions(name: str, seats: int) -> None:
    env = RLlibEnv({"env": name, "num_players": seats, "learner_share": 1.0, "max_cycles": 1000})
    seen = observations(env, 2)
    module = module_for(env, 1)
    policy = export_policy(module, env.scale)
    with torch.no_grad():
        logits = module.forward_inference(batch_of(seen))[Columns.ACTION_DIST_INPUTS].numpy()
    greedy = logits.argmax(axis=1)
    # the npz plays on raw observations, as a bot at a table sees them
    exported = [policy.act(o[OBS_KEY] * env.scale, o[MASK_KEY]) for o in seen]
    assert exported == greedy.tolist()
    legal_logits = np.where(np.stack([o[MASK_KEY] for o in seen]) > 0, logits, np.nan)
    ours = np.stack([policy.logits(o[OBS_KEY] * env.scale) for o in seen])
    np.testing.assert_allclose(
        np.where(np.isnan(legal_logits), np.nan, ours), legal_logits, rtol=1e-4, atol=1e-4
    )


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A small local Ray instance for this module's runs."""
    ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def run(local_ray: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny RLlib run of Diamant 4p from the command line: bots, snapshots and the learner at the table."""
    out = tmp_path_factory.mktemp("rllib_runs")
    args = ["train", "diamant_v0", "--players", "4", "--backend", "rllib", "--timesteps", "256"]
    args += ["--opponents", "heuristic", "random", "--self-play", "0.5", "--snapshot-every", "128"]
    args += [
        "--learner-share",
        "0.3",
        "--eval-every",
        "128",
        "--eval-games",
        "8",
        "--checkpoint-every",
        "128",
    ]
    args += ["--num-env-runners", "1", "--out", str(out), "--no-progress-bar", "--seed", "3"]
    for item in TINY:
        args += ["--hp", item]
    main(args)
    (folder,) = out.iterdir()
    return folder


def test_tiny_training_writes_the_run_folder(run: Path) -> None:
    for name in ("config.yaml", "curve.csv", "curve.png", "policy.npz", "state.json", "cluster.json"):
        assert (run / name).exists(), name
    assert (run / "checkpoint").is_dir() and any((run / "tensorboard").iterdir())
    summary = json.loads((run / "cluster.json").read_text())
    assert summary["steps"] >= 256 and summary["illegal_moves"] == 0
    assert sum(row["steps"] for row in summary["env_runners"]) == summary["steps"]
    rows = list(csv.DictReader((run / "curve.csv").open()))
    assert {r["step"] for r in rows} == {"0", "128", "256"} and {r["against"] for r in rows} == {
        "random",
        "heuristic",
    }
    state = json.loads((run / "state.json").read_text())
    assert len(state["snapshots"]) == 2 and all((run / p).exists() for p in state["snapshots"])
    assert "ray" in (run / "config.yaml").read_text()


def test_trained_policy_exports_exactly_and_sits_at_a_table(run: Path) -> None:
    from ray.rllib.core.rl_module.rl_module import RLModule

    path = run / "checkpoint" / "learner_group" / "learner" / "rl_module" / "learner"
    module = RLModule.from_checkpoint(path)
    env = RLlibEnv({"env": "diamant_v0", "num_players": 4, "learner_share": 1.0})
    seen = observations(env, 2)
    with torch.no_grad():
        greedy = module.forward_inference(batch_of(seen))[Columns.ACTION_DIST_INPUTS].numpy().argmax(axis=1)
    policy = NumpyPolicy.load(run / "policy.npz")
    assert [policy.act(o[OBS_KEY] * env.scale, o[MASK_KEY]) for o in seen] == greedy.tolist()
    game = env.game
    bot = make_bot(str(run / "policy.npz"), game)
    lineup = [("trained", lambda: bot)] + [("heuristic", lambda: make_bot("heuristic", game))] * 3
    standings = tournament(game, lineup, 4, seed=0)
    assert sum(s.games for s in standings) == 16


def test_resume_continues_the_run(run: Path) -> None:
    before = json.loads((run / "state.json").read_text())["steps"]
    main(["train", "diamant_v0", "--backend", "rllib", "--resume", str(run), "--timesteps", "384"])
    state = json.loads((run / "state.json").read_text())
    assert before == 256 and state["steps"] == 384  # one more update of 128 decisions
    assert len(state["snapshots"]) == 3  # the league was restored, then grew
    assert (run / "config-resume.yaml").exists()
    with pytest.raises(SystemExit, match="is a run of diamant_v0, not of heckmeck_v0"):
        main(["train", "heckmeck_v0", "--backend", "rllib", "--resume", str(run)])


def test_sb3_backend_refuses_rllib_flags(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="--num-env-runners: only for --backend rllib"):
        main(["train", "diamant_v0", "--num-env-runners", "2"])
    with pytest.raises(SystemExit, match="--teacher is for the sb3 backend"):
        main(["train", "diamant_v0", "--backend", "rllib", "--teacher", "heuristic", "--no-progress-bar"])


def test_training_on_a_two_node_cluster_steps_envs_on_both(tmp_path: Path) -> None:
    """A head and a worker node on the loopback address, one CPU each: one env runner lands on each."""
    from ray.cluster_utils import Cluster

    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        config = RLlibTrainConfig(
            env="diamant_v0",
            num_players=4,
            timesteps=256,
            opponents=["heuristic"],
            eval_every=0,
            eval_games=4,
            eval_against=["heuristic"],
            hp={"n_envs": 1, "n_steps": 128, "batch_size": 64, "n_epochs": 1, "net_arch": [16, 16]},
            out=str(tmp_path),
            progress_bar=False,
            num_env_runners=2,
            checkpoint_every=0,
            address=cluster.address,
        )
        summary = json.loads((train_rllib(config) / "cluster.json").read_text())
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert len(summary["nodes"]) == 2
    assert len({row["node_id"] for row in summary["env_runners"] if row["steps"] > 0}) == 2
    assert summary["illegal_moves"] == 0
