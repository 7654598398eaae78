"""Export to ONNX: the same moves and win shares as numpy, the padding as the game's, a faithful description.

Every network and policy here is made with random weights in a temporary folder (the shipped
agents change as they are retrained); ``agents`` points the registry's ``AGENTS_DIR`` at one
network per game, so that the command's default, the shipped agent, is tested for every game.
"""

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

from tablezoo.bots import registry
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.policy import ActionHead, NumpyPolicy
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError, TablezooError
from tablezoo.release import export

NET_CASES = [("heckmeck", 2), ("heckmeck", 7), ("sechs_nimmt", 10), ("diamant", 3), ("court", 5)]
"""Games and seat counts the networks are exported at: the fewest and most seats among them."""


def _net(name: str, seed: int = 0) -> PolicyValueNet:
    net = PolicyValueNet.initial(make(name), (32, 16), seed)
    net.meta["trained"] = {"note": "random weights for a test"}
    return net


def _policy(game: Any, activation: str = "tanh", seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    sizes = [game.observation_spec.size, 16, 8, game.num_actions]
    weights = [rng.normal(size=(b, a)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    biases = [rng.normal(size=b).astype(np.float32) for b in sizes[1:]]
    return NumpyPolicy(weights, biases, game.observation_spec.scale(), activation, {"note": "test"})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    export.add_export_parser(parser.add_subparsers())
    return parser


@pytest.fixture(scope="module")
def net_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder laid out as ``bots/agents``: ``<game>.npz`` for every game, a model card for heckmeck."""
    folder = tmp_path_factory.mktemp("agents")
    for seed, name in enumerate(GAMES):
        _net(name, seed).save(folder / f"{name}.npz")
    (folder / "heckmeck.md").write_text("# the heckmeck agent\n")
    return folder


@pytest.fixture
def agents(net_files: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The registry's shipped agents are the random networks of :func:`net_files`."""
    monkeypatch.setattr(registry, "AGENTS_DIR", net_files)
    return net_files


@pytest.fixture(scope="module")
def exported(net_files: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], Any]:
    """Each case's network exported from its file: (ONNX path, JSON path, network, game)."""
    out = tmp_path_factory.mktemp("exported")
    result = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(registry, "AGENTS_DIR", net_files)
        for name, n in NET_CASES:
            game = make(name, n)
            path = net_files / f"{name}.npz"
            onnx_path, json_path = export.export_policy(path, game, out / f"{name}-{n}p")
            result[name, n] = (onnx_path, json_path, PolicyValueNet.load(path), game)
    return result


def _case_id(case: tuple[str, int]) -> str:
    return f"{case[0]}-{case[1]}p"


# --------------------------------------------------------------------------- networks


@pytest.mark.parametrize("case", NET_CASES, ids=_case_id)
def test_onnx_runtime_plays_the_networks_moves(case: tuple[str, int], exported: dict[Any, Any]) -> None:
    onnx_path, _, net, game = exported[case]
    result = export.check_export(onnx_path, net, game, n=300, seed=1)
    assert result["positions"] == 300 and result["games"] >= 1  # a random Court game is thousands long
    assert result["same_actions"] == 300 and result["agreement"] == 1.0 and result["near_ties"] == 0
    assert result["illegal_actions"] == 0 and result["masked_ok"]
    assert result["max_logit_diff"] < 1e-4 and result["max_value_diff"] < 1e-5
    assert result["ok"]


@pytest.mark.parametrize("case", NET_CASES, ids=_case_id)
def test_the_graph_pads_as_the_game_does(case: tuple[str, int], exported: dict[Any, Any]) -> None:
    # The graph's padded observation, made an output, is exactly Game.pad's.
    onnx_path, _, _, game = exported[case]
    model = onnx.load(onnx_path)
    size = game.padded_spec.size
    model.graph.output.append(
        onnx.helper.make_tensor_value_info("padded", onnx.TensorProto.FLOAT, ["batch", size])
    )
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    observations, masks, _ = export.random_positions(game, 50, seed=5)
    (padded,) = session.run(["padded"], {"observation": observations, "mask": masks.astype(np.float32)})
    assert padded.shape == (50, size)
    np.testing.assert_array_equal(padded, game.pad(observations))
    assert np.all(padded[:, : game.info.max_seats] == np.eye(game.info.max_seats)[game.num_seats - 1])


@pytest.mark.parametrize("case", NET_CASES[:3], ids=_case_id)
def test_illegal_actions_are_never_chosen(case: tuple[str, int], exported: dict[Any, Any]) -> None:
    # Random masks, even ones that leave a single action or ban the network's favourite; the move
    # is the agent bot's: the legal action with the highest logit.
    onnx_path, _, net, game = exported[case]
    observations, _, _ = export.random_positions(game, 100, seed=2)
    rng = np.random.default_rng(3)
    masks = (rng.random((100, game.num_actions)) < 0.3).astype(np.float32)
    masks[np.arange(100), rng.integers(game.num_actions, size=100)] = 1.0  # at least one legal
    masks[:10] = 0.0
    masks[np.arange(10), rng.integers(game.num_actions, size=10)] = 1.0  # exactly one legal
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    logits, actions, values = session.run(None, {"observation": observations, "mask": masks})
    assert actions.dtype == np.int64 and actions.shape == (100,) and values.shape == (100,)
    assert np.all(masks[np.arange(100), actions] == 1.0)
    assert np.all(logits[masks == 0] == np.float32(export.MASKED_LOGIT))
    expected, shares = [], []
    for o, m in zip(observations, masks, strict=True):
        net_logits, share = net.evaluate(game.pad(o))
        legal = np.flatnonzero(m)
        expected.append(int(legal[np.argmax(net_logits[legal])]))
        shares.append(share)
    assert actions.tolist() == expected
    np.testing.assert_allclose(values, shares, atol=1e-6)
    assert np.all((values > 0) & (values < 1))


@pytest.mark.parametrize("case", NET_CASES, ids=_case_id)
def test_the_json_describes_the_network(case: tuple[str, int], exported: dict[Any, Any]) -> None:
    onnx_path, json_path, net, game = exported[case]
    assert json_path == onnx_path.with_suffix(".json")
    spec, padded = game.observation_spec, game.padded_spec
    desc = json.loads(json_path.read_text())
    assert desc["model"] == onnx_path.name
    assert (desc["game"], desc["num_players"], desc["seat_counts"], desc["options"]) == (
        game.info.name,
        game.num_seats,
        [game.num_seats],
        dict(game.options),
    )
    assert desc["observation"]["size"] == spec.size
    fields = desc["observation"]["fields"]
    assert [f["name"] for f in fields] == [f.name for f in spec.fields]
    for f in fields:
        assert (f["offset"], f["size"], f["low"], f["high"], f["doc"]) == (
            spec.offsets[f["name"]], spec[f["name"]].size, spec[f["name"]].low, spec[f["name"]].high,
            spec[f["name"]].doc,
        )  # fmt: skip
    assert sum(f["size"] for f in fields) == spec.size

    # The padding, followed by hand, gives Game.pad's vector; the scale is the network's, entry by entry.
    padding = desc["padding"]
    assert padding["in_graph"] and padding["size"] == padded.size
    assert list(padding["index"]) == [str(game.num_seats)]
    observations, _, _ = export.random_positions(game, 20, seed=6)
    by_hand = np.zeros((20, padded.size), np.float32)
    by_hand[:, padding["index"][str(game.num_seats)]] = observations
    by_hand[:, padding["seats_offset"] + game.num_seats - 1] = 1.0
    np.testing.assert_array_equal(by_hand, game.pad(observations))
    assert [f["name"] for f in padding["fields"]] == [f.name for f in padded.fields]
    assert padding["scale"] == pytest.approx(net.scale.tolist())
    assert desc["observation"]["scale"] == pytest.approx(
        net.scale[padding["index"][str(game.num_seats)]].tolist()
    )

    assert desc["actions"] == {"count": game.num_actions, "names": list(game.action_names)}
    inputs = {i["name"]: i for i in desc["inputs"]}
    outputs = {o["name"]: o for o in desc["outputs"]}
    assert inputs["observation"]["shape"] == ["batch", spec.size]
    assert inputs["mask"]["shape"] == outputs["logits"]["shape"] == ["batch", game.num_actions]
    assert outputs["action"]["dtype"] == "int64"
    assert outputs["value"]["shape"] == ["batch"] and "win share" in outputs["value"]["doc"]

    # Where the network came from: the shipped file, its checksum, its card and its meta.
    source = desc["source"]
    assert source["network"] == f"tablezoo/bots/agents/{game.info.name}.npz" and source["shipped"]
    assert len(source["sha256"]) == 64
    assert ("model_card" in source) == (game.info.name == "heckmeck")
    assert source["metadata"] == net.meta and source["metadata"]["trained"]["note"].startswith("random")
    if game.action_fields:  # 6 nimmt!'s cards are scored by one shared head
        head = {"fields": list(game.action_fields), "actions": 104, "hidden": 64, "others": 4}
        assert source["layers"] == [padded.size, 32, 16, {"action_head": head}]
    else:
        assert source["layers"] == [padded.size, 32, 16, game.num_actions]

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
        "value": ["batch"],
    }
    props = {p.key: p.value for p in model.metadata_props}
    assert json.loads(props["tablezoo.action_names"]) == list(game.action_names)
    assert (props["tablezoo.num_players"], props["tablezoo.padded"]) == (str(game.num_seats), "false")


def test_a_padded_graph_serves_every_seat_count(tmp_path: Path) -> None:
    net = _net("heckmeck")
    game = make("heckmeck", 3)
    onnx_path, json_path = export.export_policy(net, game, tmp_path / "heckmeck-padded", padded=True)
    for n in game.info.seat_range:
        result = export.check_export(onnx_path, net, make("heckmeck", n), n=100, seed=n)
        assert result["ok"] and result["same_actions"] == 100, result
    desc = json.loads(json_path.read_text())
    assert desc["num_players"] is None and desc["seat_counts"] == list(game.info.seat_range)
    assert desc["inputs"][0]["shape"] == ["batch", game.padded_spec.size]
    assert desc["observation"]["size"] == game.padded_spec.size
    assert desc["observation"]["fields"][0]["name"] == "seats"
    assert not desc["padding"]["in_graph"]
    for n in game.info.seat_range:
        g = make("heckmeck", n)
        observation = export.random_positions(g, 1, seed=n)[0][0]
        by_hand = np.zeros(game.padded_spec.size, np.float32)
        by_hand[desc["padding"]["index"][str(n)]] = observation
        by_hand[desc["padding"]["seats_offset"] + n - 1] = 1.0
        np.testing.assert_array_equal(by_hand, g.pad(observation))
    props = {p.key: p.value for p in onnx.load(onnx_path).metadata_props}
    assert (props["tablezoo.num_players"], props["tablezoo.padded"]) == ("any", "true")
    with pytest.raises(ConfigError, match="policy of one seat count"):
        export.export_policy(_policy(game), game, tmp_path / "x", padded=True)


def test_the_check_catches_another_network(tmp_path: Path) -> None:
    game = make("diamant", 4)
    onnx_path, _ = export.export_policy(_net("diamant", 1), game, tmp_path / "one")
    result = export.check_export(onnx_path, _net("diamant", 2), game, n=100)
    assert not result["ok"] and result["max_value_diff"] > 1e-4


@pytest.mark.parametrize("step", [1e-8, 1e-3])
def test_only_near_ties_may_break_either_way(tmp_path: Path, step: float) -> None:
    # The graph's logits are all 0, so it plays the first legal action; numpy's rise by `step`
    # per action, so it plays the last. A gap far below TIE is rounding; 1e-3 is a wrong export.
    game = make("heckmeck", 2)
    flat = _policy(game)
    flat.weights[-1][:] = 0.0
    flat.biases[-1][:] = 0.0
    rising = NumpyPolicy(flat.weights, [*flat.biases[:-1], step * np.arange(game.num_actions)], flat.scale)
    onnx_path, _ = export.export_policy(flat, game, tmp_path / "flat")
    result = export.check_export(onnx_path, rising, game, n=100)
    assert result["same_actions"] < 100 and result["illegal_actions"] == 0
    if step < export.TIE / game.num_actions:
        assert result["same_actions"] + result["near_ties"] == 100 and result["ok"]
    else:
        assert result["near_ties"] == 0 and not result["ok"]


def test_a_bool_mask_and_a_network_object(tmp_path: Path) -> None:
    game = make("court", 3)
    net = _net("court")
    onnx_path, json_path = export.export_policy(net, game, tmp_path / "agent", mask_dtype="bool")
    assert onnx_path.name == "agent.onnx" and json_path.name == "agent.json"
    desc = json.loads(json_path.read_text())
    assert desc["inputs"][1]["dtype"] == "bool"
    assert "network" not in desc["source"] and desc["source"]["metadata"] == net.meta
    assert export.check_export(onnx_path, net, game, n=100)["ok"]


# --------------------------------------------------------------------------- PPO policies of one seat count


def test_a_policy_exports_as_before(tmp_path: Path) -> None:
    game = make("heckmeck", 2)
    policy = _policy(game)
    policy.save(tmp_path / "policy.npz")
    onnx_path, json_path = export.export_policy(
        tmp_path / "policy.npz", game, tmp_path / "out" / "heckmeck-2p"
    )
    report = export.check_export(onnx_path, tmp_path / "policy.npz", game, n=200, seed=1)
    assert report["ok"] and report["same_actions"] == 200 and report["max_value_diff"] is None, report
    desc = json.loads(json_path.read_text())
    assert "padding" not in desc and [o["name"] for o in desc["outputs"]] == ["logits", "action"]
    assert desc["observation"]["scale"] == pytest.approx(policy.scale.tolist())
    assert desc["source"]["policy"] == "policy.npz" and not desc["source"]["shipped"]
    assert desc["source"]["metadata"] == NumpyPolicy.load(tmp_path / "policy.npz").meta
    assert desc["source"]["layers"] == [game.observation_spec.size, 16, 8, game.num_actions]
    dims = {v.name for v in onnx.load(onnx_path).graph.output}
    assert dims == {"logits", "action"}


def test_a_relu_policy_with_a_bool_mask_and_single_observations(tmp_path: Path) -> None:
    game = make("diamant", 3)
    policy = _policy(game, "relu")
    onnx_path, _ = export.export_policy(policy, game, tmp_path / "relu.onnx", mask_dtype="bool")
    assert export.check_export(onnx_path, policy, game, n=100)["ok"]
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    observations, masks, _ = export.random_positions(game, 5, seed=4)
    for o, m in zip(observations, masks, strict=True):
        _, action = session.run(None, {"observation": o[None], "mask": m[None].astype(bool)})
        assert int(action[0]) == policy.act(o, m)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_a_policy_with_an_action_head(tmp_path: Path, activation: str) -> None:
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


# --------------------------------------------------------------------------- errors


def test_what_does_not_fit_is_refused(tmp_path: Path) -> None:
    diamant = make("diamant", 4)
    with pytest.raises(ConfigError, match="plays 'heckmeck', not 'diamant'"):
        export.export_policy(_net("heckmeck"), diamant, tmp_path / "x")
    with pytest.raises(ConfigError, match="trained for observations of"):
        export.export_policy(_policy(make("heckmeck", 2)), diamant, tmp_path / "x")
    with pytest.raises(ConfigError, match="trained for observations of"):  # a policy of another seat count
        export.export_policy(_policy(make("diamant", 3)), diamant, tmp_path / "x")
    with pytest.raises(ConfigError, match="plays with the options none only"):
        export.export_policy(_net("sechs_nimmt"), make("sechs_nimmt", 4, profi=True), tmp_path / "x")
    with pytest.raises(ConfigError, match="no policy file"):
        export.export_policy(tmp_path / "missing.npz", diamant, tmp_path / "x")
    (tmp_path / "text.npz").write_text("not an archive")
    with pytest.raises(ConfigError, match=r"is not a policy \.npz"):
        export.export_policy(tmp_path / "text.npz", diamant, tmp_path / "x")
    with pytest.raises(ConfigError, match="float32 or bool"):
        export.export_policy(_net("diamant"), diamant, tmp_path / "x", mask_dtype="int8")


def test_without_onnx_the_error_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ConfigError, match=r"pip install 'tablezoo\[export\]'"):
        export.export_policy(_net("heckmeck"), make("heckmeck", 2), tmp_path / "x")


