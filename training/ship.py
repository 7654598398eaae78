"""Ship a trained run as the package's agent for its game and seat count, with a model card.

    python -m tablezoo.training.ship runs/<run> --games 400

Copies the run's ``policy.npz`` to ``bots/agents/<game>-<n>p.npz`` and
writes ``<game>-<n>p.md`` beside it: how the agent was trained (from the run's
``config.yaml``), and how strong it is, measured here with
:func:`tablezoo.training.evaluate.tournament` against the random and the
heuristic bot (the agent at one seat, rotated; every other seat that bot), with
the command that reproduces each figure. For Heckmeck the card also gives the
agent's expected worms on the opening turn next to the exact solver's.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.policy import NumpyPolicy, PolicyBot
from tablezoo.bots.registry import AGENTS_DIR, make_bot
from tablezoo.games import make
from tablezoo.games.core import TERMINAL
from tablezoo.training.evaluate import one_against_all
from tablezoo.training.train import HYPERPARAMS, resolve_hyperparams


def opening_turn_worms(bot: Bot, num_seats: int, turns: int, seed: int) -> tuple[float, float]:
    """Mean and standard error of the worms ``bot`` wins on the first turn of a Heckmeck game."""
    game = make("heckmeck", num_seats)
    rng = np.random.default_rng(seed)
    gains = []
    for _ in range(turns):
        state = game.initial_state()
        while game.advance(state, rng) != TERMINAL and state.turn == 0:
            game.apply(state, bot.act(Seat.of(game, state, 0)))
        gains.append(game.scores(state)[0])
    return float(np.mean(gains)), float(np.std(gains, ddof=1) / np.sqrt(turns))


def _flow(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, default_flow_style=True, width=1 << 16).strip()


def train_command(config: dict[str, Any], init_from: str | None = None) -> str:
    """The ``tablezoo train`` command of a run's saved config (``init_from``: as the card names it)."""
    command = (
        f"tablezoo train {config['env']} --players {config['num_players']} --timesteps {config['timesteps']} "
        f"--opponents {' '.join(config['opponents'])} --self-play {config['self_play']} "
        f"--reward {config['reward']} --seed {config['seed']}"
        + "".join(f" --option {o}" for o in config["options"])
    )
    if config.get("teacher"):
        command += (
            f" --teacher {config['teacher']} --teacher-decisions {config['teacher_decisions']}"
            f" --teacher-epochs {config['teacher_epochs']}"
        )
    packaged = resolve_hyperparams(HYPERPARAMS, config["env"])
    used = config["resolved_hyperparams"]
    for key in sorted(packaged.keys() | used.keys()):  # what differs from the packaged entry, as overrides
        if packaged.get(key) != used.get(key):
            command += " --hp " + shlex.quote(f"{key}={json.dumps(used.get(key))}")
    if init_from:
        command += f" --init-from {init_from}"
    return command


