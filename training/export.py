"""Export an agent to ONNX, with a JSON description, and check it with ONNX Runtime.

    tablezoo export heckmeck --players 2     # the shipped agent -> exported/heckmeck-2p.onnx
    tablezoo export heckmeck --padded        # every seat count -> exported/heckmeck-padded.onnx
    tablezoo export diamant --players 4 --policy runs/<run>/policy.npz --out web/
    tablezoo export diamant --players 3 --policy runs/<run>/actor.pt     # a torch module (TorchScript)

Every model is a :class:`~tablezoo.bots.net.PolicyValueNet`, built straight from
its numpy weights with the ``onnx`` package (the ``export`` extra; no torch).
The graph is made of the pieces the model says it has (:func:`_model_graph`):

* a network that reads the padded observation (the shipped ``<game>.npz``, or
  a network of ``tablezoo expert``: the network alone, ``agent`` without
  search) reads :meth:`~tablezoo.games.core.Game.pad`'s layout, one for every
  seat count, the seat count one-hot; the graph for ``n`` seats pads the plain
  observation itself (a Gather from the observation with a zero column
  appended, plus the constant one-hot of ``n``), so a front end feeds what the
  env gives. With ``padded=True`` (``--padded``) the graph reads the padded
  observation instead: one file for every seat count, the caller pads.
* a policy of one seat count (a ``policy.npz`` of ``tablezoo train``) reads the
  plain observation.
* a model with a value head also outputs ``value``, its win share.

The graph computes, for a batch, what the bot does with one observation:

* input ``observation``: float32 ``[batch, obs_size]``, the raw observation as
  the game gives it (the graph pads and scales it itself); with ``padded``, the
  raw padded observation ``[batch, padded_size]``;
* input ``mask``: float32 ``[batch, num_actions]`` (or bool, see
  :func:`export_policy`), nonzero for a legal action;
* output ``logits``: float32 ``[batch, num_actions]``, illegal actions set to
  :data:`MASKED_LOGIT` (the most negative float32, finite so that a softmax of
  them is 0 and nothing turns into NaN);
* output ``action``: int64 ``[batch]``, the argmax of ``logits`` (the first one
  on ties, as numpy's);
* output ``value`` (models with a value head): float32 ``[batch]``, the seat's expected win
  share (1 alone, 1/k in a k-way tie, 0 otherwise).

A torch policy (a ``.pt`` file, TorchScript or a module saved whole: :func:`export_torch`) is
exported by torch's own exporter, its graph reading the observation as the module does (its
layout and scaling, declared by the module or given with ``--observation`` and
``--scaled``/``--raw``) and giving its outputs as ``logits``; the graph's metadata
``tablezoo.observation`` and ``tablezoo.scaled`` say what it reads, so ``tablezoo benchmark``
plays it without being told, and ONNX Runtime's outputs are checked against torch's.

``<name>.json`` beside the graph says what a front end in another language
needs: the observation fields (offsets, bounds, meaning), how the observation
is padded, the command word of every action, the inputs and outputs, and where
the model came from (file, checksum, its meta). :func:`check_export` replays
random games and compares ONNX Runtime's moves (and win shares) with numpy's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from tablezoo.bots import registry
from tablezoo.bots.net import ActionHead, PolicyValueNet, load_model
from tablezoo.evaluation.cli_args import reading_args
from tablezoo.games import GAMES, make
from tablezoo.games.core import TERMINAL, ConfigError, Game, ObservationSpec, TablezooError

OPSET = 17
"""ONNX opset of the exported graphs (onnxruntime >= 1.14 and onnxruntime-web run it)."""
MASKED_LOGIT = float(np.finfo(np.float32).min)
"""The logit of an illegal action in the exported graph's ``logits``."""
FORMAT = "tablezoo-onnx-policy/1"
"""The ``format`` key of the JSON description."""
TIE = 1e-5
"""Logits closer than this are a tie that float rounding may break either way (:func:`check_export`)."""

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


_NOUNS = {"policy-and-value network": "network", "policy": "policy"}
"""A model's :attr:`~tablezoo.bots.net.PolicyValueNet.kind` in one word: in messages and as the key of
its file in the description's ``source``."""


