"""Export an agent to ONNX, with a JSON description, and check it with ONNX Runtime.

    tablezoo export heckmeck --players 2     # the shipped agent -> exported/heckmeck-2p.onnx
    tablezoo export heckmeck --padded        # every seat count -> exported/heckmeck-padded.onnx
    tablezoo export diamant --players 4 --policy runs/<run>/policy.npz --out web/
    tablezoo export diamant --players 3 --policy runs/<run>/actor.pt     # a torch module (TorchScript)

Every model is a :class:`~tablezoo.bots.net.PolicyValueNet`, built straight from
its numpy weights with the ``onnx`` package (the ``export`` extra; no torch).
The graph is made of the pieces the model says it has
(:func:`~tablezoo.release.onnx_graph._model_graph`):

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
  :data:`~tablezoo.release.onnx_graph.MASKED_LOGIT` (the most negative float32, finite so that a softmax of
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
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from tablezoo.bots import registry
from tablezoo.bots.net import PolicyValueNet, load_model
from tablezoo.evaluation.cli_args import ReadingSettings, TableSettings
from tablezoo.games import make
from tablezoo.games.core import TERMINAL, ConfigError, Game, TablezooError
from tablezoo.games.settings import add_arguments, setting
from tablezoo.release.onnx_graph import (
    _NOUNS,
    MASKED_LOGIT,
    OPSET,
    _onnx,
    _onnxruntime,
    build_model,
    check_fits,
    describe_export,
)

TIE = 1e-5
"""Logits closer than this are a tie that float rounding may break either way (:func:`check_export`)."""


# --------------------------------------------------------------------------- the graph


# --------------------------------------------------------------------------- the description


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
    :data:`~tablezoo.release.onnx_graph.MASKED_LOGIT`), ``max_value_diff`` (the win shares; None
    without a value head) and ``ok``.
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


@dataclass
class ExportSettings(TableSettings):
    """The flags of ``tablezoo export`` (the reading of a policy: :class:`ReadingSettings`)."""

    policy: str | None = setting(
        None,
        help="a network or policy .npz, or a torch .pt (TorchScript or a module saved whole; "
        "--observation and --scaled/--raw where it does not declare its input) "
        "(default: the game's shipped agent, <game>.npz)",
    )
    padded: bool = setting(False, action="store_true")
    """networks only: one graph for every seat count, reading the padded observation
    (<game>-padded.onnx; no --players)"""
    out: str = setting("exported")
    """folder to write to (default: exported/)"""
    mask: str = setting("float32", choices=("float32", "bool"))
    """type of the mask input"""
    positions: int = setting(500)
    """random-play positions to check (per seat count)"""
    seed: int = setting(0)
    """seed of the check's random play"""


def add_export_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``export`` to the ``tablezoo`` command's subparsers."""
    p = subparsers.add_parser(
        "export",
        help="export an agent to ONNX with a JSON description (needs the export extra)",
        description="Export an agent's network (or a trained policy) to ONNX (raw observation and mask in, "
        "action and win share out), write a JSON description beside it, and check it against numpy "
        "with ONNX Runtime.",
    )
    add_arguments(p, ExportSettings, defaults=True, show_defaults=False)
    add_arguments(p, ReadingSettings, defaults=True)
    p.set_defaults(func=cmd_export)
    return p
