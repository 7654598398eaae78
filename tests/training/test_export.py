"""Export of trained policies to ONNX: the same moves as the numpy policy, and a faithful description."""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from tablezoo.bots.policy import NumpyPolicy
from tablezoo.bots.registry import AGENTS_DIR, shipped_agent
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError
from tablezoo.training import export

AGENTS = sorted(AGENTS_DIR.glob("*.npz"))


def _game_of(path: Path) -> Any:
    name, seats = path.stem.rsplit("-", 1)
    return make(name, int(seats.removesuffix("p")))


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    out = tmp_path_factory.mktemp("exported")
    return {p.stem: export.export_policy(p, _game_of(p), out / p.stem) for p in AGENTS}


def test_there_are_agents_to_export() -> None:
    assert {"heckmeck-2p", "heckmeck-4p", "diamant-4p"} <= {p.stem for p in AGENTS}


@pytest.mark.parametrize("path", AGENTS, ids=lambda p: p.stem)
def test_onnx_runtime_plays_the_same_moves(path: Path, exported: dict[str, tuple[Path, Path]]) -> None:
    onnx_path, _ = exported[path.stem]
    game = _game_of(path)
    result = export.check_export(onnx_path, NumpyPolicy.load(path), game, n=300, seed=1)
    assert result["positions"] == 300 and result["games"] >= 1  # a random Court game is thousands long
    assert result["same_actions"] == 300 and result["agreement"] == 1.0
    assert result["illegal_actions"] == 0 and result["masked_ok"]
    assert result["max_logit_diff"] < 1e-4
    assert result["ok"]


@pytest.mark.parametrize("path", AGENTS, ids=lambda p: p.stem)
def test_illegal_actions_are_never_chosen(path: Path, exported: dict[str, tuple[Path, Path]]) -> None:
    # Random masks, even ones that leave a single action or ban the policy's favourite.
    onnx_path, _ = exported[path.stem]
    game = _game_of(path)
    policy = NumpyPolicy.load(path)
    observations, _, _ = export.random_positions(game, 100, seed=2)
    rng = np.random.default_rng(3)
    masks = (rng.random((100, game.num_actions)) < 0.3).astype(np.float32)
    masks[np.arange(100), rng.integers(game.num_actions, size=100)] = 1.0  # at least one legal
    masks[:10] = 0.0
    masks[np.arange(10), rng.integers(game.num_actions, size=10)] = 1.0  # exactly one legal
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    logits, actions = session.run(None, {"observation": observations, "mask": masks})
    assert actions.dtype == np.int64 and actions.shape == (100,)
    assert np.all(masks[np.arange(100), actions] == 1.0)
    assert np.all(logits[masks == 0] == np.float32(export.MASKED_LOGIT))
    expected = [policy.act(o, m) for o, m in zip(observations, masks, strict=True)]
    assert actions.tolist() == expected


@pytest.mark.parametrize("path", AGENTS, ids=lambda p: p.stem)
def test_the_json_describes_the_game(path: Path, exported: dict[str, tuple[Path, Path]]) -> None:
    onnx_path, json_path = exported[path.stem]
    assert json_path == onnx_path.with_suffix(".json")
    game = _game_of(path)
    spec = game.observation_spec
    desc = json.loads(json_path.read_text())
    assert desc["model"] == onnx_path.name
    assert (desc["game"], desc["num_players"], desc["options"]) == (
        game.info.name,
        game.num_seats,
        dict(game.options),
    )
    assert desc["observation"]["size"] == spec.size
    fields = desc["observation"]["fields"]
    assert [f["name"] for f in fields] == [f.name for f in spec.fields]
    for f in fields:
        assert f["offset"] == spec.offsets[f["name"]]
        assert (f["size"], f["low"], f["high"], f["doc"]) == (
            spec[f["name"]].size, spec[f["name"]].low, spec[f["name"]].high, spec[f["name"]].doc,
        )  # fmt: skip
    assert sum(f["size"] for f in fields) == spec.size
    assert desc["actions"]["count"] == game.num_actions
    assert desc["actions"]["names"] == list(game.action_names)
    inputs = {i["name"]: i for i in desc["inputs"]}
    outputs = {o["name"]: o for o in desc["outputs"]}
    assert inputs["observation"]["shape"] == ["batch", spec.size]
    assert inputs["mask"]["shape"] == outputs["logits"]["shape"] == ["batch", game.num_actions]
    assert outputs["action"]["dtype"] == "int64"
    policy = NumpyPolicy.load(path)
    assert desc["source"]["metadata"] == policy.meta and desc["source"]["shipped"]
    assert desc["source"]["policy"].endswith(path.name)
    assert desc["observation"]["scale"] == pytest.approx(policy.scale.tolist())

    # The graph itself says the same.
    model = onnx.load(onnx_path)
    assert model.opset_import[0].version == export.OPSET
    dims = {
        v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in [*model.graph.input, *model.graph.output]
    }
    assert dims == {
        "observation": ["batch", spec.size],
        "mask": ["batch", game.num_actions],
        "logits": ["batch", game.num_actions],
        "action": ["batch"],
    }
    props = {p.key: p.value for p in model.metadata_props}
    assert json.loads(props["tablezoo.action_names"]) == list(game.action_names)