def check_fits(model: PolicyValueNet, game: Game[Any], what: str, padded: bool = False) -> None:
    """Raise a ConfigError unless ``model`` plays ``game`` with its options (and, with ``padded``,
    reads the padded observation)."""
    if padded and not model.padded:
        raise ConfigError(
            f"{what} is a {model.kind} of one seat count: only a network that reads the padded "
            "observation (tablezoo expert, or the shipped agent) exports with the padded observation"
        )
    model.check_fits(game, what, options=True)


def padding_index(game: Game[Any]) -> np.ndarray:
    """Where each entry of ``game``'s observation goes in its padded observation (int64)."""
    padded = game.padded_spec
    return np.concatenate(
        [padded.offsets[f.name] + np.arange(f.size) for f in game.observation_spec.fields]
    ).astype(np.int64)


# --------------------------------------------------------------------------- the graph


def build_model(
    model: PolicyValueNet, game: Game[Any], mask_dtype: str = "float32", padded: bool = False
) -> Any:
    """The ONNX model (an ``onnx.ModelProto``) of ``model`` for ``game``.

    A network that reads the padded observation gets a graph that reads ``game``'s plain observation
    and pads it itself, or, with ``padded``, reads the padded observation (the same graph for every
    seat count).
    """
    onnx = _onnx()
    from onnx import TensorProto, helper, numpy_helper

    if mask_dtype not in ("float32", "bool"):
        raise ConfigError(f"the mask is float32 or bool, not {mask_dtype!r}")
    check_fits(model, game, f"the {_NOUNS[model.kind]}", padded)
    num_actions = model.num_actions
    obs_size = game.padded_spec.size if padded else game.observation_spec.size
    mask_type = TensorProto.FLOAT if mask_dtype == "float32" else TensorProto.BOOL

    inits, nodes = _model_graph(model, game, padded)
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
    outputs = [
        helper.make_tensor_value_info(
            name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), _shape(shape, num_actions)
        )
        for name, (dtype, shape, _) in _OUTPUTS.items()
        if name in _output_names(model)
    ]
    seats = "every seat count" if padded else f"{game.num_seats} seats"
    graph = helper.make_graph(
        nodes,
        f"tablezoo_{game.info.name}_{'padded' if padded else f'{game.num_seats}p'}_policy",
        inputs=[
            helper.make_tensor_value_info("observation", TensorProto.FLOAT, ["batch", obs_size]),
            helper.make_tensor_value_info("mask", mask_type, ["batch", num_actions]),
        ],
        outputs=outputs,
        initializer=inits,
        doc_string=f"{'padded' if padded else 'raw'} observation and legal-action mask in; "
        "masked logits and the chosen action out" + (", and the win share" if model.has_value_head else ""),
    )
    opset = [helper.make_opsetid("", OPSET)]
    onnx_model = helper.make_model(
        graph,
        opset_imports=opset,
        producer_name="tablezoo",
        producer_version=_version(),
        doc_string=f"tablezoo {model.kind} for {game.info.title}, {seats}",
    )
    onnx_model.ir_version = helper.find_min_ir_version_for(opset)
    helper.set_model_props(
        onnx_model,
        {
            "tablezoo.game": game.info.name,
            "tablezoo.num_players": "any" if padded else str(game.num_seats),
            "tablezoo.padded": json.dumps(padded),
            "tablezoo.observation": "padded" if padded else "plain",
            "tablezoo.scaled": "false",  # the graph scales the raw observation itself
            "tablezoo.options": json.dumps(dict(game.options)),
            "tablezoo.action_names": json.dumps(list(game.action_names)),
        },
    )
    onnx.checker.check_model(onnx_model, full_check=True)
    return onnx_model


def _output_names(model: PolicyValueNet) -> list[str]:
    """The graph's outputs: the masked logits, the action, and the win share of a model with a value head."""
    return ["logits", "action", *(["value"] if model.has_value_head else [])]


