"""Expert iteration: a policy-and-value network trained from its own search, one per game.

    tablezoo expert heckmeck --out runs --hours 1.5          # new run, or resumes runs/expert-heckmeck
    tablezoo expert court --teacher heuristic --rounds 9 --games 200 --simulations 32
    tablezoo expert court --teacher-rounds 6 --league-rounds 20 --rounds 26       # imitation, then PPO
    tablezoo expert court --init runs/expert-court/net-25.npz --teacher-rounds 0 --league-rounds 40 \
        --rounds 40 --league-learning-rate-end 5e-5 --out runs/court-more         # more PPO from round 25
    tablezoo expert court --resume runs/expert-court --rounds 30                  # go on, saved settings

The loop (AlphaZero-style self-play, adapted to chance and hidden cards by the
search of :mod:`tablezoo.bots.search`):

1. **Imitation** (the first ``teacher_rounds`` rounds): the game's ``teacher``
   bot plays ``teacher_games`` games, seat counts taken in turn from all the
   game allows, each seat played by the teacher or, one time in four
   (``random_seats``), by ``random`` (so that the outcomes vary even where identical teachers would
   always tie); the network learns the teacher's moves and, from the mover's
   and one other seat's observation at every decision, the win share that seat
   ended with. From the second imitation round on, the network itself plays
   half of the teacher's seats (``dagger_share``) and the teacher only says what it would have
   played (DAgger): the network learns to recover from the positions its own
   mistakes lead to, which the teacher never reaches. ``teacher_at`` gives
   a table size a teacher of its own (``--teacher-at 2=search``: a search that
   is strong but slow where it is strongest, the quick heuristic elsewhere).
   With ``soft_targets`` ``T`` above 0, a teacher that values its moves
   (``action_values``: Heckmeck's solver in expected worms, 6 nimmt!'s search
   in heads, Diamant's search in win credit) teaches every legal move with
   weight ``exp((value - best) / T)`` and plays the move it values most: a near
   tie costs the network little, a move that throws worms away much.
2. **League rounds** (the next ``league_rounds``, none by default): the
   network plays against a league of bots and of itself, its moves sampled,
   and improves by policy gradient (PPO) on the win shares of those games
   (:mod:`tablezoo.training.expert.league`). Imitation learns the teacher's level;
   this is how the network goes past it. The step size may fall along a half
   cosine over the league rounds (``league_learning_rate_end``): late rounds,
   whose gains are small beside the noise of dice-decided outcomes, then
   settle rather than wander.
3. **Expert iteration** (the rounds after): every seat is played by the
   search (``simulations`` per move, Dirichlet noise at the root: ``root_noise``,
   ``dirichlet_alpha``), guided by the
   current network. The network then learns the search's visit distribution
   (policy) and the final win shares (value), from a buffer of the latest
   samples. Search improves on the network; the network learns the improvement;
   the next search starts from a better network. With ``selfplay`` ``gumbel``
   these rounds play all their games at once in the native core instead
   (:mod:`tablezoo.training.expert.search_selfplay`): a Gumbel root with sequential
   halving at every decision, the improved policy of its completed Q-values as
   the policy target, and value-only samples where chance is due. With
   ``gumbel_opponent`` a native bot sits at every seat but one of a share of
   those games (``gumbel_opponent_share``): the seat left is searched and learns
   against the bot, the rest of the games stay pure self-play. ``gumbel_leaf`` and
   ``gumbel_others`` value and play its simulations as the table's search's ``leaf`` and
   ``others`` do (6 nimmt!'s games played out, ``end``, as its thinking agent plays them).

Every round logs, beside its losses, how well the win-share head foretold the outcomes of the
round's new games before learning from them (:func:`calibration`), and the network alone
against ``eval_bot``.

Self-play runs in ``workers`` processes (numpy only; every game has its own seed and the
games come back in order, so a run is the same on any number of them); the network is trained
with torch in the main process (Adam, ``epochs`` passes over the buffer a round,
the step size falling along a half cosine to ``last_step_size`` of ``learning_rate``) and
copied into the numpy :class:`~tablezoo.bots.net.PolicyValueNet` that the search
and the tables use.
Why an own loop rather than SB3 or RLlib: the targets are the search's visit
counts and the game's outcome, not a reward stream an RL library optimises,
and the search needs the engine's ``determinize`` and chance nodes, which an
environment hides.

A run starts from a fresh network, or from a saved one (``init``: a run's
``net-<k>.npz``, so that a finished run can go on with other settings in a
new folder; imitation may then be left out, ``teacher_rounds`` 0).

A run lives in ``<out>/expert-<game>/``: ``net.npz`` (the latest network),
``net-<k>.npz`` per iteration, ``buffer.npz`` (the samples of imitation and search
self-play, none in a run of league rounds alone; ``played-<k>.npz``
holds a round's games until the network has learnt from them), ``log.jsonl``
(one line per iteration: games, samples, losses, seconds, win share against
the heuristic) and ``config.json``. Run the same command again to resume after the
last finished iteration (or ``--resume`` the folder: its saved settings, with more
``--rounds``); ``--hours`` stops cleanly before the time is up.

Every setting of the method, the constants of the search's noise, of DAgger and
of PPO included, is a field of :class:`~tablezoo.training.expert.config.ExpertConfig`
(:mod:`tablezoo.training.expert.config`), saved in ``config.json``;
``tablezoo expert``'s flags and their help are made from those fields
(:mod:`tablezoo.games.settings`). Runs saved before ``rounds`` counted the
rounds (``iterations``, the last round's index) are read as they were meant
(:meth:`ExpertConfig.saved`). The games are played, pooled and fitted by
:mod:`tablezoo.training.expert.selfplay`, as the league's and the tournaments' are.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.native import NativeAgentBot, has_native_search
from tablezoo.bots.net import PolicyValueNet, win_share
from tablezoo.bots.registry import make_bot
from tablezoo.bots.search import AgentBot, search
from tablezoo.evaluation.play import play_in_order, play_out
from tablezoo.evaluation.tournament import one_against_all
from tablezoo.games import game_class, make
from tablezoo.games.core import Game
from tablezoo.training.expert.config import (
    IMITATION,
    LEAGUE,
    ExpertConfig,
)
from tablezoo.training.expert.selfplay import (
    Decisions,
    cached_net,
    column,
    forget_nets,
    minibatch_fit,
    seat_bots,
    seat_counts,
)

# --------------------------------------------------------------------------- self-play


@dataclass
class Samples(Decisions):
    """Training samples: padded observations, legal moves, policy targets (or none), value targets."""

    policy: np.ndarray = column("actions", np.float16)
    """(N, actions): rows of 0 where only the value is learned."""
    value: np.ndarray = column("", np.float32)
    """(N,): the seat's final win share."""

    @classmethod
    def missing(cls, name: str, read: dict[str, np.ndarray]) -> np.ndarray:
        if name == "legal":  # runs from before the legal moves were kept learn over every move, as then
            return np.ones(read["policy"].shape, bool)
        return super().missing(name, read)


