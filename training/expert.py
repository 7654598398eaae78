"""Expert iteration: a policy-and-value network trained from its own search, one per game.

    tablezoo expert heckmeck --out runs --hours 1.5          # new run, or resumes runs/expert-heckmeck
    tablezoo expert court --teacher heuristic --iterations 8 --games 200 --simulations 32
    tablezoo expert court --teacher-rounds 6 --league-rounds 20 --iterations 25   # imitation, then PPO
    tablezoo expert court --init runs/expert-court/net-25.npz --teacher-rounds 0 --league-rounds 40 \
        --iterations 39 --league-learning-rate-end 5e-5 --out runs/court-more     # more PPO from round 25

The loop (AlphaZero-style self-play, adapted to chance and hidden cards by the
search of :mod:`tablezoo.bots.search`):

1. **Imitation** (the first ``teacher_rounds`` rounds): the game's ``teacher``
   bot plays ``teacher_games`` games, seat counts taken in turn from all the
   game allows, each seat played by the teacher or, one time in four, by
   ``random`` (so that the outcomes vary even where identical teachers would
   always tie); the network learns the teacher's moves and, from the mover's
   and one other seat's observation at every decision, the win share that seat
   ended with. From the second imitation round on, the network itself plays
   half of the teacher's seats and the teacher only says what it would have
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
   (:mod:`tablezoo.training.league`). Imitation learns the teacher's level;
   this is how the network goes past it. The step size may fall along a half
   cosine over the league rounds (``league_learning_rate_end``): late rounds,
   whose gains are small beside the noise of dice-decided outcomes, then
   settle rather than wander.
3. **Expert iteration** (the rounds after): every seat is played by the
   search (``simulations`` per move, Dirichlet noise at the root), guided by the
   current network. The network then learns the search's visit distribution
   (policy) and the final win shares (value), from a buffer of the latest
   samples. Search improves on the network; the network learns the improvement;
   the next search starts from a better network.

Self-play runs in ``workers`` processes (numpy only; every game has its own seed and the
games come back in order, so a run is the same on any number of them); the network is trained
with torch in the main process (Adam, ``epochs`` passes over the buffer a round,
the step size falling along a half cosine to a tenth of ``learning_rate``) and
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
(one line per iteration: samples, losses, seconds, win share against the
heuristic) and ``config.json``. Run the same command again to resume after the
last finished iteration; ``--hours`` stops cleanly before the time is up.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.net import PolicyValueNet, win_share
from tablezoo.bots.registry import make_bot
from tablezoo.bots.search import AgentBot, search
from tablezoo.games import game_class, make
from tablezoo.games.core import TERMINAL, ConfigError, Game
from tablezoo.training.evaluate import MAX_DECISIONS, one_against_all

TEACHERS = {"heckmeck": "solver", "sechs_nimmt": "search", "diamant": "search", "court": "heuristic"}
"""The bot each game imitates first: its strongest bot (6 nimmt!'s ``search`` is slow at big tables:
``--teacher heuristic`` trains in minutes)."""


@dataclass
class ExpertConfig:
    """The settings of one expert-iteration run (``tablezoo expert --help`` says each)."""

    game: str
    out: str = "runs"
    teacher: str = ""
    teacher_at: list[str] = field(default_factory=list)
    teacher_games: int = 1500
    teacher_rounds: int = 1
    soft_targets: float = 0.0
    league_rounds: int = 0
    league: list[str] = field(default_factory=lambda: ["heuristic", "self"])
    league_games: int = 2000
    league_learning_rate: float = 6e-4
    league_learning_rate_end: float = -1.0
    init: str = ""
    iterations: int = 20
    games: int = 150
    simulations: int = 24
    hidden: tuple[int, ...] = (256, 256)
    action_head: int = 64
    epochs: int = 4
    batch_size: int = 256
    learning_rate: float = 1e-3
    buffer: int = 300_000
    workers: int = 2
    hours: float = 0.0
    eval_games: int = 100
    seed: int = 0
    seats: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        cls = game_class(self.game)
        allowed = list(cls.info.seat_range)
        self.seats = list(self.seats) or allowed
        bad = [n for n in self.seats if n not in allowed]
        if bad:
            raise ConfigError(f"{cls.info.title} is for {allowed[0]} to {allowed[-1]} players, not {bad}")
        self.teacher = self.teacher or TEACHERS[self.game]
        self.teacher_at = list(self.teacher_at)
        self._teachers: dict[int, str] = {}
        for item in self.teacher_at:
            seats, _, bot = item.partition("=")
            if not seats.isdigit() or int(seats) not in self.seats or not bot:
                raise ConfigError(
                    f"--teacher-at takes SEATS=BOT with SEATS one of the run's seat counts "
                    f"{self.seats}, not {item!r}"
                )
            self._teachers[int(seats)] = bot
        self.hidden = tuple(self.hidden)
        if self.init and not Path(self.init).is_file():
            raise ConfigError(f"--init names a network file (a run's net-K.npz), not {self.init!r}")
        if self.init and Path(self.init).resolve().parent == self.run_dir.resolve():
            raise ConfigError(
                f"--init {self.init} lies in this run's own folder {self.run_dir}: give the new run "
                "another --out, or it would resume the run that trained the network"
            )
        if self.teacher_rounds < (0 if self.init else 1):
            raise ConfigError(
                f"--teacher-rounds is at least 1 (0 only with --init), not {self.teacher_rounds}"
            )
        for name in (
            "teacher_games",
            "games",
            "simulations",
            "epochs",
            "batch_size",
            "workers",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} is at least 1, not {getattr(self, name)}")
        if self.iterations < 0:
            raise ConfigError(f"--iterations is at least 0 (imitation only), not {self.iterations}")
        if (
            self.league_rounds < 0
            or self.league_games < 1
            or not self.league
            or self.league_learning_rate < 0
        ):
            raise ConfigError(
                "--league-rounds and --league-learning-rate are 0 or more, --league-games at least 1 and "
                f"--league names at least one bot, not {self.league_rounds}, {self.league_learning_rate}, "
                f"{self.league_games} and {self.league}"
            )
        if self.league_learning_rate_end < 0:  # unset: a constant step size
            self.league_learning_rate_end = self.league_learning_rate
        if self.league_learning_rate_end > self.league_learning_rate:
            raise ConfigError(
                f"--league-learning-rate-end ({self.league_learning_rate_end}) is where the step size "
                f"falls to: at most --league-learning-rate ({self.league_learning_rate})"
            )
        self.league = list(self.league)
        for name in self.league:
            if name != "self":
                make_bot(name, make(self.game, self.seats[0]))  # a bad name fails now, not in a worker
        if self.soft_targets < 0:
            raise ConfigError(f"--soft-targets is a temperature, 0 or more, not {self.soft_targets}")

    def teacher_for(self, seats: int) -> str:
        """The bot imitated at tables of ``seats`` (``--teacher-at``, else ``--teacher``)."""
        return self._teachers.get(seats, self.teacher)

    @property
    def teachers(self) -> list[str]:
        """The bots that teach some table, in the order of the first seat count each teaches."""
        return list(dict.fromkeys(self.teacher_for(n) for n in self.seats))

    def league_step_size(self, league_round: int) -> float:
        """Adam's step size in league round ``league_round`` (0-based): a half cosine over the league
        rounds from ``league_learning_rate`` to ``league_learning_rate_end``."""
        start, end = self.league_learning_rate, self.league_learning_rate_end
        progress = league_round / max(1, self.league_rounds - 1)
        return end + (start - end) * (1 + math.cos(math.pi * min(1.0, progress))) / 2

    @property
    def run_dir(self) -> Path:
        return Path(self.out) / f"expert-{self.game}"


# --------------------------------------------------------------------------- self-play


@dataclass
class Samples:
    """Training samples: padded observations, legal moves, policy targets (or none), value targets."""

    obs: np.ndarray  # (N, size) uint8: every observation value is a whole number 0..255
    legal: np.ndarray  # (N, actions) bool: the moves the policy chooses among
    policy: np.ndarray  # (N, actions) float16, rows of 0 where only the value is learned
    value: np.ndarray  # (N,) float32: the seat's final win share

    @classmethod
    def empty(cls, size: int, actions: int) -> Samples:
        return cls(
            np.zeros((0, size), np.uint8),
            np.zeros((0, actions), bool),
            np.zeros((0, actions), np.float16),
            np.zeros(0, np.float32),
        )

    @classmethod
    def join(cls, parts: list[Samples]) -> Samples:
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))

    def __len__(self) -> int:
        return len(self.value)

    def tail(self, n: int) -> Samples:
        return Samples(*(getattr(self, f.name)[-n:] for f in fields(self)))

    def save(self, path: Path) -> None:
        np.savez(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path: Path) -> Samples:
        with np.load(path) as b:
            # runs from before the legal moves were kept learn over every move, as they did then
            legal = b["legal"] if "legal" in b else np.ones(b["policy"].shape, bool)
            return cls(b["obs"], legal, b["policy"], b["value"])


RANDOM_SEATS = 0.25
"""In imitation games, the share of seats played by ``random`` instead of the teacher."""
RANDOM, TEACHER, LEARNER = 0, 1, 2
"""Who plays a seat of an imitation game."""

_NETS: dict[str, PolicyValueNet] = {}


def _net(path: str) -> PolicyValueNet:
    net = _NETS.get(path)
    if net is None:
        net = _NETS[path] = PolicyValueNet.load(path)
    return net


Task = tuple[str, dict[str, bool], int, str, str, int, int, float]
"""One game to record: ``(game, options, seats, player, learner, simulations, seed, soft_targets)``."""


def play_one(task: Task) -> Samples:
    """One recorded game: ``(game, options, seats, player, learner, simulations, seed, soft_targets)``.

    ``player`` is a bot name (the teacher: its moves are the policy targets) or
    the path of a network (the search's visit counts are). With a teacher, about
    a quarter of the seats play ``random`` (no targets); with a ``learner``
    network as well, half of the others are played by that network, and the
    teacher's move is still the target at each of their decisions. Every
    decision gives the mover's observation with its target and a value-only
    sample of one other seat's.
    """
    game_name, options, n, player, learner, simulations, seed, temperature = task
    game = make(game_name, n, **options)
    rng = np.random.default_rng(seed)
    chance = np.random.default_rng(rng.integers(2**63))
    net = None
    bots: list[Any] = []
    if player.endswith(".npz"):
        net = _net(player)
    else:
        kind = np.where(rng.random(n) < RANDOM_SEATS, RANDOM, TEACHER)
        if learner:
            kind[(kind == TEACHER) & (rng.random(n) < 0.5)] = LEARNER
        if (kind == RANDOM).all():
            kind[rng.integers(n)] = TEACHER
        bots = [make_bot("random" if k == RANDOM else player, game) for k in kind]
        for bot in bots:
            bot.reset(int(rng.integers(2**31)))
        student = AgentBot(_net(learner)) if learner else None
    obs: list[np.ndarray] = []
    legal: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    seat_of: list[int] = []
    nothing = np.zeros(game.num_actions, bool)
    state = game.initial_state()
    for _ in range(MAX_DECISIONS):
        mover = game.advance(state, chance)
        if mover == TERMINAL:
            break
        at = Seat.of(game, state, mover)
        target = np.zeros(game.num_actions, np.float32)
        if net is None:
            teacher = bots[mover]
            if kind[mover] != RANDOM and temperature > 0 and hasattr(teacher, "action_values"):
                # every legal move, weighed by how much the teacher loses by it; the teacher
                # plays the move it values most (one evaluation, not one for the move as well)
                values = np.array(teacher.action_values(at), np.float64)
                weights = np.exp((values - values.max()) / temperature)
                target[at.legal] = weights / weights.sum()
                action = at.legal[int(np.argmax(values))]
            else:
                action = teacher.act(at)
                if kind[mover] != RANDOM:
                    target[action] = 1.0
            if kind[mover] == LEARNER:
                action = student.act(at)  # type: ignore[union-attr]  # a learner seat implies a student
        else:
            root = search(at, net, simulations, rng, noise=0.25)
            target[root.legal] = root.visits / root.visits.sum()
            action = root.legal[int(np.argmax(root.visits + 1e-3 * root.prior))]
        # the mover's observation with its target, and one other seat's for the value only: the
        # search values positions from a seat that is waiting too (all of them would crowd out the
        # policy samples at big tables)
        other = (mover + 1 + int(rng.integers(n - 1))) % n
        obs += [game.observe(state, mover), game.observe(state, other)]
        legal += [at.mask.astype(bool), nothing]
        targets += [target, np.zeros_like(target)]
        seat_of += [mover, other]
        game.apply(state, action, check=False)
    else:  # a game that does not end teaches nothing about winning
        return Samples.empty(game.padded_spec.size, game.num_actions)
    shares = np.array([win_share(game, state, s) for s in range(n)], np.float32)
    return Samples(
        game.pad(np.array(obs)).astype(np.uint8),
        np.array(legal),
        np.array(targets, np.float16),
        shares[np.array(seat_of)],
    )


def generate(
    config: ExpertConfig, player: str, games: int, simulations: int, seed: int, learner: str = ""
) -> Samples:
    """Play ``games`` recorded games in ``workers`` processes, seat counts taken in turn.

    When ``player`` is the run's teacher, a table of ``n`` seats is taught by
    ``config.teacher_for(n)``.
    """
    _NETS.clear()  # the network file is rewritten every round: a process playing in place reloads it
    rng = np.random.default_rng(seed)
    seat_counts = [config.seats[i % len(config.seats)] for i in range(games)]
    teaching = player == config.teacher
    tasks: list[Task] = [
        (
            config.game,
            {},
            n,
            config.teacher_for(n) if teaching else player,
            learner,
            simulations,
            int(rng.integers(2**62)),
            config.soft_targets if teaching else 0.0,
        )
        for n in seat_counts
    ]
    if config.workers == 1:
        parts = [play_one(t) for t in tasks]
    else:
        with mp.get_context("spawn").Pool(config.workers) as pool:
            parts = list(pool.imap(play_one, tasks, chunksize=1))  # in order: the same whatever workers is
    return Samples.join(parts)


# --------------------------------------------------------------------------- learning


LAST_STEP_SIZE = 0.1
"""Each round's fit ends at this share of ``learning_rate`` (a half cosine from the full step)."""


def fit(net: PolicyValueNet, data: Samples, config: ExpertConfig, seed: int) -> tuple[PolicyValueNet, dict]:
    """Train ``net`` on ``data`` for ``epochs`` with torch; the new numpy network and the losses."""
    import torch
    from torch import nn

    from tablezoo.training.torch_net import TorchTwin

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small layers: more threads only wait on each other on a shared machine
    twin = TorchTwin(net)
    optimiser = torch.optim.Adam(twin.parameters(), lr=config.learning_rate, weight_decay=1e-5)
    # the step size falls along a half cosine to a tenth over the round: the first epochs learn the
    # new samples, the last ones settle fine distinctions (Heckmeck: a roll or a stop with two dice
    # left), which a constant step keeps jumping over
    steps = config.epochs * -(-len(data) // config.batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(
        optimiser, T_max=max(1, steps), eta_min=config.learning_rate * LAST_STEP_SIZE
    )
    obs = torch.from_numpy(data.obs)
    policy = torch.from_numpy(data.policy.astype(np.float32))
    illegal = torch.from_numpy(~data.legal)
    value = torch.from_numpy(data.value)
    has_policy = policy.sum(dim=1) > 0
    generator = torch.Generator().manual_seed(seed)
    totals = {"policy_loss": 0.0, "value_loss": 0.0, "batches": 0}
    for _ in range(config.epochs):
        order = torch.randperm(len(value), generator=generator)
        for start in range(0, len(order), config.batch_size):
            idx = order[start : start + config.batch_size]
            mask = has_policy[idx]
            logp, v = twin.policy_value(obs[idx], illegal[idx], mask)
            p_loss = -(policy[idx][mask] * logp).sum(dim=1).mean() if logp is not None else v.sum() * 0
            v_loss = nn.functional.binary_cross_entropy_with_logits(v, value[idx])
            optimiser.zero_grad()
            (p_loss + v_loss).backward()
            optimiser.step()
            schedule.step()
            totals["policy_loss"] += p_loss.item()
            totals["value_loss"] += v_loss.item()
            totals["batches"] += 1
    batches = max(1, totals.pop("batches"))
    return twin.to_numpy(), {k: round(v / batches, 4) for k, v in totals.items()}


# --------------------------------------------------------------------------- the loop


def strength(config: ExpertConfig, net: PolicyValueNet, seed: int) -> dict[str, Any]:
    """The network alone against the heuristic at 2 and 4 seats (or the nearest the game allows).

    Per seat count: win share, its 95% interval and the fair share."""
    cls = game_class(config.game)
    result: dict[str, Any] = {}
    for n in sorted({max(cls.info.min_seats, 2), min(cls.info.max_seats, 4)}):
        game = make(config.game, n)
        s = one_against_all(
            game,
            lambda: AgentBot(net),
            lambda game=game: make_bot("heuristic", game),  # type: ignore[misc]
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


def run_expert(config: ExpertConfig) -> Path:
    """Run (or resume) expert iteration; the run's folder."""
    run = config.run_dir
    run.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    done = [json.loads(line) for line in (run / "log.jsonl").open()] if (run / "log.jsonl").exists() else []
    (run / "config.json").write_text(json.dumps(asdict(config), indent=2))
    game: Game[Any] = make(config.game, config.seats[0])
    data = Samples.empty(game.padded_spec.size, game.num_actions)
    if done:
        net = PolicyValueNet.load(run / "net.npz")
        if (run / "buffer.npz").exists():  # a run of league rounds alone keeps no imitation samples
            data = Samples.load(run / "buffer.npz")
    elif config.init:
        net = PolicyValueNet.load(config.init)
        net.check_fits(game, config.init)
    else:
        net = PolicyValueNet.initial(game, config.hidden, config.seed, config.action_head)
    for iteration in range(len(done), config.iterations + 1):
        spent = (time.monotonic() - started) / 3600
        if config.hours and done and spent > config.hours * 0.85:
            print(f"stopping before iteration {iteration}: {spent:.2f} of {config.hours} hours spent")
            break
        t0 = time.monotonic()
        seed = config.seed * 1000 + iteration
        imitating = iteration < config.teacher_rounds
        in_league = not imitating and iteration < config.teacher_rounds + config.league_rounds
        learner = str(run / "net.npz") if iteration > 0 or config.init else ""
        if iteration == 0 and config.init:
            net.save(run / "net.npz")  # what the first round's games are played by
        player = f"search={config.simulations}"
        if imitating:
            player = f"teacher {' and '.join(config.teachers)}" + (" with the network" if learner else "")
        elif in_league:
            player = "league of " + ", ".join(config.league)
        played = run / f"played-{iteration}.npz"
        if in_league:
            from tablezoo.training.league import Episodes, generate_league, improve

            if played.exists():
                games = Episodes.load(played)
            else:
                games = generate_league(config, learner, seed)
                games.save(played)
            t1 = time.monotonic()
            step_size = config.league_step_size(iteration - config.teacher_rounds)
            net, losses = improve(net, games, config, seed, step_size)
            decisions, new_samples = len(games), len(games)
        else:
            if played.exists():  # played before a stop, not yet learnt from
                new = Samples.load(played)
            else:
                if imitating:
                    new = generate(config, config.teacher, config.teacher_games, 0, seed, learner)
                else:
                    new = generate(config, str(run / "net.npz"), config.games, config.simulations, seed)
                new.save(played)
            t1 = time.monotonic()
            data = Samples.join([data, new]).tail(config.buffer)
            net, losses = fit(net, data, config, seed)
            decisions, new_samples = int((new.policy.sum(axis=1) > 0).sum()), len(new)
        net.meta.update(
            {"iteration": iteration, "teacher": config.teacher, "simulations": config.simulations}
        )
        net.save(run / f"net-{iteration}.npz")
        net.save(run / "net.npz")
        if not in_league:
            data.save(run / "buffer.npz")
        played.unlink()
        t2 = time.monotonic()
        entry = {
            "iteration": iteration,
            "player": player,
            "decisions": decisions,
            "new_samples": new_samples,
            "buffer": len(data),
            **losses,
            "play_seconds": round(t1 - t0, 1),
            "fit_seconds": round(t2 - t1, 1),
            "against_heuristic": strength(config, net, seed) if config.eval_games else {},
        }
        _log(run, entry)
        done.append(entry)
    return run