def _model_graph(model: PolicyValueNet, game: Game[Any], padded: bool) -> tuple[list[Any], list[Any]]:
    """Initializers and nodes of ``model``: ``observation`` in, ``raw_logits`` (and ``value``) out.

    The pieces follow what the model says of itself: a padded network fed the plain observation
    pads it in the graph; the scale is folded into the first layer or divides the observation
    first, as the model computes (:attr:`~tablezoo.bots.net.PolicyValueNet.folds_scale`); the
    hidden layers have its activation; then its action head and its value head, where it has them."""
    from onnx import helper, numpy_helper

    node = helper.make_node
    inits: list[Any] = []
    nodes: list[Any] = []
    x = "observation"
    if model.padded and not padded:
        # Padded entry j is plain entry source[j], or the appended zero column where the plain
        # observation has nothing (a seat that is not there, the seat count one-hot); the
        # one-hot of this seat count is then added. A Gather copies values exactly, as Game.pad.
        spec = game.observation_spec
        source = np.full(game.padded_spec.size, spec.size, np.int64)
        source[padding_index(game)] = np.arange(spec.size)
        one_hot = np.zeros(game.padded_spec.size, np.float32)
        one_hot[game.padded_spec.offsets["seats"] + game.num_seats - 1] = 1.0
        inits += [
            numpy_helper.from_array(np.array([0, 0, 0, 1], np.int64), "pad_zero_column"),
            numpy_helper.from_array(source, "pad_source"),
            numpy_helper.from_array(one_hot, "pad_seats"),
        ]
        nodes += [
            node("Pad", ["observation", "pad_zero_column"], ["observation_and_zero"], name="append_zero"),
            node("Gather", ["observation_and_zero", "pad_source"], ["spread"], name="spread", axis=1),
            node("Add", ["spread", "pad_seats"], ["padded"], name="seat_count_one_hot"),
        ]
        x = "padded"
    if not model.folds_scale or model.head is not None:  # the layers read it scaled, or the head does
        inits.append(numpy_helper.from_array(model.scale, "scale"))
        nodes.append(node("Div", [x, "scale"], ["scaled"], name="scale_observation"))
        x = x if model.folds_scale else "scaled"
    act = _ONNX_OPS[model.activation]
    last = len(model.weights) - 1 if model.head is None else len(model.weights)
    for i, (w, b) in enumerate(zip(model.weights, model.biases, strict=True)):
        # w is (out, in) as in the model (w @ x + b); a batch of rows is x @ w.T + b. A folded scale
        # divides the first layer's columns, as PolicyValueNet computes: the same floats.
        weight = w / model.scale[None, :] if i == 0 and model.folds_scale else w
        inits += [
            numpy_helper.from_array(weight.astype(np.float32), f"w{i}"),
            numpy_helper.from_array(b, f"b{i}"),
        ]
        out = "raw_logits" if i == last else f"z{i + 1}"
        nodes.append(node("Gemm", [x, f"w{i}", f"b{i}"], [out], name=f"layer{i}", transB=1))
        if i != last:
            x = f"h{i + 1}"
            nodes.append(node(act, [out], [x], name=f"act{i}"))
    if model.head is not None:  # the head reads its fields scaled, as the model does
        head_inits, head_nodes = _head_graph(model.head, model.activation, "scaled", x, "raw_logits")
        inits += head_inits
        nodes += head_nodes
    if model.value_w is not None:
        inits += [
            numpy_helper.from_array(model.value_w.reshape(1, -1), "value_w"),
            numpy_helper.from_array(np.array([model.value_b], np.float32), "value_b"),
            numpy_helper.from_array(np.array([1], np.int64), "value_axis"),
        ]
        nodes += [
            node("Gemm", [x, "value_w", "value_b"], ["value_z"], name="value_layer", transB=1),
            node("Sigmoid", ["value_z"], ["value_column"], name="win_share"),
            node("Squeeze", ["value_column", "value_axis"], ["value"], name="value_per_row"),
        ]
    return inits, nodes


def _head_graph(
    head: ActionHead, activation: str, observation: str, context: str, out: str
) -> tuple[list[Any], list[Any]]:
    """Initializers and nodes of an :class:`~tablezoo.bots.net.ActionHead`: ``out`` from the
    scaled ``observation`` and the hidden layers' ``context`` (both ``[batch, ...]``)."""
    from onnx import helper, numpy_helper

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
    act = _ONNX_OPS[activation]
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