RANDOM = 0
"""A seat of an imitation game played by ``random``."""
TEACHER = 1
"""A seat of an imitation game played by the teacher."""
LEARNER = 2
"""A seat of an imitation game played by the network (DAgger)."""


class Recording(NamedTuple):
    """One game to record (:func:`play_one`)."""

    config: ExpertConfig
    """The run's settings."""
    seats: int
    """The table's seat count."""
    player: str
    """A bot's name (the teacher: its moves are the policy targets) or a network file (the search's
    visit counts are)."""
    seed: int
    """The game's seed: its chance, its seating and its bots' seeds."""
    learner: str = ""
    """With a teacher: the network file that plays some of its seats (DAgger), or none."""


Choice = Callable[[Seat], tuple[int, np.ndarray]]
"""A mover's move and its policy target (0s: none) at a decision."""


def imitation_seats(config: ExpertConfig, n: int, learner: bool, rng: np.random.Generator) -> np.ndarray:
    """Who plays each seat of an imitation game: :data:`RANDOM` at about ``random_seats`` of them, of
    the others the network (:data:`LEARNER`, with a ``learner``) at about ``dagger_share``, else the
    teacher; never random everywhere."""
    kind = np.where(rng.random(n) < config.random_seats, RANDOM, TEACHER)
    if learner:
        kind[(kind == TEACHER) & (rng.random(n) < config.dagger_share)] = LEARNER
    if (kind == RANDOM).all():
        kind[rng.integers(n)] = TEACHER
    return kind


