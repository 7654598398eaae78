"""TorchRL: the AEC envs through its ``PettingZooWrapper(use_mask=True)``, masked rollouts.

``raw_env`` raises on an illegal action, and each rollout's actions are
checked against the masks TorchRL recorded, for the seat that was due to act.
The parallel envs do not work with TorchRL yet: it samples the action of
every live agent from its mask, and a seat that waits has an all-zero one.
"""

from __future__ import annotations

import importlib

import pytest

torch = pytest.importorskip("torch", reason="TorchRL needs torch (the train extra)")
pytest.importorskip("torchrl", reason="TorchRL is in the clients extra")

from tensordict import TensorDict  # noqa: E402
from tensordict.nn import TensorDictModule  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.modules import MaskedCategorical, ProbabilisticActor  # noqa: E402

from tablezoo.envs import ENV_MODULES  # noqa: E402

MODULES = {name: importlib.import_module(f"tablezoo.envs.{name}") for name in ENV_MODULES}
SEATS = {"heckmeck_v0": 2, "sechs_nimmt_v0": 3, "diamant_v0": 3, "court_v0": 2}


def _assert_legal(rollout: TensorDict, agents: list[str]) -> int:
    """Every due agent's action is in its mask; the number of actions checked."""
    checked = 0
    for agent in agents:
        acted = rollout[agent, "mask"].reshape(-1)  # TorchRL's mask: the agent had to act
        actions = rollout[agent, "action"].reshape(-1)[acted]
        masks = rollout[agent, "action_mask"].reshape(-1, rollout[agent, "action_mask"].shape[-1])[acted]
        assert masks[torch.arange(len(actions)), actions].all(), f"{agent} acted outside its mask"
        checked += len(actions)
    return checked


def _random_rollout(env: PettingZooWrapper, module: str) -> None:
    rollout = env.rollout(120, break_when_any_done=False)  # random actions drawn from the masked spec
    agents = [f"player_{s}" for s in range(SEATS[module])]
    assert _assert_legal(rollout, agents) >= 120
    for agent in agents:
        assert not rollout["next", agent, "reward"].isnan().any()


@pytest.mark.parametrize("module", ENV_MODULES)
def test_random_masked_rollout_aec(module: str) -> None:
    _random_rollout(
        PettingZooWrapper(env=MODULES[module].raw_env(num_players=SEATS[module]), use_mask=True), module
    )


@pytest.mark.xfail(
    strict=True,
    raises=RuntimeError,
    reason="TorchRL samples every live agent's action from its mask; parallel_env gives the seats "
    "that wait an all-zero mask, which it cannot sample: use the AEC env with TorchRL",
)
def test_random_masked_rollout_parallel_turn_based() -> None:
    env = PettingZooWrapper(env=MODULES["heckmeck_v0"].parallel_env(num_players=2), use_mask=True)
    _random_rollout(env, "heckmeck_v0")


def test_masked_policy_rollout() -> None:
    """A small network behind MaskedCategorical, as a TorchRL policy for one group of seats."""
    torch.manual_seed(0)
    raw = MODULES["heckmeck_v0"].raw_env(num_players=2)
    env = PettingZooWrapper(env=raw, use_mask=True, seed=1)
    size, n_actions = raw.game.observation_spec.size, raw.game.num_actions
    net = torch.nn.Sequential(torch.nn.Linear(size, 32), torch.nn.Tanh(), torch.nn.Linear(32, n_actions))
    actors = []
    for agent in ("player_0", "player_1"):
        logits = TensorDictModule(
            net, in_keys=[(agent, "observation", "observation")], out_keys=[(agent, "logits")]
        )
        actors.append(
            ProbabilisticActor(
                logits,
                in_keys={"logits": (agent, "logits"), "mask": (agent, "action_mask")},
                out_keys=[(agent, "action")],
                distribution_class=MaskedCategorical,
                return_log_prob=True,
                log_prob_key=(agent, "log_prob"),
            )
        )

    def policy(td: TensorDict) -> TensorDict:
        for actor in actors:
            actor(td)
        return td

    rollout = env.rollout(200, policy=policy, break_when_any_done=False)
    assert _assert_legal(rollout, ["player_0", "player_1"]) == 200
    assert rollout["player_0", "log_prob"].isfinite().all()