def _fields(spec: ObservationSpec) -> list[dict[str, Any]]:
    return [
        {
            "name": f.name,
            "offset": spec.offsets[f.name],
            "size": f.size,
            "low": f.low,
            "high": f.high,
            "doc": f.doc,
        }
        for f in spec.fields
    ]


def _padding(game: Game[Any], padded: bool) -> dict[str, Any]:
    """How a plain observation becomes the padded one a network reads (for the JSON description)."""
    seat_counts = list(game.info.seat_range) if padded else [game.num_seats]
    games = {n: game if n == game.num_seats else type(game)(n, **game.options) for n in seat_counts}
    spec = game.padded_spec
    return {
        "in_graph": not padded,
        "size": spec.size,
        "doc": (
            "the network reads one layout for every seat count: a zero vector of `size`, plain observation "
            f"entry i at index[n][i] (n the seat count), and entry {spec.offsets['seats']} + n - 1 "
            "(the `seats` field, one-hot) set to 1; a per-seat field lists the seats observer first, "
            "so the seats a smaller table lacks stay 0"
            + ("" if padded else "; the graph does this itself: feed the plain observation")
        ),
        "seats_offset": spec.offsets["seats"],
        "index": {str(n): padding_index(g).tolist() for n, g in games.items()},
        "fields": _fields(spec),
        "scale": [float(v) for v in spec.scale()],
    }


_INPUTS = {
    "padded": (
        "the seat's padded observation (raw values, padded as `padding` says; the game's "
        "observe_padded(state, seat)); do not scale it",
        "raw values in the padded layout; the graph divides by `scale` itself",
        "observation: the seat to move's padded observation (see `padding`), raw",
    ),
    "pads": (
        "the seat's raw observation (the game's observe(state, seat)); do not scale it",
        "raw values as the game gives them; the graph pads them (see `padding`) "
        "and divides by `scale` itself",
        "observation: the seat to move's observation vector, raw, in the field order above",
    ),
    "plain": (
        "the seat's raw observation (the game's observe(state, seat)); do not scale it",
        "raw values as the game gives them; the graph divides by `scale` itself",
        "observation: the seat to move's observation vector, raw, in the field order above",
    ),
}
"""By what the graph's ``observation`` input is (the padded one; a plain one the graph pads; a plain one
a policy of one seat count reads): the input's doc, the note on its values, and its line of the usage."""

_MASKS = {
    "float32": "1.0 for a legal action, 0.0 for an illegal one (nonzero means legal)",
    "bool": "true for a legal action",
}
"""The ``mask`` input's doc by its dtype."""

_OUTPUTS = {
    "logits": (
        "float32",
        ("batch", "actions"),
        f"action logits; illegal actions are set to {MASKED_LOGIT:g} (float32's lowest)",
    ),
    "action": (
        "int64",
        ("batch",),
        "the legal action with the highest logit (the first on ties): play this",
    ),
    "value": (
        "float32",
        ("batch",),
        "the seat's expected win share from here: the part of the win it takes "
        "(1 alone, 1/k in a k-way tie, 0 otherwise); a fair share at n seats is 1/n",
    ),
}
"""Every output a graph may have (:func:`_output_names` says which it has): dtype, shape, doc."""

_USAGE = (
    ("", "mask: from the legal moves, {mask}"),
    (
        "",
        "run the graph and play `action` (the argmax of `logits`); its command word is actions.names[action]",
    ),
    ("", "to sample instead of taking the argmax, softmax the masked logits"),
    ("value", "`value` is how the network rates the position for the seat to move (a win share)"),
)
"""The usage lines after the observation's, each with the output it speaks of ("": any graph)."""


def _shape(shape: tuple[str, ...], num_actions: int) -> list[Any]:
    """A shape of :data:`_OUTPUTS` with the number of actions put in."""
    return [num_actions if d == "actions" else d for d in shape]