def teacher_choice(
    config: ExpertConfig, task: Recording, game: Game[Any], rng: np.random.Generator
) -> Choice:
    """The moves of an imitation game and the teacher's targets (see :func:`play_one`)."""
    kind = imitation_seats(config, task.seats, bool(task.learner), rng)
    bots: list[Any] = seat_bots(game, ["random" if k == RANDOM else task.player for k in kind], rng)
    student = AgentBot(cached_net(task.learner)) if task.learner else None

    def choose(at: Seat) -> tuple[int, np.ndarray]:
        target = np.zeros(game.num_actions, np.float32)
        teacher, who = bots[at.seat], kind[at.seat]
        if who != RANDOM and config.soft_targets > 0 and hasattr(teacher, "action_values"):
            # every legal move, weighed by how much the teacher loses by it; the teacher
            # plays the move it values most (one evaluation, not one for the move as well)
            values = np.array(teacher.action_values(at), np.float64)
            weights = np.exp((values - values.max()) / config.soft_targets)
            target[at.legal] = weights / weights.sum()
            action = at.legal[int(np.argmax(values))]
        else:
            action = teacher.act(at)
            if who != RANDOM:
                target[action] = 1.0
        if who == LEARNER:
            action = student.act(at)  # type: ignore[union-attr]  # a learner seat implies a student
        return action, target

    return choose


def search_choice(
    config: ExpertConfig, game: Game[Any], net: PolicyValueNet, rng: np.random.Generator
) -> Choice:
    """The search's moves, its visit distribution the target, with noise at the root: searched in
    the core where it has a native search of ``game`` (:class:`~tablezoo.bots.native.NativeAgentBot`,
    seeded from ``rng``), by :func:`~tablezoo.bots.search.search` elsewhere."""
    native = None
    if has_native_search(game, net, {"search": config.simulations}):
        native = NativeAgentBot(game, net, config.simulations, seed=int(rng.integers(2**63)))

    def choose(at: Seat) -> tuple[int, np.ndarray]:
        if native is not None:
            root = native.root(at, noise=config.root_noise, dirichlet_alpha=config.dirichlet_alpha)
        else:
            root = search(
                at,
                net,
                config.simulations,
                rng,
                noise=config.root_noise,
                dirichlet_alpha=config.dirichlet_alpha,
            )
        target = np.zeros(at.game.num_actions, np.float32)
        target[root.legal] = root.visits / root.visits.sum()
        return root.legal[int(np.argmax(root.visits + 1e-3 * root.prior))], target

    return choose


def play_one(task: Recording) -> Samples:
    """One recorded game.

    With a teacher, about ``random_seats`` of the seats play ``random`` (no
    targets); with a ``learner`` network as well, ``dagger_share`` of the
    others are played by that network, and the teacher's move is still the
    target at each of their decisions. A network ``player`` is the search's
    (its visit counts the targets). Every decision gives the mover's
    observation with its target and a value-only sample of one other seat's:
    the search values positions from a seat that is waiting too (all of them
    would crowd out the policy samples at big tables).
    """
    config, n = task.config, task.seats
    game = make(config.game, n)
    rng = np.random.default_rng(task.seed)
    chance = np.random.default_rng(rng.integers(2**63))
    if task.player.endswith(".npz"):
        choose = search_choice(config, game, cached_net(task.player), rng)
    else:
        choose = teacher_choice(config, task, game, rng)
    state = game.initial_state()
    nothing = np.zeros(game.num_actions, bool)
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []

    def act(at: Seat) -> int:
        action, target = choose(at)
        other = (at.seat + 1 + int(rng.integers(n - 1))) % n
        rows.append((game.observe(state, at.seat), at.mask.astype(bool), target, at.seat))
        rows.append((game.observe(state, other), nothing, np.zeros_like(target), other))
        return action

    if not play_out(game, state, chance, act, check=False):  # a game that does not end teaches nothing
        return Samples.empty(game.padded_spec.size, game.num_actions)
    obs, legal, targets, seat_of = zip(*rows, strict=True)
    shares = np.array([win_share(game, state, s) for s in range(n)], np.float32)
    return Samples(
        game.pad(np.array(obs)).astype(np.uint8),
        np.array(legal),
        np.array(targets, np.float16),
        shares[np.array(seat_of)],
    )


