"""Export a trained policy to ONNX, with a JSON description, and check it with ONNX Runtime.

    tablezoo export heckmeck --players 2            # the shipped agent -> exported/heckmeck-2p.onnx
    tablezoo export diamant --players 4 --policy runs/<run>/policy.npz --out web/

The graph is built straight from the numpy weights of a :class:`NumpyPolicy`
with the ``onnx`` package (the ``export`` extra; no torch). It computes exactly
what :meth:`NumpyPolicy.act` does, for a batch:

* input ``observation``: float32 ``[batch, obs_size]``, the raw observation as
  the game gives it (the graph divides it by the policy's scale itself);
* input ``mask``: float32 ``[batch, num_actions]`` (or bool, see
  :func:`export_policy`), nonzero for a legal action;
* output ``logits``: float32 ``[batch, num_actions]``, illegal actions set to
  :data:`MASKED_LOGIT` (the most negative float32, finite so that a softmax of
  them is 0 and nothing turns into NaN);
* output ``action``: int64 ``[batch]``, the argmax of ``logits`` (the first one
  on ties, as numpy's).

``<name>.json`` beside the graph says what a front end in another language
needs: the observation fields (offsets, bounds, meaning), the command word of
every action, the inputs and outputs, and where the policy came from.
:func:`check_export` replays random games and compares ONNX Runtime's moves
with the numpy policy's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.policy import NumpyPolicy
from tablezoo.bots.registry import AGENTS_DIR, check_policy_fits, shipped_agent
from tablezoo.games import GAMES, make
from tablezoo.games.core import TERMINAL, ConfigError, Game, TablezooError

OPSET = 17
"""ONNX opset of the exported graphs (onnxruntime >= 1.14 and onnxruntime-web run it)."""
MASKED_LOGIT = float(np.finfo(np.float32).min)
"""The logit of an illegal action in the exported graph's ``logits``."""
FORMAT = "tablezoo-onnx-policy/1"
"""The ``format`` key of the JSON description."""

_ONNX_OPS = {"tanh": "Tanh", "relu": "Relu"}
_INSTALL = "pip install 'tablezoo[export]'"


def _onnx() -> Any:
    try:
        import onnx
    except ImportError as err:
        raise ConfigError(f"exporting to ONNX needs the onnx package: {_INSTALL}") from err
    return onnx


def _onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as err:
        raise ConfigError(f"checking an export needs onnxruntime: {_INSTALL}") from err
    return onnxruntime


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tablezoo")
    except PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------- the graph