def describe_export(
    policy: PolicyValueNet,
    game: Game[Any],
    onnx_name: str,
    mask_dtype: str = "float32",
    source: dict[str, Any] | None = None,
    padded: bool = False,
) -> dict[str, Any]:
    """The JSON description written beside an exported graph: the facts of the tables above that
    hold for ``policy`` and the graph's input."""
    spec = game.padded_spec if padded else game.observation_spec
    num_actions, outputs = game.num_actions, _output_names(policy)
    reads = "padded" if padded else "pads" if policy.padded else "plain"
    observation_doc, note, observation_usage = _INPUTS[reads]
    # the scale of each input entry: the model's, where the graph puts the entry
    scale = policy.scale[padding_index(game)] if reads == "pads" else policy.scale
    description: dict[str, Any] = {
        "format": FORMAT,
        "model": onnx_name,
        "game": game.info.name,
        "title": game.info.title,
        "num_players": None if padded else game.num_seats,
        "seat_counts": list(game.info.seat_range) if padded else [game.num_seats],
        "options": dict(game.options),
        "observation": {
            "size": spec.size,
            "dtype": "float32",
            "note": note,
            "scale": [float(v) for v in scale],
            "fields": _fields(spec),
            "table": spec.describe(),
        },
    }
    if policy.padded:
        description["padding"] = _padding(game, padded)
    description.update(
        {
            "actions": {"count": num_actions, "names": list(game.action_names)},
            "inputs": [
                {
                    "name": "observation",
                    "dtype": "float32",
                    "shape": ["batch", spec.size],
                    "doc": observation_doc,
                },
                {
                    "name": "mask",
                    "dtype": mask_dtype,
                    "shape": ["batch", num_actions],
                    "doc": _MASKS[mask_dtype],
                },
            ],
            "outputs": [
                {"name": name, "dtype": dtype, "shape": _shape(shape, num_actions), "doc": doc}
                for name, (dtype, shape, doc) in _OUTPUTS.items()
                if name in outputs
            ],
            "usage": [f"{observation_usage} (divide nothing: the graph scales it)"]
            + [
                line.format(mask=_MASKS[mask_dtype])
                for needs, line in _USAGE
                if not needs or needs in outputs
            ],
            "onnx": {"opset": OPSET, "producer": f"tablezoo {_version()}"},
            "source": {**(source or {}), **policy.describe(game.action_fields), "metadata": policy.meta},
        }
    )
    return description


def export_policy(
    policy: PolicyValueNet | str | Path,
    game: Game[Any],
    out_path: str | Path,
    mask_dtype: str = "float32",
    padded: bool = False,
) -> tuple[Path, Path]:
    """Write ``policy`` for ``game`` as ONNX to ``out_path`` (``.onnx`` added when missing) and its
    description beside it (same name, ``.json``); return both paths.

    ``policy`` is a :class:`~tablezoo.bots.net.PolicyValueNet` or the path of its ``.npz`` file.
    ``mask_dtype`` is the type of the graph's ``mask`` input: ``"float32"`` (the default) or
    ``"bool"``. With ``padded`` (networks that read the padded observation only) the graph reads
    the padded observation and serves every seat count of ``game``'s options.
    """
    source: dict[str, Any] = {}
    if isinstance(policy, (str, Path)):
        path = Path(policy)
        policy = load_model(path)
        what = path.name
        agents = registry.AGENTS_DIR.resolve()
        shipped = path.resolve().parent == agents
        source = {
            _NOUNS[policy.kind]: f"tablezoo/bots/agents/{path.name}" if shipped else path.name,
            "shipped": shipped,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        }
        card = path.with_suffix(".md")
        if shipped and card.exists():
            source["model_card"] = f"tablezoo/bots/agents/{card.name}"
    else:
        what = f"the {_NOUNS[policy.kind]}"
    check_fits(policy, game, what, padded)
    onnx = _onnx()
    out = Path(out_path)
    if out.suffix != ".onnx":
        out = out.with_name(out.name + ".onnx")
    out.parent.mkdir(parents=True, exist_ok=True)
    model = build_model(policy, game, mask_dtype, padded)
    onnx.save(model, out)
    description = describe_export(policy, game, out.name, mask_dtype, source, padded)
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