def test_a_missing_agent_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _net("heckmeck").save(tmp_path / "heckmeck.npz")
    monkeypatch.setattr(registry, "AGENTS_DIR", tmp_path)
    with pytest.raises(ConfigError, match=r"no agent is shipped for Diamant; shipped agents: heckmeck$"):
        registry.shipped_agent(make("diamant", 4))
    args = _parser().parse_args(["export", "diamant", "--players", "4", "--out", str(tmp_path)])
    with pytest.raises(ConfigError, match=r"no agent is shipped .*\(or pass --policy PATH\)"):
        args.func(args)
    args = _parser().parse_args(["export", "heckmeck", "--padded", "--players", "2"])
    with pytest.raises(ConfigError, match="--padded exports one graph for every seat count"):
        args.func(args)


# --------------------------------------------------------------------------- the command


@pytest.mark.parametrize("name", list(GAMES))
def test_the_command_exports_and_checks_the_shipped_agent(
    name: str, agents: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seats = game_class(name).info.min_seats
    args = _parser().parse_args(
        ["export", name, "--players", str(seats), "--out", str(tmp_path), "--positions", "40"]
    )
    assert args.policy is None and args.option == [] and not args.padded
    args.func(args)
    text = capsys.readouterr().out
    stem = f"{name}-{seats}p"
    assert f"the shipped agent {name}.npz (policy-and-value network)" in text
    assert f"{stem}.onnx" in text and f"{stem}.json" in text
    assert "in 40/40 (agreement 1.000)" in text and "illegal actions chosen: 0" in text
    assert "win-share difference" in text
    desc = json.loads((tmp_path / f"{stem}.json").read_text())
    assert desc["source"]["network"] == f"tablezoo/bots/agents/{name}.npz" and desc["source"]["shipped"]
    assert desc["source"]["metadata"] == PolicyValueNet.load(agents / f"{name}.npz").meta
    assert (tmp_path / f"{stem}.onnx").exists()


def test_the_command_exports_a_padded_graph_and_files(
    agents: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _parser().parse_args(
        ["export", "diamant", "--padded", "--out", str(tmp_path), "--positions", "30"]
    )
    args.func(args)
    text = capsys.readouterr().out
    assert (tmp_path / "diamant-padded.onnx").exists() and "every seat count" in text
    seats = game_class("diamant").info.seat_range
    assert text.count("in 30/30 (agreement 1.000)") == len(seats)
    for n in seats:
        assert f"checked: {n} seats" in text

    # --policy PATH: the file's stem joins the name; a network or a PPO policy.
    _net("diamant", 7).save(tmp_path / "mine.npz")
    _policy(make("diamant", 4)).save(tmp_path / "ppo.npz")
    for stem in ("mine", "ppo"):
        path = str(tmp_path / f"{stem}.npz")
        args = _parser().parse_args(
            [
                "export",
                "diamant",
                "--players",
                "4",
                "--policy",
                path,
                "--out",
                str(tmp_path),
                "--positions",
                "20",
            ]
        )
        args.func(args)
        desc = json.loads((tmp_path / f"diamant-4p-{stem}.json").read_text())
        assert not desc["source"]["shipped"]
        assert ("value" in {o["name"] for o in desc["outputs"]}) == (stem == "mine")  # a PPO policy has none
    args = _parser().parse_args(["export", "diamant", "--padded", "--policy", str(tmp_path / "ppo.npz")])
    with pytest.raises(ConfigError, match="policy of one seat count"):
        args.func(args)


def test_the_command_fails_when_the_check_fails(
    agents: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = export.check_export

    def against_another_network(onnx_path: Any, model: Any, game: Any, n: int, seed: int) -> dict[str, Any]:
        return real(onnx_path, _net(game.info.name, 99), game, n, seed)

    monkeypatch.setattr(export, "check_export", against_another_network)
    args = _parser().parse_args(["export", "heckmeck", "--out", str(tmp_path), "--positions", "20"])
    with pytest.raises(TablezooError, match="the ONNX export disagrees with numpy"):
        args.func(args)
