"""The self-play PPO example (benchmarks/selfplay_ppo.py) runs, logs and resumes (a tiny smoke run)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")
EXAMPLE = Path(__file__).resolve().parents[2] / "benchmarks" / "selfplay_ppo.py"


def test_the_selfplay_example_trains_evaluates_and_resumes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("selfplay_ppo", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = [
        "--game",
        "heckmeck",
        "--num-envs",
        "16",
        "--steps",
        "256",
        "--eval-every",
        "2",
        "--eval-games",
        "16",
    ]
    module.main([*args, "--updates", "2", "--out", str(tmp_path)])
    module.main([*args, "--updates", "3", "--out", str(tmp_path)])  # resumes at update 3
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["update"] for r in rows] == [1, 2, 3]
    assert 0.0 <= rows[1]["win_share_vs_heuristic"] <= 1.0
    assert all(r["decisions"] >= 256 for r in rows)


CLEANRL = Path(__file__).resolve().parents[2] / "benchmarks" / "cleanrl_masked_ppo.py"


def test_the_cleanrl_example_trains_scores_and_resumes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("cleanrl_masked_ppo", CLEANRL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = ["--env", "heckmeck_v0", "--players", "2", "--rollout", "128", "--minibatch", "64"]
    args += ["--eval-games", "8", "--out", str(tmp_path)]
    module.main([*args, "--total-steps", "128"])
    module.main([*args, "--total-steps", "256"])  # resumes from its checkpoint
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and rows[0]["steps"] < rows[1]["steps"]
    assert all(0.0 <= r["win_share"] <= 1.0 for r in rows)
    import torch

    from tablezoo.evaluation.protocol import evaluate
    from tablezoo.games import make

    model = torch.load(tmp_path / "model.pt", weights_only=False)
    assert evaluate(model, make("heckmeck", 2), "random", games=4).games == 4
    by_path = evaluate(str(tmp_path / "model.pt"), make("heckmeck", 2), "random", games=4)
    assert by_path.credits == evaluate(model, make("heckmeck", 2), "random", games=4).credits


def _cleanrl() -> object:
    spec = importlib.util.spec_from_file_location("cleanrl_masked_ppo", CLEANRL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp: Path) -> tuple[list[dict[str, object]], list[object]]:
    import torch

    rows = [json.loads(line) for line in (tmp / "metrics.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("seconds")
    weights = list(torch.load(tmp / "model.pt", weights_only=False).state_dict().values())
    return rows, weights


def test_the_cleanrl_example_is_deterministic_for_its_seed_run_through_or_resumed(tmp_path: Path) -> None:
    import torch

    module = _cleanrl()
    args = ["--env", "heckmeck_v0", "--players", "2", "--rollout", "128", "--minibatch", "64", "--seed", "3"]
    args += ["--eval-every", "256", "--eval-games", "4"]
    module.main([*args, "--total-steps", "512", "--out", str(tmp_path / "a")])  # type: ignore[attr-defined]
    module.main([*args, "--total-steps", "512", "--out", str(tmp_path / "b")])  # type: ignore[attr-defined]
    module.main([*args, "--total-steps", "200", "--out", str(tmp_path / "c")])  # type: ignore[attr-defined]
    module.main([*args, "--total-steps", "512", "--out", str(tmp_path / "c")])  # type: ignore[attr-defined]
    (curve_a, weights_a), (curve_b, weights_b), (curve_c, weights_c) = (
        _run(tmp_path / name) for name in "abc"
    )
    assert curve_a == curve_b and all(torch.equal(x, y) for x, y in zip(weights_a, weights_b, strict=True))
    assert [r for r in curve_c if "win_share" in r] == [r for r in curve_a if "win_share" in r]
    assert [r["steps"] for r in curve_c] == [r["steps"] for r in curve_a]
    assert all(torch.equal(x, y) for x, y in zip(weights_a, weights_c, strict=True))


def test_the_selfplay_example_is_deterministic_for_its_seed(tmp_path: Path) -> None:
    import torch

    spec = importlib.util.spec_from_file_location("selfplay_ppo", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = [
        "--game",
        "heckmeck",
        "--num-envs",
        "8",
        "--steps",
        "128",
        "--eval-every",
        "2",
        "--eval-games",
        "8",
    ]
    args += ["--threads", "1", "--seed", "4", "--updates", "3"]
    module.main([*args, "--out", str(tmp_path / "a")])
    module.main([*args, "--out", str(tmp_path / "b")])

    def run(name: str) -> tuple[list[dict[str, object]], list[object]]:
        rows = [json.loads(line) for line in (tmp_path / name / "metrics.jsonl").read_text().splitlines()]
        kept = [{k: v for k, v in r.items() if not k.endswith("_s")} for r in rows]
        return kept, list(torch.load(tmp_path / name / "actor.pt", weights_only=False).state_dict().values())

    (rows_a, weights_a), (rows_b, weights_b) = run("a"), run("b")
    assert rows_a == rows_b and any("win_share_vs_heuristic" in r for r in rows_a)
    assert all(torch.equal(x, y) for x, y in zip(weights_a, weights_b, strict=True))


def test_a_game_cut_at_the_cap_pays_the_cut_reward_to_every_seat(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("selfplay_ppo", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = ["--game", "court", "--players", "2", "--num-envs", "8", "--steps", "64", "--threads", "1"]
    args += ["--eval-every", "0", "--updates", "1", "--max-cycles", "2"]
    module.main([*args, "--cut-reward", "-1", "--out", str(tmp_path / "lost")])
    module.main([*args, "--out", str(tmp_path / "default")])
    lost, default = (
        json.loads((tmp_path / name / "metrics.jsonl").read_text().splitlines()[0])
        for name in ("lost", "default")
    )
    # two decisions a seat never finish To Court the King: every game is cut, in both runs alike
    assert lost["cut_games"] == default["cut_games"] > 0
    assert lost["decisions"] == default["decisions"]

    # the returns themselves: every decision of a cut game returns -1 with the cut reward, 0 without
    from tablezoo.envs.batched import SelfPlayBatch

    for cut_reward, expected in ((-1.0, -1.0), (0.0, 0.0)):
        batch = SelfPlayBatch("court", 4, 2, seed=1, num_threads=1, padded=True, max_cycles=2)
        obs, infos = batch.reset(seed=1)
        state = {
            "obs": obs,
            "infos": infos,
            "pending": [[] for _ in range(4)],
            "earned": module.np.zeros((4, 2)),
            "reward_scale": 1.0,
            "cut_reward": cut_reward,
            "cut": 0,
        }
        policy = module.Policy(batch.spec.size, batch.game.num_actions)
        data = module.collect(batch, policy, state, 16, module.torch.as_tensor(batch.spec.scale()))
        assert state["cut"] >= 4
        assert set(data["return"].tolist()) == {expected}