def training_stages(run: Path) -> list[tuple[dict[str, Any], str, str]]:
    """The runs that made ``run``, first to last (following ``init_from``): each one's config,
    command (a later stage continues ``<the run before>/model.zip``) and imitation note."""
    chain = []
    while True:
        config = yaml.safe_load((run / "config.yaml").read_text())
        chain.append((run, config))
        if not config.get("init_from"):
            break
        run = Path(config["init_from"]).parent
        if not (run / "config.yaml").exists():
            raise SystemExit(f"{run} (which this run continued) has no config.yaml: the card could not say")
    chain.reverse()
    stages = []
    for k, (folder, config) in enumerate(chain):
        previous = f"<run {k}>/model.zip" if k else None
        note = ""
        if config.get("teacher"):
            report = json.loads((folder / "imitation.json").read_text())
            note = (
                f"before PPO, behaviour cloning of the `{config['teacher']}` bot: "
                f"{report['decisions']} of its decisions at the learner's seat ({report['episodes']} games), "
                f"{config['teacher_epochs']} epochs; the clone then chose the teacher's move "
                f"{report['agreement_with_teacher']:.1%} of the time"
            )
        stages.append((config, train_command(config, previous), note))
    return stages


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder written by `tablezoo train`")
    parser.add_argument("--games", type=int, default=400, help="games per evaluation")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the evaluation tournaments")
    args = parser.parse_args(argv)

    config = yaml.safe_load((args.run / "config.yaml").read_text())
    policy = NumpyPolicy.load(args.run / "policy.npz")
    game_name = config["env"].rsplit("_v", 1)[0]
    game = make(game_name, config["num_players"], **dict.fromkeys(config["options"], True))
    n = game.num_seats
    stem = f"{game_name}-{n}p"
    AGENTS_DIR.mkdir(exist_ok=True)

    rows = []
    for against in ("random", "heuristic"):
        s = one_against_all(
            game,
            lambda: PolicyBot(policy),
            lambda: make_bot(against, game),  # noqa: B023 - used at once, inside this loop turn
            args.games,
            args.seed,
        )
        low, high = s.interval()
        verdict = "above" if low > 1 / n else "below" if high < 1 / n else "not clearly above or below"
        rows.append(
            f"| {against} | {s.games} | {s.win_rate:.3f} | [{low:.3f}, {high:.3f}] | {verdict} the fair "
            f"share {1 / n:.3f} | {s.mean_score:.2f} |"
        )
        print(rows[-1])
    extra = ""
    if game_name == "heckmeck":
        from tablezoo.bots.heckmeck import HeckmeckSolverBot, TurnSolver

        turns = 4000
        agent_mean, agent_se = opening_turn_worms(PolicyBot(policy), n, turns, args.seed)
        solver_mean, solver_se = opening_turn_worms(HeckmeckSolverBot(), n, turns, args.seed)
        exact = TurnSolver(list(range(21, 37)), [], []).before_roll(0, 8, 0)
        extra = (
            "\n## Opening turn (Heckmeck)\n\n"
            f"Expected worms won on the first turn of a game, over {turns} sampled turns "
            f"(the same dice seeds for both):\n\n"
            f"| player | worms (mean ± standard error) |\n|---|---|\n"
            f"| this agent | {agent_mean:.3f} ± {agent_se:.3f} |\n"
            f"| exact turn solver | {solver_mean:.3f} ± {solver_se:.3f} (exact value {exact:.3f}) |\n"
        )
        print(extra)

    shutil.copyfile(args.run / "policy.npz", AGENTS_DIR / f"{stem}.npz")
    options = ", ".join(config["options"]) or "none"
    stages = training_stages(args.run)
    reproduce = f"`{stages[0][1]}`" if len(stages) == 1 else "the stages' commands above, in order."
    history = imitation = ""
    if len(stages) > 1:
        history = (
            "\n- Trained in stages, each continuing the one before (`--init-from <run k>/model.zip`, "
            "the folder stage k wrote):"
        ) + "".join(
            f"\n  {k}. `{command}`: {note + ', then ' if note else ''}{cfg['timesteps']} PPO decisions"
            + (
                f" with the hyperparameters `{_flow(cfg['resolved_hyperparams'])}`"
                if cfg["resolved_hyperparams"] != config["resolved_hyperparams"]
                else ""
            )
            + "."
            for k, (cfg, command, note) in enumerate(stages, 1)
        )
    elif stages[0][2]:
        imitation = f"\n- {stages[0][2][0].upper()}{stages[0][2][1:]}."
    if policy.head is None:
        actor = f"MLP actor {[w.shape[0] for w in policy.weights[:-1]]} ({policy.activation})"
    else:
        actor = (
            f"actor: hidden layers {[w.shape[0] for w in policy.weights]} ({policy.activation}), the last "
            f"one a context for an action head that scores each of the actions `{game.action_names[0]}` .. "
            f"`{game.action_names[policy.head.size - 1]}` with "
            f"one shared network (hidden {len(policy.head.bias)}) from its entries of "
            f"{', '.join(f'`{f}`' for f in game.action_fields)}"
        )
    last_stage = "In the last stage, " if len(stages) > 1 else ""
    card = f"""# {game.info.title}, {n} seats: shipped agent

Load it as a bot with the name `agent` (`tablezoo play {game_name} --players {n} --bot agent`),
or from this file with `NumpyPolicy.load`. It runs on numpy alone.

## How it was trained

- MaskablePPO (sb3-contrib), {actor};
  observations scaled to 0..1 by each field's bound; options: {options}.
- {last_stage}{config["timesteps"]} learner decisions at a seat drawn at random each episode;
  opponents drawn per episode from {", ".join(config["opponents"])}; self-play share {config["self_play"]}
  (frozen snapshots every {config["snapshot_every"]} steps); reward `{config["reward"]}`;
  seed {config["seed"]}.{imitation}{history}
- Hyperparameters{" (every stage, unless it says otherwise)" if len(stages) > 1 else ""}:
  `{_flow(config["resolved_hyperparams"])}`.
- Reproduce: {reproduce}

## How strong it is

The agent at one seat (rotated over the seats), every other seat played by the named bot,
{args.games} games, tournament seed {args.seed}. Reproduce a row with
`tablezoo evaluate {game_name} --players {n} --bots agent <bot> --games {args.games} --seed {args.seed}`.

| against | games | win rate | 95% CI | verdict | mean score |
|---|---|---|---|---|---|
{chr(10).join(rows)}
{extra}"""
    (AGENTS_DIR / f"{stem}.md").write_text(card)
    print(f"shipped {AGENTS_DIR / stem}.npz and .md")


if __name__ == "__main__":
    main()