def generate(config: ExpertConfig, player: str, games: int, seed: int, learner: str = "") -> Samples:
    """Play ``games`` recorded games in ``workers`` processes, seat counts taken in turn.

    When ``player`` is the run's teacher, a table of ``n`` seats is taught by
    ``config.teacher_for(n)``.
    """
    forget_nets()  # the network file is rewritten every round: a process playing in place reloads it
    rng = np.random.default_rng(seed)
    teaching = player == config.teacher
    tasks = [
        Recording(config, n, config.teacher_for(n) if teaching else player, int(rng.integers(2**62)), learner)
        for n in seat_counts(config.num_players, games)
    ]
    return Samples.join(play_in_order(play_one, tasks, config.workers))


def generate_gumbel(config: ExpertConfig, net: PolicyValueNet, games: int, seed: int) -> Samples:
    """A search round's games by the batched Gumbel loop in the core: at each seat count its share of
    ``games`` (seat counts taken in turn), up to ``gumbel_games`` at once on ``workers`` threads,
    every decision searched; each finished game's decisions with their improved policies and the
    win shares their movers ended with. Games still running when a seat count has its share are
    left unfinished (they have no outcome yet)."""
    from tablezoo.training.expert.search_selfplay import SearchSelfPlay, evidence_policy

    rng = np.random.default_rng(seed)
    per_count: dict[int, int] = {}
    for n in seat_counts(config.num_players, games):
        per_count[n] = per_count.get(n, 0) + 1
    parts: list[Samples] = []
    for n, wanted in per_count.items():
        loop = SearchSelfPlay(
            config.game,
            n,
            num_games=min(config.gumbel_games, wanted),
            seed=int(rng.integers(2**62)),
            simulations=config.simulations,
            considered=config.considered,
            c_scale=config.gumbel_scale,
            num_threads=config.workers,
            opponent=config.gumbel_opponent or None,
            opponent_games=round(config.gumbel_opponent_share * min(config.gumbel_games, wanted))
            if config.gumbel_opponent
            else 0,
            leaf=config.gumbel_leaf,
            others=config.gumbel_others,
        )
        taken: list[dict[str, np.ndarray]] = []
        while loop.counts()["episodes"] < wanted:
            taken.append(loop.play(net, 8))
        keys = ("obs", "mask", "policy", "value", "visits", "q")
        rows = {key: np.concatenate([t[key] for t in taken]) for key in keys}
        if config.gumbel_target == "evidence":
            rows["policy"] = evidence_policy(net, rows, config.gumbel_confidence)
        parts.append(
            Samples(
                rows["obs"].astype(np.uint8),
                rows["mask"],
                rows["policy"].astype(np.float16),
                rows["value"].astype(np.float32),
            )
        )
    return Samples.join(parts)


def calibration(net: PolicyValueNet, data: Samples, bins: int = 10) -> dict[str, float]:
    """How well the win-share head foretells outcomes it has not learnt from (a round's new samples,
    before the fit): the Brier score of its win shares, the expected calibration error (the mean gap
    between the win share it gives and the share won, over ``bins`` equal bins, weighed by their
    sizes) and the two means. Overconfidence shows as an error above what the Brier score's spread
    explains: win shares near 0 and 1 where the outcomes are not."""
    if len(data) == 0:
        return {}
    predicted = net.forward(data.obs.astype(np.float32))[1]
    outcome = data.value
    which = np.minimum((predicted * bins).astype(int), bins - 1)
    gap = 0.0
    for b in range(bins):
        rows = which == b
        if rows.any():
            gap += rows.mean() * abs(float(predicted[rows].mean()) - float(outcome[rows].mean()))
    return {
        "value_brier": round(float(np.mean((predicted - outcome) ** 2)), 4),
        "value_ece": round(gap, 4),
        "value_mean": round(float(predicted.mean()), 4),
        "outcome_mean": round(float(outcome.mean()), 4),
    }


# --------------------------------------------------------------------------- learning


