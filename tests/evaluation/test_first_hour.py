"""A researcher's first hour: ``python -m tablezoo``, ``tablezoo.__version__``, one-line errors (never a
traceback) for bad counts, missing files and unloadable pickles, ``module:function`` policies on the
command line, ``tablezoo export`` of a torch ``.pt``, and one extra for scoring any policy."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import tablezoo
from tablezoo.commands import main
from tablezoo.evaluation.policies import as_bot
from tablezoo.games import make
from tablezoo.games.core import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablezoo", *args], capture_output=True, text=True, cwd=cwd, timeout=600
    )


def test_python_m_tablezoo_and_the_version() -> None:
    """Today's main: 'No module named tablezoo.__main__', and no tablezoo.__version__."""
    assert tablezoo.__version__ == importlib.metadata.version("tablezoo")
    done = run("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"tablezoo {tablezoo.__version__}"


@pytest.mark.parametrize("games", ["0", "-5"])
def test_a_bad_count_of_games_is_one_line(games: str) -> None:
    """Today's main printed '0/0 games' and an IndexError traceback."""
    for args in (
        ["benchmark", "diamant", "random", "--games", games],
        ["benchmark", "diamant", "--compare", "random", "heuristic", "--games", games],
        ["evaluate", "diamant", "--bots", "random", "--games", games],
    ):
        done = run(*args)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert "--games is the number of games" in done.stderr and "at least 1" in done.stderr


def test_a_missing_or_broken_result_file_is_one_line(tmp_path: Path) -> None:
    """Today's main printed a FileNotFoundError traceback."""
    done = run("benchmark", "diamant", "--rescore", str(tmp_path / "nope.json"))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert f"--rescore {tmp_path / 'nope.json'}: no such file" in done.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    done = run("benchmark", "diamant", "--aggregate", str(broken), str(broken.with_name("x.json")))
    assert done.returncode != 0 and "Traceback" not in done.stderr and "is not JSON" in done.stderr


MODULE = '''
import numpy as np
import torch

N = {size}


def act(observation, mask):
    """Take the highest legal action."""
    return np.flatnonzero(mask)[-1]


act.tablezoo_observation = "plain"
act.tablezoo_scaled = False


class Actor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(N, {actions})
        self.tablezoo_observation = "plain"  # instance attributes: TorchScript keeps them
        self.tablezoo_scaled = False

    def forward(self, x):
        return self.layer(x)
'''


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A module of the user's, ``mypolicies``, in the current folder (not installed)."""
    torch = pytest.importorskip("torch")
    game = make("diamant", 3)
    source = MODULE.format(size=game.observation_spec.size, actions=game.num_actions)
    (tmp_path / "mypolicies.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import mypolicies  # the user's script, as it would be loaded

    torch.manual_seed(0)
    actor = mypolicies.Actor()
    torch.save(actor, tmp_path / "whole.pt")  # pickled with a class only the user's folder knows
    torch.save(actor.state_dict(), tmp_path / "weights.pt")
    torch.jit.script(actor).save(str(tmp_path / "scripted.pt"))
    sys.modules.pop("mypolicies")
    return tmp_path


def test_module_function_and_module_class_at_weights_on_the_command_line(user_module: Path) -> None:
    """Today's main took no callable on the command line, though the README said so."""
    common = ["--players", "3", "--opponents", "random", "--games", "4", "--json"]
    done = run("benchmark", "diamant", "mypolicies:act", *common, cwd=user_module)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["policy"]["name"] == "mypolicies:act" and result["policy"]["sha256"]
    assert result["policy"]["input"]["declared_by"] == "its attributes"
    done = run(
        "benchmark", "diamant", f"mypolicies:Actor@{user_module / 'weights.pt'}", *common, cwd=user_module
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["policy"]["given"] == "mypolicies:Actor@weights.pt"


def test_an_unloadable_pickle_names_the_ways_that_work(
    user_module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Today's main printed a raw unpickling traceback for a module whose class is the user's."""
    monkeypatch.chdir(ROOT)  # elsewhere: the class cannot be imported
    sys.path.remove(str(user_module))
    game = make("diamant", 3)
    with pytest.raises(ConfigError, match=r"cannot be imported here.*TorchScript.*module:Class@"):
        as_bot(str(user_module / "whole.pt"), game)
    with pytest.raises(ConfigError, match=r"holds a state dict.*module:Class@"):
        as_bot(str(user_module / "weights.pt"), game)
    bot = as_bot(str(user_module / "scripted.pt"), game)  # TorchScript loads anywhere
    assert bot.reading.observation == "plain"  # type: ignore[attr-defined]
    done = run("benchmark", "diamant", str(user_module / "whole.pt"), "--games", "2")
    assert done.returncode != 0 and "Traceback" not in done.stderr and "TorchScript" in done.stderr


def test_an_undeclared_onnx_graph_is_told_about_its_metadata(tmp_path: Path) -> None:
    """Today's main told the user to set Python attributes on an ONNX file."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnxruntime")
    game = make("diamant", 3)
    module = torch.nn.Sequential(torch.nn.Linear(game.observation_spec.size, game.num_actions)).eval()
    path = tmp_path / "foreign.onnx"
    torch.onnx.export(module, (torch.zeros(1, game.observation_spec.size),), str(path), dynamo=False)
    with pytest.raises(ConfigError, match=r"tablezoo\.observation.*tablezoo\.scaled") as refused:
        as_bot(str(path), game)
    assert "tablezoo_observation" not in str(refused.value)


def test_export_of_a_torch_pt_is_played_by_the_benchmark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Today's `tablezoo export` took only the package's .npz."""
    pytest.importorskip("onnxruntime")
    actor = ROOT / "benchmarks" / "results" / "protocol" / "policies" / "batched_ppo-diamant-3p-10M-seed0.pt"
    main(
        [
            "export",
            "diamant",
            "--players",
            "3",
            "--policy",
            str(actor),
            "--out",
            str(tmp_path),
            "--positions",
            "40",
        ]
    )
    assert "the same move in 40/40" in capsys.readouterr().out
    (onnx,) = tmp_path.glob("*.onnx")
    game = make("diamant", 3)
    from_onnx, from_torch = as_bot(str(onnx), game), as_bot(str(actor), game)
    assert from_onnx.reading.as_dict()["observation"] == from_torch.reading.as_dict()["observation"]  # type: ignore[attr-defined]
    assert from_onnx.reading.scaled == from_torch.reading.scaled  # type: ignore[attr-defined]
    from tablezoo.evaluation.compare import compare

    same = compare(str(onnx), str(actor), "diamant", seats=[3], opponents=["random"], games=20)
    assert same["difference"] == 0.0


def test_one_extra_installs_what_scoring_any_policy_needs() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {item.split(">")[0].split("<")[0].split("[")[0].split("=")[0] for item in extras["eval"]}
    assert {"torch", "stable-baselines3", "sb3-contrib", "onnxruntime", "rliable"} <= names
