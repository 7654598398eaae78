"""A shipped network's win-share head refitted to its own games: ``tablezoo ship GAME --refit-value ...``.

The search (:mod:`tablezoo.bots.search`) values positions by the network's win-share head, and
the heads expert iteration trains learn the outcomes of games where a quarter of the seats play
at random: against their equals they are sure where the game is not
(``benchmarks/value_calibration.py``). :func:`refit_value` refits the head to the network's own
games (:func:`~tablezoo.training.expert.calibrate.calibrate`), the policy unchanged, and records
the refit in the network's ``meta`` (:data:`VALUE_REFIT`); :mod:`tablezoo.release.ship` runs it
before measuring the network and writes the card's lines (:func:`refit_text`,
:func:`with_refit_lines`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from tablezoo.bots.net import PolicyValueNet
from tablezoo.release.recipe import RECIPE
from tablezoo.training.expert.calibrate import calibrate

__all__ = ["VALUE_REFIT", "refit_text", "refit_value", "with_refit_lines"]

VALUE_REFIT = "value_refit"
"""The key of a shipped network's ``meta`` that records the refit of its win-share head."""


def refit_value(
    net_file: Path, game_name: str, players: Sequence[int], games: int, seed: int, out: Path
) -> PolicyValueNet:
    """The network of ``net_file`` with its win-share head refitted to ``games`` of its own games
    (seeded by ``seed``) at each of the seat counts ``players``
    (:func:`~tablezoo.training.expert.calibrate.calibrate`:
    the policy unchanged, bit for bit), saved to ``out``; its ``meta`` records the refit under
    :data:`VALUE_REFIT`, with the squared errors measured on held-out games.

    The search values positions by that head, and the heads trained by expert iteration learn the
    outcomes of games where a quarter of the seats play at random: against equals they are sure
    where the game is not (``benchmarks/value_calibration.py``)."""
    net = PolicyValueNet.load(net_file)
    refit, report = calibrate(net, game_name, players, games, seed)
    refit.meta = {
        **net.meta,
        VALUE_REFIT: {
            "players": list(players),
            "games": games,
            "seed": seed,
            **{k: round(v, 5) if isinstance(v, float) else v for k, v in asdict(report).items()},
        },
    }
    refit.save(out)
    return refit


def refit_text(net: PolicyValueNet) -> str:
    """The card's line on the refit of the network's win-share head ("" where it was not refitted)."""
    refit = net.meta.get(VALUE_REFIT)
    if not refit:
        return ""
    players = ", ".join(map(str, refit["players"]))
    return (
        f"- Win-share head refitted to {refit['games']} games of the network against itself at "
        f"{players} seats (seed {refit['seed']}), the policy unchanged: on held-out games its squared "
        f"error went from {refit['error_before']:.4f} to {refit['error_after']:.4f} (a constant's: "
        f"{refit['error_constant']:.4f}).\n"
    )


def with_refit_lines(training: str, net: PolicyValueNet, command: str) -> str:
    """A card's training section with the refit's line (:func:`refit_text`) in place of any earlier
    one, before the line on how to reproduce the network, and that line naming ``command`` last."""
    lines = [line for line in training.split("\n") if not line.startswith("- Win-share head refitted")]
    at = next((i for i, line in enumerate(lines) if line.startswith("- Reproduce")), len(lines))
    end = next((i for i in range(at + 1, len(lines)) if not lines[i].startswith("  ")), len(lines))
    if at < len(lines) and net.meta.get(RECIPE):
        reproduce = " ".join(part.strip() for part in lines[at:end]).rstrip(".")
        reproduce = reproduce.split("; then `python -m tablezoo.release.ship")[0]
        lines[at:end] = [
            f"{reproduce}; then `{command}`,",
            "  which refits the win-share head and measures it again.",
        ]
    lines.insert(at, refit_text(net).rstrip("\n"))
    return "\n".join(lines)