def test_a_bool_mask_and_a_policy_object(tmp_path: Path) -> None:
    path = AGENTS[0]
    game = _game_of(path)
    policy = NumpyPolicy.load(path)
    onnx_path, json_path = export.export_policy(policy, game, tmp_path / "agent", mask_dtype="bool")
    assert onnx_path.name == "agent.onnx" and json_path.name == "agent.json"
    assert json.loads(json_path.read_text())["inputs"][1]["dtype"] == "bool"
    assert export.check_export(onnx_path, policy, game, n=100)["ok"]


def test_a_relu_policy_and_single_observations(tmp_path: Path) -> None:
    game = make("diamant", 3)
    rng = np.random.default_rng(0)
    sizes = [game.observation_spec.size, 16, 8, game.num_actions]
    weights = [rng.normal(size=(b, a)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    biases = [rng.normal(size=b).astype(np.float32) for b in sizes[1:]]
    policy = NumpyPolicy(weights, biases, game.observation_spec.scale(), "relu", {"note": "test"})
    onnx_path, _ = export.export_policy(policy, game, tmp_path / "relu.onnx")
    assert export.check_export(onnx_path, policy, game, n=100)["ok"]
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    observations, masks, _ = export.random_positions(game, 5, seed=4)
    for o, m in zip(observations, masks, strict=True):
        _, action = session.run(None, {"observation": o[None], "mask": m[None].astype(np.float32)})
        assert int(action[0]) == policy.act(o, m)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_a_policy_with_an_action_head(tmp_path: Path, activation: str) -> None:
    from tablezoo.bots.policy import ActionHead

    game = make("sechs_nimmt", 3, profi=True)
    spec = game.observation_spec
    rng = np.random.default_rng(1)
    fields, size = len(game.action_fields), spec[game.action_fields[0]].size
    head = ActionHead(
        offsets=[spec.offsets[name] for name in game.action_fields],
        size=size,
        card=rng.normal(size=(12, fields + 1)),
        context=rng.normal(size=(12, 8)),
        bias=rng.normal(size=12),
        out=rng.normal(size=12),
        out_bias=rng.normal(size=1),
        rest=rng.normal(size=(game.num_actions - size, 8)),
        rest_bias=rng.normal(size=game.num_actions - size),
    )
    weights = [rng.normal(size=(16, spec.size)) * 0.1, rng.normal(size=(8, 16))]
    biases = [rng.normal(size=16), rng.normal(size=8)]
    policy = NumpyPolicy(weights, biases, spec.scale(), activation, head=head)
    onnx_path, json_path = export.export_policy(policy, game, tmp_path / "head")
    report = export.check_export(onnx_path, policy, game, n=200)
    assert report["ok"], report
    layers = json.loads(json_path.read_text())["source"]["layers"]
    assert layers[:3] == [spec.size, 16, 8] and layers[3]["action_head"]["fields"] == list(game.action_fields)


def test_missing_agent_is_a_config_error(capsys: pytest.CaptureFixture[str]) -> None:
    shipped = {p.stem for p in AGENTS}
    name, seats = next(
        (name, n)
        for name in GAMES
        for n in range(game_class(name).info.min_seats, game_class(name).info.max_seats + 1)
        if f"{name}-{n}p" not in shipped
    )
    with pytest.raises(ConfigError, match=r"no agent is shipped for .* seats; shipped agents: ") as err:
        shipped_agent(make(name, seats))
    for stem in shipped:
        assert stem in str(err.value)
    parser = argparse.ArgumentParser()
    export.add_export_parser(parser.add_subparsers())
    args = parser.parse_args(["export", name, "--players", str(seats)])
    with pytest.raises(ConfigError, match="no agent is shipped"):
        args.func(args)


def test_a_policy_for_another_game_is_refused(tmp_path: Path) -> None:
    policy = NumpyPolicy.load(AGENTS_DIR / "heckmeck-2p.npz")
    with pytest.raises(ConfigError, match="trained for observations of"):
        export.export_policy(policy, make("diamant", 4), tmp_path / "x")
    with pytest.raises(ConfigError, match="no policy file"):
        export.export_policy(tmp_path / "missing.npz", make("diamant", 4), tmp_path / "x")


def test_without_onnx_the_error_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ConfigError, match=r"pip install 'tablezoo\[export\]'"):
        export.export_policy(AGENTS[0], _game_of(AGENTS[0]), tmp_path / "x")


def test_the_command_exports_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    export.add_export_parser(parser.add_subparsers())
    path = AGENTS[0]
    name, seats = path.stem.rsplit("-", 1)
    args = parser.parse_args(
        ["export", name, "--players", seats.removesuffix("p"), "--out", str(tmp_path), "--positions", "50"]
    )
    assert args.policy is None and args.option == []
    args.func(args)
    text = capsys.readouterr().out
    assert f"{path.stem}.onnx" in text and f"{path.stem}.json" in text
    assert "in 50/50 (agreement 1.000)" in text and "illegal actions chosen: 0" in text
    assert (tmp_path / f"{path.stem}.onnx").exists()

    # --policy PATH: the file's stem joins the name.
    args = parser.parse_args(["export", name, "--players", seats.removesuffix("p"), "--policy", str(path),
                              "--out", str(tmp_path), "--positions", "20"])  # fmt: skip
    args.func(args)
    assert (tmp_path / f"{path.stem}-{path.stem}.json").exists()
