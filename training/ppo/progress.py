"""What a run does as it trains, whichever the backend: snapshots, evaluations, checkpoints, the curve.

Both backends report their step count (learner decisions so far) to one
:class:`Progress`: the stable-baselines3 backend (:mod:`tablezoo.training.ppo.sb3`)
from its callback, after every step of its ``n_envs`` envs, the RLlib backend
(:mod:`tablezoo.training.rllib.backend`) after every iteration. It does what is due,
in this order:

* a snapshot of the learner for the self-play pool (when ``self_play > 0``), once per
  ``snapshot_every`` steps: a report past several multiples takes one, and the next
  reports make up the others, one each;
* an evaluation, at the first report past each multiple of ``eval_every``: the learner
  at one seat, every other seat one ``eval_against`` bot, ``eval_games`` games
  (:func:`~tablezoo.evaluation.tournament.one_against_all`, seed ``seed + 1000 + k`` for the
  ``k``-th bot); each bot's win rate and 95% interval make a row of the curve;
* a checkpoint (the backend's own saving), at the first report past each multiple of
  ``checkpoint_every``.

:meth:`Progress.start` evaluates the learner before training (where the curve starts);
:meth:`Progress.finish` evaluates the final learner, unless the curve's last row is
recent enough, and writes ``curve.csv`` and ``curve.png``.

What differs between the backends comes in as callbacks: how to export the learner as a
:class:`~tablezoo.bots.policy.PolicyValueNet`, where to log a figure, what a snapshot and a
checkpoint are. A resumed run passes the counts it saved, so nothing is done twice.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.policy import PolicyBot
from tablezoo.bots.registry import make_bot
from tablezoo.evaluation.tournament import one_against_all
from tablezoo.games.core import Game

if TYPE_CHECKING:
    from tablezoo.training.ppo.config import TrainConfig


@dataclass
class Every:
    """A task due once per ``every`` steps, at the first report past each multiple (never if 0)."""

    every: int
    """Steps between two doings of the task (0: never)."""
    done: int = 0
    """Periods done: ``steps // every`` when last done, or with ``catch_up`` the times it was done."""
    catch_up: bool = False
    """Whether each period passed without the task is made up, one per report (else a report past
    several multiples does it once)."""

    def due(self, steps: int) -> bool:
        """Whether the task is due at ``steps``."""
        return self.every > 0 and steps // self.every > self.done

    def mark(self, steps: int) -> None:
        """The task is done at ``steps``."""
        self.done = self.done + 1 if self.catch_up else steps // self.every


class Progress:
    """The snapshots, evaluations, checkpoints and learning curve of one run (see the module).

    ``policy(steps)`` exports the learner as it is now; ``log(tag, value, steps)`` records a
    figure (TensorBoard); ``add_snapshot(policy, steps)`` puts a frozen learner in the
    self-play pool; ``checkpoint(steps)`` saves what a resumed run needs. A resumed run
    passes ``steps``, ``curve`` (its rows, kept in this very list), and how many
    ``snapshots`` and ``checkpoints`` it took.
    """

    def __init__(
        self,
        config: TrainConfig,
        game: Game[Any],
        run: Path,
        policy: Callable[[int], PolicyValueNet],
        log: Callable[[str, float, int], None],
        *,
        add_snapshot: Callable[[PolicyValueNet, int], None] | None = None,
        checkpoint: Callable[[int], None] | None = None,
        checkpoint_every: int = 0,
        steps: int = 0,
        curve: list[dict[str, Any]] | None = None,
        snapshots: int = 0,
        checkpoints: int = 0,
    ) -> None:
        self.config, self.game, self.run = config, game, run
        self.policy, self.log = policy, log
        self.add_snapshot, self.checkpoint = add_snapshot, checkpoint
        self.steps = steps
        """The steps at the last report (at the start: where the run starts)."""
        self.curve: list[dict[str, Any]] = [] if curve is None else curve
        """The rows of the learning curve: step, against, win_rate, low, high."""
        self.snapshots = Every(config.snapshot_every, snapshots, catch_up=True)
        self.evaluations = Every(config.eval_every, steps // config.eval_every if config.eval_every else 0)
        self.checkpoints = Every(checkpoint_every, checkpoints)

    def start(self) -> None:
        """Evaluate the learner before training (where the curve starts), unless the curve has rows."""
        if self.config.eval_every and not self.curve:
            self.evaluate(self.steps)

    def after(self, steps: int) -> None:
        """``steps`` learner decisions are done: the snapshot, evaluation and checkpoint due, in turn."""
        self.steps = steps
        if self.add_snapshot is not None and self.config.self_play > 0 and self.snapshots.due(steps):
            self.snapshots.mark(steps)
            self.add_snapshot(self.policy(steps), steps)
        if self.evaluations.due(steps):
            self.evaluations.mark(steps)
            self.evaluate(steps)
        if self.checkpoint is not None and self.checkpoints.due(steps):
            self.checkpoints.mark(steps)
            self.checkpoint(steps)

    def finish(self, steps: int, within: int = 1) -> None:
        """Evaluate the final learner, unless the curve's last row is fewer than ``within`` steps
        old; then write the curve (:func:`write_curve`)."""
        self.steps = steps
        if not self.curve or steps - self.curve[-1]["step"] >= within:
            self.evaluate(steps)
        write_curve(self.run, self.curve, fair_share=1 / self.game.num_seats)

    def evaluate(self, steps: int) -> None:
        """The learner against each ``eval_against`` bot: a row of the curve each, and its win rate logged."""
        config, game = self.config, self.game
        policy = self.policy(steps)
        for k, against in enumerate(config.eval_against):
            standing = one_against_all(
                game,
                lambda: PolicyBot(policy),
                partial(make_bot, against, game),
                config.eval_games,
                config.seed + 1000 + k,
            )
            low, high = standing.interval()
            self.curve.append(
                {"step": steps, "against": against, "win_rate": standing.win_rate, "low": low, "high": high}
            )
            self.log(f"eval/win_rate_vs_{against}", standing.win_rate, steps)


def write_curve(run: Path, curve: list[dict[str, Any]], fair_share: float) -> None:
    """``curve.csv`` and ``curve.png``: the win rate against each evaluation bot as training went on."""
    with open(run / "curve.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["step", "against", "win_rate", "low", "high"])
        writer.writeheader()
        writer.writerows(curve)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for against in dict.fromkeys(row["against"] for row in curve):
        rows = [r for r in curve if r["against"] == against]
        steps = [r["step"] for r in rows]
        ax.plot(steps, [r["win_rate"] for r in rows], marker="o", label=f"vs {against}")
        ax.fill_between(steps, [r["low"] for r in rows], [r["high"] for r in rows], alpha=0.2)
    ax.axhline(fair_share, color="grey", linestyle="--", linewidth=1, label="fair share")
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(run.name)
    fig.tight_layout()
    fig.savefig(run / "curve.png", dpi=100)
    plt.close(fig)