def reference(
    policy: PolicyValueNet, game: Game[Any], observations: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """numpy's logits ``(N, actions)`` of plain ``observations`` of ``game``, and the win shares ``(N,)``
    of a model with a value head (None without): position by position, as the bots compute them."""
    inputs = policy.reads(game, observations)
    if not policy.has_value_head:
        return np.stack([policy.logits(x) for x in inputs]), None
    pairs = [policy.evaluate(x) for x in inputs]
    return np.stack([logits for logits, _ in pairs]), np.array([value for _, value in pairs], np.float32)


def check_export(
    onnx_path: str | Path, policy: PolicyValueNet | str | Path, game: Game[Any], n: int = 200, seed: int = 0
) -> dict[str, Any]:
    """Run the exported graph with ONNX Runtime on ``n`` positions from random play of ``game`` and
    compare with ``policy`` (a :class:`~tablezoo.bots.net.PolicyValueNet` or a ``.npz`` path) on numpy.

    A graph whose ``observation`` input has the padded size is fed ``game.pad(observations)``.
    Returns ``positions``, ``games`` (played to get them), ``same_actions`` and ``agreement``
    (the share of positions where both choose the same action), ``near_ties`` (positions where
    they differ but numpy's logits of the two moves are within :data:`TIE`: float rounding
    breaks such a tie either way), ``illegal_actions`` (ONNX choices that are not legal),
    ``max_logit_diff`` (over legal actions), ``masked_ok`` (every illegal action's logit is
    :data:`MASKED_LOGIT`), ``max_value_diff`` (the win shares; None without a value head) and ``ok``.
    """
    ort = _onnxruntime()
    if isinstance(policy, (str, Path)):
        policy = load_model(policy)
    observations, masks, games = random_positions(game, n, seed)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    inputs = {i.name: i for i in session.get_inputs()}
    padded = inputs["observation"].shape[-1] == game.padded_spec.size != game.observation_spec.size
    feed_obs = game.pad(observations) if padded else observations
    mask_feed = masks.astype(bool) if inputs["mask"].type == "tensor(bool)" else masks.astype(np.float32)
    names = [o.name for o in session.get_outputs()]
    results = dict(zip(names, session.run(names, {"observation": feed_obs, "mask": mask_feed}), strict=True))
    logits, actions = results["logits"], results["action"]
    expected_logits, expected_values = reference(policy, game, observations)
    legal = masks.astype(bool)
    # as the bots choose: the first legal action with the highest logit
    expected = np.argmax(np.where(legal, expected_logits, -np.inf), axis=1)
    rows = np.arange(len(actions))
    same = int(np.sum(actions == expected))
    illegal = int(np.sum(~legal[rows, actions]))
    differ = (actions != expected) & legal[rows, actions]
    gap = np.abs(expected_logits[rows, actions] - expected_logits[rows, expected])
    near_ties = int(np.sum(differ & (gap < TIE)))
    diff = float(np.max(np.abs(logits - expected_logits)[legal])) if legal.any() else 0.0
    masked_ok = bool(np.all(logits[~legal] == np.float32(MASKED_LOGIT)))
    value_diff: float | None = None
    value_ok = True
    if expected_values is not None:
        if "value" not in results:
            raise ConfigError(f"{onnx_path} has no `value` output: it is not the export of a network")
        value_diff = float(np.max(np.abs(results["value"] - expected_values)))
        value_ok = value_diff < 1e-4
    return {
        "positions": len(observations),
        "games": games,
        "same_actions": same,
        "agreement": same / len(observations),
        "near_ties": near_ties,
        "illegal_actions": illegal,
        "max_logit_diff": diff,
        "masked_ok": masked_ok,
        "max_value_diff": value_diff,
        "ok": same + near_ties == len(observations)
        and illegal == 0
        and masked_ok
        and diff < 1e-3
        and value_ok,
        "onnxruntime": ort.__version__,
    }


# --------------------------------------------------------------------------- the command


def export_name(game: Game[Any], padded: bool = False) -> str:
    """``<game>-<n>p`` (``<game>-padded`` for every seat count), with ``-<option>`` for each option on."""
    seats = "padded" if padded else f"{game.num_seats}p"
    return f"{game.info.name}-{seats}" + "".join(f"-{k}" for k, v in game.options.items() if v)


def _report(result: dict[str, Any], game: Game[Any]) -> str:
    ties = f" (+{result['near_ties']} near ties)" if result["near_ties"] else ""
    value = (
        f", largest win-share difference {result['max_value_diff']:.2g}"
        if result["max_value_diff"] is not None
        else ""
    )
    return (
        f"{game.num_seats} seats, ONNX Runtime {result['onnxruntime']}, {result['positions']} positions from "
        f"{result['games']} random games: same action as numpy in "
        f"{result['same_actions']}/{result['positions']}{ties} (agreement {result['agreement']:.3f}), "
        f"illegal actions chosen: {result['illegal_actions']}, "
        f"largest logit difference {result['max_logit_diff']:.2g}{value}"
    )


def cmd_export(args: argparse.Namespace) -> None:
    if args.padded and args.players is not None:
        raise ConfigError("--padded exports one graph for every seat count: leave out --players")
    game = make(args.game, args.players, **dict.fromkeys(args.option, True))
    _onnx()
    _onnxruntime()
    if args.policy is None:
        try:
            registry.shipped_agent(game)  # says why there is none, or why it does not fit
        except ConfigError as err:
            raise ConfigError(f"{err} (or pass --policy PATH)") from None
        path = registry.agent_path(game.info.name)
        name = export_name(game, args.padded)
        what = f"the shipped agent {path.name}"
    else:
        path = Path(args.policy)
        if not path.exists():
            raise ConfigError(f"no policy file {path}")
        name = f"{export_name(game, args.padded)}-{path.stem}"
        what = str(path)
        if path.suffix in (".pt", ".pth"):
            if args.padded:
                raise ConfigError("--padded is for networks (.npz); a torch module reads what it declares")
            out = Path(args.out) / f"{name}.onnx"
            checked = export_torch(path, game, out, args.observation, args.scaled, args.positions, args.seed)
            print(f"exported {what} (torch) for {game.info.title}, {game.num_seats} seats:")
            print(f"  {out}  (ONNX, opset {OPSET}; reads the {checked['reads']})")
            print(
                f"checked: {checked['positions']} positions, largest difference from torch "
                f"{checked['max_difference']:.2e}, the same move in {checked['same_move']}"
            )
            return
    model = load_model(path)
    onnx_path, json_path = export_policy(path, game, Path(args.out) / f"{name}.onnx", args.mask, args.padded)
    seats = "every seat count" if args.padded else f"{game.num_seats} seats"
    print(f"exported {what} ({model.kind}) for {game.info.title}, {seats}:")
    print(f"  {onnx_path}  (ONNX, opset {OPSET})")
    print(f"  {json_path}  (description: observation fields, command words, inputs and outputs)")
    # a padded graph is checked at every seat count it serves
    checks = [type(game)(n, **game.options) for n in game.info.seat_range] if args.padded else [game]
    failed = []
    for g in checks:
        result = check_export(onnx_path, model, g, args.positions, args.seed)
        print(f"checked: {_report(result, g)}")
        if not result["ok"]:
            failed.append(result)
    if failed:
        raise TablezooError(f"the ONNX export disagrees with numpy: {failed}")


def export_torch(
    path: Path,
    game: Game[Any],
    out: Path,
    observation: str = "auto",
    scaled: bool | None = None,
    positions: int = 200,
    seed: int = 0,
) -> dict[str, Any]:
    """The torch module in ``path`` (TorchScript, or a module saved whole) as an ONNX graph at ``out``:
    input ``observation`` as the module reads it, output ``logits``, metadata ``tablezoo.game``,
    ``tablezoo.observation`` and ``tablezoo.scaled``; checked with ONNX Runtime against torch on
    ``positions`` positions of random play. What it checked."""
    import torch

    from tablezoo.evaluation.loaders import load_torch
    from tablezoo.evaluation.policies import as_bot

    onnx, ort = _onnx(), _onnxruntime()
    module = load_torch(path)
    reading = getattr(as_bot(module, game, path.stem, observation, scaled), "reading")  # noqa: B009
    size = (game.padded_spec if reading.padded else game.observation_spec).size

    class Logits(torch.nn.Module):
        """The module's logits (the first of a tuple; ``logits`` of a dict) as one tensor."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out = self.inner(x)
            if isinstance(out, dict):
                out = out["logits"] if "logits" in out else out["action_dist_inputs"]
            elif isinstance(out, (tuple, list)):
                out = out[0]
            return out

    wrapped = Logits(module).eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    example = torch.zeros(1, size, dtype=torch.float32)
    scripted = isinstance(module, torch.jit.ScriptModule)
    torch.onnx.export(
        wrapped,
        (example,),
        str(out),
        input_names=["observation"],
        output_names=["logits"],
        dynamic_axes={"observation": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=OPSET,
        dynamo=not scripted,  # a TorchScript module goes through the TorchScript exporter
    )
    graph = onnx.load(str(out))
    meta = {
        "tablezoo.game": json.dumps({"name": game.info.name, "seats": game.num_seats}),
        "tablezoo.observation": reading.observation,
        "tablezoo.scaled": json.dumps(reading.scaled),
        "tablezoo.source": f"{path.name} sha256:{hashlib.sha256(path.read_bytes()).hexdigest()}",
    }
    onnx.helper.set_model_props(graph, meta)
    onnx.save(graph, str(out))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(out), options, providers=["CPUExecutionProvider"])
    worst, same, seen = 0.0, 0, 0
    observations, masks, _ = random_positions(game, positions, seed)
    for obs, mask in zip(observations, masks, strict=True):
        x = reading.read(SimpleNamespace(game=game, observation=obs))[None]
        with torch.no_grad():
            want = wrapped(torch.as_tensor(x)).numpy().reshape(-1)
        (got,) = session.run(["logits"], {"observation": x})
        got = np.asarray(got).reshape(-1)
        worst = max(worst, float(np.max(np.abs(got - want))))
        legal = mask > 0
        same += int(np.argmax(np.where(legal, got, -np.inf)) == np.argmax(np.where(legal, want, -np.inf)))
        seen += 1
    if seen and (worst > 1e-3 or same < seen):
        raise TablezooError(
            f"the ONNX export of {path} disagrees with torch: {worst:.2e}, {same}/{seen} moves"
        )
    reads = f"{reading.observation} observation {'scaled' if reading.scaled else 'raw'}"
    return {"positions": seen, "max_difference": worst, "same_move": f"{same}/{seen}", "reads": reads}


def add_export_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``export`` to the ``tablezoo`` command's subparsers."""
    p = subparsers.add_parser(
        "export",
        help="export an agent to ONNX with a JSON description (needs the export extra)",
        description="Export an agent's network (or a trained policy) to ONNX (raw observation and mask in, "
        "action and win share out), write a JSON description beside it, and check it against numpy "
        "with ONNX Runtime.",
    )
    p.add_argument("game", choices=list(GAMES), help="the game")
    p.add_argument("--players", type=int, default=None, help="seat count (default: the game's)")
    p.add_argument("--option", action="append", default=[], help="switch on a game option")
    p.add_argument(
        "--policy",
        default=None,
        help="a network or policy .npz, or a torch .pt (TorchScript or a module saved whole; "
        "--observation and --scaled/--raw where it does not declare its input) "
        "(default: the game's shipped agent, <game>.npz)",
    )
    p.add_argument(
        "--padded",
        action="store_true",
        help="networks only: one graph for every seat count, reading the padded observation "
        "(<game>-padded.onnx; no --players)",
    )
    p.add_argument("--out", default="exported", help="folder to write to (default: exported/)")
    p.add_argument("--mask", choices=["float32", "bool"], default="float32", help="type of the mask input")
    p.add_argument(
        "--positions", type=int, default=500, help="random-play positions to check (per seat count)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the check's random play")
    reading_args(p)
    p.set_defaults(func=cmd_export)
    return p