def fit(net: PolicyValueNet, data: Samples, config: ExpertConfig, seed: int) -> tuple[PolicyValueNet, dict]:
    """Train ``net`` on ``data`` for ``epochs`` with torch; the new numpy network and the losses.

    The step size falls along a half cosine to ``last_step_size`` of itself over the round: the
    first epochs learn the new samples, the last ones settle fine distinctions (Heckmeck: a roll or
    a stop with two dice left), which a constant step keeps jumping over."""
    import torch
    from torch import nn

    obs = torch.from_numpy(data.obs)
    policy = torch.from_numpy(data.policy.astype(np.float32))
    illegal = torch.from_numpy(~data.legal)
    value = torch.from_numpy(data.value)
    has_policy = policy.sum(dim=1) > 0

    def loss(twin: Any, idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        mask = has_policy[idx]
        logp, v = twin.policy_value(obs[idx], illegal[idx], mask)
        p_loss = -(policy[idx][mask] * logp).sum(dim=1).mean() if logp is not None else v.sum() * 0
        v_loss = nn.functional.binary_cross_entropy_with_logits(v, value[idx])
        return p_loss + v_loss, {"policy_loss": p_loss.item(), "value_loss": v_loss.item()}

    fitted = minibatch_fit(
        net,
        len(data),
        loss,
        figures=("policy_loss", "value_loss"),
        epochs=config.epochs,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        seed=seed,
        weight_decay=config.weight_decay,
        last_step_size=config.last_step_size,
    )
    return fitted.net, fitted.means


# --------------------------------------------------------------------------- the loop


def strength(config: ExpertConfig, net: PolicyValueNet, seed: int) -> dict[str, Any]:
    """The network alone against ``eval_bot`` at 2 and 4 seats (or the nearest the game allows).

    Per seat count: win share, its 95% interval and the fair share."""
    cls = game_class(config.game)
    result: dict[str, Any] = {}
    for n in sorted({max(cls.info.min_seats, 2), min(cls.info.max_seats, 4)}):
        game = make(config.game, n)
        s = one_against_all(
            game,
            lambda: AgentBot(net),
            lambda game=game: make_bot(config.eval_bot, game),  # type: ignore[misc]
            config.eval_games,
            seed,
        )
        low, high = s.interval()
        result[f"{n}p"] = [round(s.win_rate, 3), round(low, 3), round(high, 3), round(1 / n, 3)]
    return result


def _log(run: Path, entry: dict[str, Any]) -> None:
    with (run / "log.jsonl").open("a") as f:
        f.write(json.dumps(entry) + "\n")
    print(json.dumps(entry), flush=True)


def _start(config: ExpertConfig, resuming: bool) -> tuple[PolicyValueNet, Samples]:
    """The network and the buffer a run starts (or resumes) with."""
    run = config.run_dir
    game: Game[Any] = make(config.game, config.num_players[0])
    data = Samples.empty(game.padded_spec.size, game.num_actions)
    if resuming:
        if (run / "buffer.npz").exists():  # a run of league rounds alone keeps no imitation samples
            data = Samples.load(run / "buffer.npz")
        return PolicyValueNet.load(run / "net.npz"), data
    if config.init:
        net = PolicyValueNet.load(config.init)
        net.check_fits(game, config.init)
        return net, data
    return PolicyValueNet.initial(game, config.hidden, config.seed, config.action_head), data


def _player(config: ExpertConfig, stage: str, learner: str) -> str:
    """Who plays a round's games, as its log line says."""
    if stage == IMITATION:
        return f"teacher {' and '.join(config.teachers)}" + (" with the network" if learner else "")
    if stage == LEAGUE:
        return "league of " + ", ".join(config.league)
    if config.selfplay == "gumbel":
        against = (
            f" against {config.gumbel_opponent} in {config.gumbel_opponent_share:g} of the games"
            if config.gumbel_opponent
            else ""
        )
        how = f"simulations={config.simulations} considered={config.considered}"
        how += "" if config.gumbel_leaf == "head" else f" leaf={config.gumbel_leaf}"
        how += "" if config.gumbel_others == "sample" else f" others={config.gumbel_others}"
        how += "" if config.gumbel_target == "sigma" else f" target=evidence({config.gumbel_confidence:g})"
        return f"gumbel {how}{against}"
    return f"search={config.simulations}"


@dataclass
class Round:
    """What one round did, for its log line."""

    net: PolicyValueNet
    """The network after the round."""
    data: Samples
    """The buffer after the round (a league round's: the one before it)."""
    losses: dict[str, Any]
    """What the fit measured."""
    decisions: int
    """The decisions learnt from: with a policy target, or the network's own in league games."""
    new_samples: int
    """The round's samples."""
    played_at: float
    """When the games were played (``time.monotonic``), between the round's start and its end."""


def _league_round(
    config: ExpertConfig, iteration: int, net: PolicyValueNet, data: Samples, learner: str
) -> Round:
    """A league round: the network's league games (kept in ``played-<k>.npz`` until learnt from), PPO."""
    from tablezoo.training.expert.league import Episodes, generate_league, improve

    played = config.run_dir / f"played-{iteration}.npz"
    seed = config.seed * 1000 + iteration
    if played.exists():
        games = Episodes.load(played)
    else:
        games = generate_league(config, learner, seed)
        games.save(played)
    played_at = time.monotonic()
    step_size = config.league_step_size(iteration - config.teacher_rounds)
    net, losses = improve(net, games, config, seed, step_size)
    return Round(net, data, losses, len(games), len(games), played_at)


def _sample_round(
    config: ExpertConfig, iteration: int, net: PolicyValueNet, data: Samples, learner: str
) -> Round:
    """An imitation or search round: its recorded games (kept in ``played-<k>.npz`` until learnt from)
    join the buffer, and the network learns the buffer's latest samples."""
    run = config.run_dir
    played = run / f"played-{iteration}.npz"
    seed = config.seed * 1000 + iteration
    if played.exists():  # played before a stop, not yet learnt from
        new = Samples.load(played)
    else:
        if config.stage(iteration) == IMITATION:
            new = generate(config, config.teacher, config.teacher_games, seed, learner)
        elif config.selfplay == "gumbel":
            new = generate_gumbel(config, net, config.games, seed)
        else:
            new = generate(config, str(run / "net.npz"), config.games, seed)
        new.save(played)
    played_at = time.monotonic()
    measured = calibration(net, new)
    data = Samples.join([data, new]).tail(config.buffer)
    net, losses = fit(net, data, config, seed)
    losses = {**losses, **measured}
    return Round(net, data, losses, int((new.policy.sum(axis=1) > 0).sum()), len(new), played_at)


def play_round(
    config: ExpertConfig, iteration: int, net: PolicyValueNet, data: Samples
) -> tuple[Round, dict[str, Any]]:
    """Round ``iteration`` of a run: play, learn, save the network (and the buffer); what it did
    and its log line."""
    run, started = config.run_dir, time.monotonic()
    stage = config.stage(iteration)
    learner = str(run / "net.npz") if iteration > 0 or config.init else ""
    if iteration == 0 and config.init:
        net.save(run / "net.npz")  # what the first round's games are played by
    play = _league_round if stage == LEAGUE else _sample_round
    done = play(config, iteration, net, data, learner)
    meta = {"iteration": iteration, "teacher": config.teacher, "simulations": config.simulations}
    done.net.meta.update(meta)
    done.net.save(run / f"net-{iteration}.npz")
    done.net.save(run / "net.npz")
    if stage != LEAGUE:
        done.data.save(run / "buffer.npz")
    (run / f"played-{iteration}.npz").unlink()
    seed = config.seed * 1000 + iteration
    fitted_at = time.monotonic()
    checked = strength(config, done.net, seed) if config.eval_games else {}
    entry = {
        "iteration": iteration,
        "player": _player(config, stage, learner),
        "games": config.round_games(iteration),
        "decisions": done.decisions,
        "new_samples": done.new_samples,
        "buffer": len(done.data),
        **done.losses,
        "play_seconds": round(done.played_at - started, 1),
        "fit_seconds": round(fitted_at - done.played_at, 1),
        f"against_{config.eval_bot}": checked,
        "eval_seconds": round(time.monotonic() - fitted_at, 1),
    }
    return done, entry


def run_expert(config: ExpertConfig) -> Path:
    """Run (or resume) expert iteration; the run's folder."""
    run = config.run_dir
    run.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    done = [json.loads(line) for line in (run / "log.jsonl").open()] if (run / "log.jsonl").exists() else []
    (run / "config.json").write_text(json.dumps(asdict(config), indent=2))
    net, data = _start(config, bool(done))
    for iteration in range(len(done), config.rounds):
        spent = (time.monotonic() - started) / 3600
        if config.hours and done and spent > config.hours * 0.85:
            print(f"stopping before iteration {iteration}: {spent:.2f} of {config.hours} hours spent")
            break
        result, entry = play_round(config, iteration, net, data)
        net, data = result.net, result.data
        _log(run, entry)
        done.append(entry)
    return run
