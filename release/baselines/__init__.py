"""Baselines of standard algorithms: ``tablezoo baselines run`` trains and scores a row, ``table`` sums up.

    tablezoo baselines run maskable_ppo heckmeck --players 2 --budget 100000 --seed 0
    tablezoo baselines run cleanrl_ppo diamant --players 3 --budget 100000 --seed 1 \
        --score-games 200 --opponents random heuristic
    tablezoo baselines table
    tablezoo baselines publish

**A row** is one algorithm, one game, one seat count, one budget and one training seed. It
trains into ``<out>/<row>/<game>-<n>p/<budget>/seed<S>/train/`` (``--out``, default
``runs/baselines``), then plays the trained policy by the benchmark protocol
(:func:`tablezoo.evaluation.protocol.run_protocol`, at that seat count) and writes
``result.json`` beside ``train/``: the protocol's result with a ``baseline`` entry (the row,
the decisions trained, the minutes spent, the policy file, the learning curve). The rows:

- ``maskable_ppo``: stable-baselines3's MaskablePPO (``tablezoo.training.ppo.sb3``, the
  package's hyperparameters for the game, no teacher), the learner at a random seat, the
  heuristic at every other; the policy is its ``policy.npz``.
- ``rllib_ppo``: RLlib PPO in pure self-play (every seat the learner,
  ``tablezoo.training.rllib.backend``, sampling in the driver); the policy is its
  ``policy.npz``.
- ``tianshou_dqn``: Tianshou's DQN with the action mask (illegal moves never chosen, nor
  bootstrapped from), the learner against heuristic bots (``tablezoo.training.dqn.masked``); the
  policy is ``model.pt``, a ``torch.nn.Sequential`` of Q-values on raw observations.
- ``cleanrl_ppo``: CleanRL-style masked PPO in plain PyTorch over the AEC env against heuristic
  bots (``tablezoo.training.ppo.cleanrl``, the trainer of ``examples/cleanrl_masked_ppo.py``,
  step for step); the policy is its ``model.pt``.
- ``batched_ppo``: self-play PPO in plain PyTorch on the batched native env (every seat of 256
  games at once, one thread; ``tablezoo.training.ppo.batched_selfplay``, the trainer of
  ``examples/selfplay_ppo.py``, step for step): the row that makes 10M decisions affordable;
  the policy is its ``actor.pt``, logits on the padded observation. In To Court the King at 2
  seats its training games are capped and a cut game lost
  (:data:`~tablezoo.release.baselines.rows.BATCHED_FLAGS`).
- ``expert``: the package's expert iteration (``tablezoo expert``) at that seat count
  alone: one imitation round of the heuristic, then search self-play rounds.

**The budget** is in learner decisions: the decisions the policy was trained on. For the
PPO and DQN rows that is the environment steps of the learner (its opponents' moves are not
counted; in self-play every seat is the learner, and each counts). For ``expert`` it is the
decisions that became training targets (its log's ``decisions``: each move of the imitated
heuristic, and each move chosen by the search in self-play, every seat of which is the
search); each search decision also costs
:data:`~tablezoo.release.baselines.rows.EXPERT_SIMULATIONS` network evaluations, which the
budget does not count. Expert iteration learns in rounds, so the row runs rounds until
the budget is reached: it ends at most one round over it, each round being about a tenth of
the budget, and ``result.json`` says how many decisions it took. Every trainer may overshoot
to the end of its last update; ``decisions`` is what it took.

**The learning curve** is each row's own log: the win share of the policy against the
heuristic (every other seat) at about :data:`~tablezoo.release.baselines.rows.CURVE_POINTS`
checkpoints, ``--curve-games`` games each (the trainer's own evaluation, on its own seeds, not
the protocol's). Where the trainer logs its time (``batched_ppo``), ``curve_seconds`` gives
the training's own seconds at each point (playing and learning, the evaluations left out; wall
time, which a rerun does not reproduce), and the plot adds the curves against those minutes.

**Resuming.** A row with a ``result.json`` is finished and is skipped. A stopped
``cleanrl_ppo``, ``batched_ppo``, ``rllib_ppo`` or ``expert`` row continues from its last
checkpoint; a stopped
``maskable_ppo`` or ``tianshou_dqn`` row (neither saves its state mid-run) starts its
training again from scratch, in an emptied ``train/``. A row's command run through gives the
same decisions and curve every time; ``cleanrl_ppo`` resumed gives them too (every generator
is checkpointed), ``batched_ppo`` resumed does not (the games in play are not saved): rerun it
from an empty folder to reproduce it.

A resumed row's ``result.json`` says so (``"resumed": true``); its ``train_minutes`` are
then the training's own logged time over every session (``batched_ppo``), or this session's
wall time alone where the trainer logs none.

**Scoring.** ``--score-games`` and ``--opponents`` default to the protocol's 1,000 games a
cell and its panel for the game; fewer games or another panel make the result say
``"complete": false`` (so does a single seat count, always: the protocol plays three).

**The table.** ``tablezoo baselines table`` reads every ``result.json`` under
``--out`` and, per algorithm, game, seat count and budget, sums the training seeds up with
:func:`tablezoo.evaluation.aggregate.aggregate` (rliable's interquartile mean of the
normalised cell scores, with a stratified-bootstrap 95% interval), and per algorithm, game and
budget whose seeds have a full-protocol row at each of the protocol's seat counts, the three as
one protocol result a seed (``tablezoo benchmark --join``; seats ``2/4/7`` in the table); it writes
``<results>/baselines.json``, ``<results>/baselines.md`` (a markdown table) and a
learning-curve plot per game, ``<results>/baselines-<game>.png`` (``--results``, default
``benchmarks/results``).

**Publishing.** ``tablezoo baselines publish`` copies every finished row under
``--out`` that was scored by the whole protocol (the panel, 1,000 games a cell) into
``--results`` (default ``benchmarks/results/protocol``): its result as
``<algorithm>-<game>-<n>p-<budget>-seed<S>.json`` (budget ``1M``, ``10M``), its trained policy
as ``policies/<same name>.pt`` (a file ``tablezoo benchmark`` plays), and for each row of three
seeds or more the aggregate over them and its performance profile (``-all-`` in place of the
seat count: over the three seat counts joined). ``table`` reads those
published rows as well as the ones under ``--out``.

**Smoke run** (CI): ``--budget 512 --curve-games 4 --score-games 4 --opponents random``
trains every row for a few seconds (updates then come every few dozen decisions instead of
every few thousand, :func:`~tablezoo.release.baselines.rows.short_rollouts`);
``tests/release/test_baselines.py`` runs it.

**The modules.** :mod:`~tablezoo.release.baselines.rows` adapts a row to its trainer (each the
package's: :mod:`tablezoo.training.ppo`, :mod:`tablezoo.training.rllib`,
:mod:`tablezoo.training.dqn`, :mod:`tablezoo.training.expert`) and scores it;
:mod:`~tablezoo.release.baselines.table` sums the rows up and publishes them; the command is
:mod:`tablezoo.commands.baselines`.
"""

from tablezoo.release.baselines.rows import (
    ALGORITHMS,
    BATCHED_FLAGS,
    BUDGETS,
    GAMES,
    MIN_SEEDS,
    TABLE_SEATS,
    TRAINERS,
    Row,
    Trained,
    load_policy,
    run_row,
)
from tablezoo.release.baselines.table import (
    budget_label,
    finished_rows,
    joined_runs,
    markdown,
    publish,
    published_name,
    summary_markdown,
    table,
)

__all__ = [
    "ALGORITHMS",
    "BATCHED_FLAGS",
    "BUDGETS",
    "GAMES",
    "MIN_SEEDS",
    "TABLE_SEATS",
    "TRAINERS",
    "Row",
    "Trained",
    "budget_label",
    "finished_rows",
    "joined_runs",
    "load_policy",
    "markdown",
    "publish",
    "published_name",
    "run_row",
    "summary_markdown",
    "table",
]