def build_model(policy: NumpyPolicy, game: Game[Any], mask_dtype: str = "float32") -> Any:
    """The ONNX model (an ``onnx.ModelProto``) of ``policy`` for ``game``."""
    onnx = _onnx()
    from onnx import TensorProto, helper, numpy_helper

    if mask_dtype not in ("float32", "bool"):
        raise ConfigError(f"the mask is float32 or bool, not {mask_dtype!r}")
    check_policy_fits(policy, game, "the policy")
    obs_size, num_actions = policy.observation_size, policy.num_actions
    mask_type = TensorProto.FLOAT if mask_dtype == "float32" else TensorProto.BOOL

    inits = [numpy_helper.from_array(policy.scale.astype(np.float32), "scale")]
    nodes = [helper.make_node("Div", ["observation", "scale"], ["x0"], name="scale_observation")]
    x = "x0"
    last = len(policy.weights) - 1 if policy.head is None else len(policy.weights)
    for i, (w, b) in enumerate(zip(policy.weights, policy.biases, strict=True)):
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        out = "raw_logits" if i == last else f"z{i + 1}"
        # w is (out, in) as in NumpyPolicy (w @ x + b); a batch of rows is x @ w.T + b.
        nodes.append(helper.make_node("Gemm", [x, f"w{i}", f"b{i}"], [out], name=f"layer{i}", transB=1))
        if i != last:
            x = f"h{i + 1}"
            nodes.append(helper.make_node(_ONNX_OPS[policy.activation], [out], [x], name=f"act{i}"))
    if policy.head is not None:
        head_inits, head_nodes = _head_graph(policy, "x0", x, "raw_logits")
        inits += head_inits
        nodes += head_nodes
    inits.append(numpy_helper.from_array(np.array(MASKED_LOGIT, np.float32), "masked_logit"))
    if mask_dtype == "float32":
        nodes.append(helper.make_node("Cast", ["mask"], ["legal"], name="mask_to_bool", to=TensorProto.BOOL))
        legal = "legal"
    else:
        legal = "mask"
    nodes += [
        helper.make_node("Where", [legal, "raw_logits", "masked_logit"], ["logits"], name="mask_illegal"),
        helper.make_node("ArgMax", ["logits"], ["action"], name="choose", axis=1, keepdims=0),
    ]
    graph = helper.make_graph(
        nodes,
        f"tablezoo_{game.info.name}_{game.num_seats}p_policy",
        inputs=[
            helper.make_tensor_value_info("observation", TensorProto.FLOAT, ["batch", obs_size]),
            helper.make_tensor_value_info("mask", mask_type, ["batch", num_actions]),
        ],
        outputs=[
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", num_actions]),
            helper.make_tensor_value_info("action", TensorProto.INT64, ["batch"]),
        ],
        initializer=inits,
        doc_string="raw observation and legal-action mask in; masked logits and the chosen action out",
    )
    opset = [helper.make_opsetid("", OPSET)]
    model = helper.make_model(
        graph,
        opset_imports=opset,
        producer_name="tablezoo",
        producer_version=_version(),
        doc_string=f"tablezoo policy for {game.info.title}, {game.num_seats} seats",
    )
    model.ir_version = helper.find_min_ir_version_for(opset)
    helper.set_model_props(
        model,
        {
            "tablezoo.game": game.info.name,
            "tablezoo.num_players": str(game.num_seats),
            "tablezoo.options": json.dumps(dict(game.options)),
            "tablezoo.action_names": json.dumps(list(game.action_names)),
        },
    )
    onnx.checker.check_model(model, full_check=True)
    return model


def _head_graph(policy: NumpyPolicy, observation: str, context: str, out: str) -> tuple[list[Any], list[Any]]:
    """Initializers and nodes of an :class:`~tablezoo.bots.policy.ActionHead`: ``out`` from the
    scaled ``observation`` and the hidden layers' ``context`` (both ``[batch, ...]``)."""
    from onnx import helper, numpy_helper

    head = policy.head
    assert head is not None
    fields, size = len(head.offsets), head.size
    # card @ [f_1..f_F, position] + bias = fields part + (position * its column + bias), the latter a constant
    constant = head.position * head.card[:, -1] + head.bias  # (K, H)
    arrays = {
        "head_index": head.index,
        "head_shape": np.array([-1, fields, size], np.int64),
        "head_card": np.ascontiguousarray(head.card[:, :-1].T),  # (F, H)
        "head_constant": constant.astype(np.float32),
        "head_context": np.ascontiguousarray(head.context.T),  # (G, H)
        "head_axis": np.array([1], np.int64),
        "head_out": head.out.reshape(-1, 1),  # (H, 1)
        "head_scores_shape": np.array([-1, size], np.int64),
        "head_out_bias": head.out_bias,
        "head_rest": head.rest,
        "head_rest_bias": head.rest_bias,
    }
    inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in arrays.items()]
    act = _ONNX_OPS[policy.activation]
    node = helper.make_node
    nodes = [
        node("Gather", [observation, "head_index"], ["head_flat"], name="head_gather", axis=1),
        node("Reshape", ["head_flat", "head_shape"], ["head_by_field"], name="head_by_field"),
        node("Transpose", ["head_by_field"], ["head_by_action"], name="head_by_action", perm=[0, 2, 1]),
        node("MatMul", ["head_by_action", "head_card"], ["head_cards"], name="head_cards"),
        node("Add", ["head_cards", "head_constant"], ["head_placed"], name="head_placed"),
        node("MatMul", [context, "head_context"], ["head_ctx"], name="head_ctx"),
        node("Unsqueeze", ["head_ctx", "head_axis"], ["head_ctx1"], name="head_ctx1"),
        node("Add", ["head_placed", "head_ctx1"], ["head_z"], name="head_z"),
        node(act, ["head_z"], ["head_h"], name="head_act"),
        node("MatMul", ["head_h", "head_out"], ["head_s"], name="head_score"),
        node("Reshape", ["head_s", "head_scores_shape"], ["head_s2"], name="head_scores"),
        node("Add", ["head_s2", "head_out_bias"], ["head_shared"], name="head_shared"),
        node("Gemm", [context, "head_rest", "head_rest_bias"], ["head_others"], name="head_rest", transB=1),
        node("Concat", ["head_shared", "head_others"], [out], name="head_logits", axis=1),
    ]
    return inits, nodes


