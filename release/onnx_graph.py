"""An agent's ONNX graph and its JSON description, built from the numpy weights with ``onnx`` alone.

:func:`build_model` makes the graph of a :class:`~tablezoo.bots.net.PolicyValueNet` from the
pieces it has (:func:`_model_graph`: the padding of the observation, its scaling, the trunk,
the action head, the mask, the value head); :func:`describe_export` the description a front
end in another language reads. :mod:`tablezoo.release.export` writes both and checks them.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from tablezoo.bots.net import ActionHead, PolicyValueNet
from tablezoo.games.core import ConfigError, Game, ObservationSpec

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
