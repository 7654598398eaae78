"""Evaluation is a layer of its own: it imports with numpy alone (torch, ONNX Runtime, SB3, Ray, rliable
and matplotlib are loaded only when needed), one module a concern of at most about 500 lines, and its
policies compute on one intra-op thread, in this process and in every worker."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tablezoo.evaluation.play import iter_in_order, one_thread
from tablezoo.evaluation.protocol import play_cell
from tablezoo.games import make

FOLDER = Path(__file__).resolve().parents[2] / "evaluation"
HEAVY = (
    "torch",
    "onnxruntime",
    "onnx",
    "stable_baselines3",
    "sb3_contrib",
    "ray",
    "rliable",
    "matplotlib",
    "openskill",
)

BLOCKED = f"""
import importlib.abc, pkgutil, sys

class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {HEAVY!r}:
            raise ImportError(f"{{name}} is not installed here")
        return None

sys.meta_path.insert(0, Absent())
import tablezoo.evaluation as evaluation
for module in pkgutil.iter_modules(evaluation.__path__):
    __import__(f"tablezoo.evaluation.{{module.name}}")
from tablezoo.evaluation.protocol import run_protocol
result = run_protocol("heuristic", "diamant", [3], ["random"], games=3)
assert result["cells"][0]["games"] == 3
print("ok", sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r}))
"""


def test_evaluation_imports_and_scores_with_numpy_alone() -> None:
    """Every module of tablezoo.evaluation imports, and a bot is scored, with torch and the others absent."""
    done = subprocess.run([sys.executable, "-c", BLOCKED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok []"


def test_one_module_a_concern_none_over_about_500_lines() -> None:
    sizes = {p.name: len(p.read_text().splitlines()) for p in FOLDER.glob("*.py")}
    assert len(sizes) >= 12 and max(sizes.values()) <= 520, sizes


def test_a_torch_policy_is_asked_on_one_thread_and_torchs_setting_is_restored() -> None:
    torch = pytest.importorskip("torch")
    game = make("diamant", 3)
    seen: list[int] = []

    def policy(observation: np.ndarray, mask: np.ndarray) -> int:
        seen.append(torch.get_num_threads())
        return int(np.flatnonzero(mask)[0])

    policy.tablezoo_observation, policy.tablezoo_scaled = "plain", False  # type: ignore[attr-defined]
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        play_cell(policy, game, "random", games=2)
        assert seen and set(seen) == {1}
        assert torch.get_num_threads() == 2
        with one_thread():
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_every_worker_computes_on_one_thread() -> None:
    """Two workers each starting one thread per core oversubscribed the machine (--jobs 2 was slower
    than --jobs 1)."""
    assert list(iter_in_order(os.getenv, ["OMP_NUM_THREADS", "MKL_NUM_THREADS"], 2)) == ["1", "1"]


def test_an_onnx_session_runs_on_one_thread(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    ort = pytest.importorskip("onnxruntime")
    from tablezoo.evaluation import loaders

    game = make("diamant", 3)
    module = torch.nn.Sequential(torch.nn.Linear(game.observation_spec.size, game.num_actions)).eval()
    path = tmp_path / "p.onnx"
    torch.onnx.export(module, (torch.zeros(1, game.observation_spec.size),), str(path), dynamo=False)
    made = []
    real = ort.InferenceSession

    def recording(file: str, options: object = None, **kwargs: object) -> object:
        made.append(options)
        return real(file, options, **kwargs)

    ort.InferenceSession = recording
    try:
        loaders.onnx_bot(path, game, "p", "plain", False)
    finally:
        ort.InferenceSession = real
    (options,) = made
    assert options.intra_op_num_threads == 1 and options.inter_op_num_threads == 1  # type: ignore[attr-defined]