# --------------------------------------------------------------------------- the description


def describe_export(
    policy: NumpyPolicy,
    game: Game[Any],
    onnx_name: str,
    mask_dtype: str = "float32",
    source: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON description written beside an exported graph."""
    spec = game.observation_spec
    obs_size, num_actions = spec.size, game.num_actions
    mask_doc = (
        "1.0 for a legal action, 0.0 for an illegal one (nonzero means legal)"
        if mask_dtype == "float32"
        else "true for a legal action"
    )
    layers: list[Any] = [policy.observation_size, *(w.shape[0] for w in policy.weights)]
    if policy.head is not None:  # the last layer is the shared action head
        head = policy.head
        layers.append(
            {
                "action_head": {
                    "fields": list(game.action_fields),
                    "actions": head.size,
                    "hidden": len(head.bias),
                    "others": len(head.rest_bias),
                }
            }
        )
    return {
        "format": FORMAT,
        "model": onnx_name,
        "game": game.info.name,
        "title": game.info.title,
        "num_players": game.num_seats,
        "options": dict(game.options),
        "observation": {
            "size": obs_size,
            "dtype": "float32",
            "note": "raw values as the game gives them; the graph divides by `scale` itself",
            "scale": [float(v) for v in policy.scale],
            "fields": [
                {
                    "name": f.name,
                    "offset": spec.offsets[f.name],
                    "size": f.size,
                    "low": f.low,
                    "high": f.high,
                    "doc": f.doc,
                }
                for f in spec.fields
            ],
            "table": spec.describe(),
        },
        "actions": {"count": num_actions, "names": list(game.action_names)},
        "inputs": [
            {
                "name": "observation",
                "dtype": "float32",
                "shape": ["batch", obs_size],
                "doc": "the seat's raw observation (the game's observe(state, seat)); do not scale it",
            },
            {"name": "mask", "dtype": mask_dtype, "shape": ["batch", num_actions], "doc": mask_doc},
        ],
        "outputs": [
            {
                "name": "logits",
                "dtype": "float32",
                "shape": ["batch", num_actions],
                "doc": f"action logits; illegal actions are set to {MASKED_LOGIT:g} (float32's lowest)",
            },
            {
                "name": "action",
                "dtype": "int64",
                "shape": ["batch"],
                "doc": "the legal action with the highest logit (the first on ties): play this",
            },
        ],
        "usage": [
            "observation: the seat to move's observation vector, raw, in the field order above "
            "(divide nothing: the graph scales it)",
            f"mask: from the legal moves, {mask_doc}",
            "run the graph and play `action` (the argmax of `logits`); "
            "its command word is actions.names[action]",
            "to sample instead of taking the argmax, softmax the masked logits",
        ],
        "onnx": {"opset": OPSET, "producer": f"tablezoo {_version()}"},
        "source": {
            **(source or {}),
            "activation": policy.activation,
            "layers": layers,
            "metadata": policy.meta,
        },
    }


def export_policy(
    policy: NumpyPolicy | str | Path,
    game: Game[Any],
    out_path: str | Path,
    mask_dtype: str = "float32",
) -> tuple[Path, Path]:
    """Write ``policy`` for ``game`` as ONNX to ``out_path`` (``.onnx`` added when missing) and its
    description beside it (same name, ``.json``); return both paths.

    ``policy`` is a :class:`NumpyPolicy` or the path of a ``.npz`` file. ``mask_dtype`` is the
    type of the graph's ``mask`` input: ``"float32"`` (the default) or ``"bool"``.
    """
    source: dict[str, Any] = {}
    what = "the policy"
    if isinstance(policy, (str, Path)):
        path = Path(policy)
        if not path.exists():
            raise ConfigError(f"no policy file {path}")
        what = path.name
        shipped = path.resolve().parent == AGENTS_DIR
        source = {
            "policy": f"tablezoo/bots/agents/{path.name}" if shipped else path.name,
            "shipped": shipped,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        }
        card = path.with_suffix(".md")
        if shipped and card.exists():
            source["model_card"] = f"tablezoo/bots/agents/{card.name}"
        policy = NumpyPolicy.load(path)
    check_policy_fits(policy, game, what)
    onnx = _onnx()
    out = Path(out_path)
    if out.suffix != ".onnx":
        out = out.with_name(out.name + ".onnx")
    out.parent.mkdir(parents=True, exist_ok=True)
    model = build_model(policy, game, mask_dtype)
    onnx.save(model, out)
    description = describe_export(policy, game, out.name, mask_dtype, source)
    json_path = out.with_suffix(".json")
    json_path.write_text(json.dumps(description, indent=2) + "\n")
    return out, json_path


# --------------------------------------------------------------------------- the check


def random_positions(
    game: Game[Any], n: int, seed: int = 0, keep: float = 0.25
) -> tuple[np.ndarray, np.ndarray, int]:
    """Observations and legal masks (int8) of ``n`` decisions from random play, and the games played.

    Each decision is kept with probability ``keep``, so that the positions come from several games.
    """
    rng = np.random.default_rng(seed)
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    games = 0
    while len(observations) < n:
        state = game.initial_state()
        games += 1
        while len(observations) < n and (mover := game.advance(state, rng)) != TERMINAL:
            legal = game.legal_actions(state)
            if rng.random() < keep:
                observations.append(np.asarray(game.observe(state, mover), np.float32))
                masks.append(game.legal_mask(state))
            game.apply(state, legal[int(rng.integers(len(legal)))])
    return np.stack(observations), np.stack(masks), games


def check_export(
    onnx_path: str | Path, policy: NumpyPolicy | str | Path, game: Game[Any], n: int = 200, seed: int = 0
) -> dict[str, Any]:
    """Run the exported graph with ONNX Runtime on ``n`` positions from random play of ``game`` and
    compare with ``policy`` (a :class:`NumpyPolicy` or a ``.npz`` path).

    Returns ``positions``, ``games`` (played to get them), ``same_actions`` and ``agreement``
    (the share of positions where both choose the same action; an export is right when it is 1),
    ``illegal_actions`` (ONNX choices that are not legal), ``max_logit_diff`` (over legal
    actions), ``masked_ok`` (every illegal action's logit is :data:`MASKED_LOGIT`) and ``ok``.
    """
    ort = _onnxruntime()
    if not isinstance(policy, NumpyPolicy):
        policy = NumpyPolicy.load(policy)
    observations, masks, games = random_positions(game, n, seed)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    mask_input = next(i for i in session.get_inputs() if i.name == "mask")
    mask_feed = masks.astype(bool) if mask_input.type == "tensor(bool)" else masks.astype(np.float32)
    logits, actions = session.run(["logits", "action"], {"observation": observations, "mask": mask_feed})
    expected = np.array([policy.act(o, m) for o, m in zip(observations, masks, strict=True)], np.int64)
    reference = np.stack([policy.logits(o) for o in observations])
    legal = masks.astype(bool)
    same = int(np.sum(actions == expected))
    illegal = int(np.sum(~legal[np.arange(len(actions)), actions]))
    diff = float(np.max(np.abs(logits - reference)[legal])) if legal.any() else 0.0
    masked_ok = bool(np.all(logits[~legal] == np.float32(MASKED_LOGIT)))
    return {
        "positions": len(observations),
        "games": games,
        "same_actions": same,
        "agreement": same / len(observations),
        "illegal_actions": illegal,
        "max_logit_diff": diff,
        "masked_ok": masked_ok,
        "ok": same == len(observations) and illegal == 0 and masked_ok and diff < 1e-3,
        "onnxruntime": ort.__version__,
    }


# --------------------------------------------------------------------------- the command


def export_name(game: Game[Any]) -> str:
    """``<game>-<n>p``, with ``-<option>`` for each option switched on."""
    return f"{game.info.name}-{game.num_seats}p" + "".join(f"-{k}" for k, v in game.options.items() if v)


def cmd_export(args: argparse.Namespace) -> None:
    game = make(args.game, args.players, **dict.fromkeys(args.option, True))
    _onnx()
    _onnxruntime()
    if args.policy is None:
        try:
            path = shipped_agent(game)
        except ConfigError as err:
            raise ConfigError(f"{err} (or pass --policy PATH)") from None
        name = export_name(game)
        what = f"the shipped agent {path.stem}"
    else:
        path = Path(args.policy)
        if not path.exists():
            raise ConfigError(f"no policy file {path}")
        name = f"{export_name(game)}-{path.stem}"
        what = str(path)
    onnx_path, json_path = export_policy(path, game, Path(args.out) / f"{name}.onnx", args.mask)
    print(f"exported {what} ({game!r}):")
    print(f"  {onnx_path}  (ONNX, opset {OPSET})")
    print(f"  {json_path}  (description: observation fields, command words, inputs and outputs)")
    result = check_export(onnx_path, path, game, args.positions, args.seed)
    print(
        f"checked with ONNX Runtime {result['onnxruntime']} on {result['positions']} positions from "
        f"{result['games']} random games: same action as the numpy policy in "
        f"{result['same_actions']}/{result['positions']} (agreement {result['agreement']:.3f}), "
        f"illegal actions chosen: {result['illegal_actions']}, "
        f"largest logit difference {result['max_logit_diff']:.2g}"
    )
    if not result["ok"]:
        raise TablezooError(f"the ONNX export disagrees with the numpy policy: {result}")


def add_export_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``export`` to the ``tablezoo`` command's subparsers."""
    p = subparsers.add_parser(
        "export",
        help="export an agent to ONNX with a JSON description (needs the export extra)",
        description="Export a trained policy to ONNX (raw observation and mask in, action out), "
        "write a JSON description beside it, and check it against the numpy policy with ONNX Runtime.",
    )
    p.add_argument("game", choices=list(GAMES), help="the game")
    p.add_argument("--players", type=int, default=None, help="seat count (default: the game's)")
    p.add_argument("--option", action="append", default=[], help="switch on a game option")
    p.add_argument(
        "--policy", default=None, help="a policy .npz (default: the shipped agent for the game and seats)"
    )
    p.add_argument("--out", default="exported", help="folder to write to (default: exported/)")
    p.add_argument("--mask", choices=["float32", "bool"], default="float32", help="type of the mask input")
    p.add_argument("--positions", type=int, default=500, help="random-play positions to check")
    p.add_argument("--seed", type=int, default=0, help="seed of the check's random play")
    p.set_defaults(func=cmd_export)
    return p
