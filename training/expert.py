"""Expert iteration: a policy-and-value network trained from its own search, one per game.

    tablezoo expert heckmeck --out runs --hours 1.5          # new run, or resumes runs/expert-heckmeck
    tablezoo expert court --teacher heuristic --iterations 8 --games 200 --simulations 32

The loop (AlphaZero-style self-play, adapted to chance and hidden cards by the
search of :mod:`tablezoo.bots.search`):

1. **Imitation** (iteration 0): the game's ``teacher`` bot plays
   ``teacher_games`` games, seat counts taken in turn from all the game allows,
   each seat played by the teacher or, one time in four, by ``random`` (so that
   the outcomes vary even where identical teachers would always tie); the
   network learns the teacher's moves and, from the mover's and one other
   seat's observation at every decision, the win share that seat ended with.
2. **Expert iteration** (iterations 1, 2, ...): every seat is played by the
   search (``simulations`` per move, Dirichlet noise at the root), guided by the
   current network. The network then learns the search's visit distribution
   (policy) and the final win shares (value), from a buffer of the latest
   samples. Search improves on the network; the network learns the improvement;
   the next search starts from a better network.

Self-play runs in ``workers`` processes (numpy only); the network is trained
with torch in the main process and copied into the numpy
:class:`~tablezoo.bots.net.PolicyValueNet` that the search and the tables use.
Why an own loop rather than SB3 or RLlib: the targets are the search's visit
counts and the game's outcome, not a reward stream an RL library optimises,
and the search needs the engine's ``determinize`` and chance nodes, which an
environment hides.

A run lives in ``<out>/expert-<game>/``: ``net.npz`` (the latest network),
``net-<k>.npz`` per iteration, ``buffer.npz`` (the samples; ``played-<k>.npz``
holds a round's games until the network has learnt from them), ``log.jsonl``
(one line per iteration: samples, losses, seconds, win share against the
heuristic) and ``config.json``. Run the same command again to resume after the
last finished iteration; ``--hours`` stops cleanly before the time is up.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing as mp
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
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

TEACHERS = {"heckmeck": "solver", "sechs_nimmt": "heuristic", "diamant": "heuristic", "court": "heuristic"}
"""The bot each game imitates first: its strongest bot that is quick enough to play thousands of games."""


@dataclass
class ExpertConfig:
    """The settings of one expert-iteration run (``tablezoo expert --help`` says each)."""

    game: str
    out: str = "runs"
    teacher: str = ""
    teacher_games: int = 1500
    iterations: int = 20
    games: int = 150
    simulations: int = 24
    hidden: tuple[int, ...] = (256, 256)
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
        self.hidden = tuple(self.hidden)
        for name in (
            "teacher_games",
            "iterations",
            "games",
            "simulations",
            "epochs",
            "batch_size",
            "workers",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} is at least 1, not {getattr(self, name)}")

    @property
    def run_dir(self) -> Path:
        return Path(self.out) / f"expert-{self.game}"


# --------------------------------------------------------------------------- self-play


@dataclass
class Samples:
    """Training samples: padded observations, policy targets (or none), value targets."""

    obs: np.ndarray  # (N, size) uint8: every observation value is a whole number 0..255
    policy: np.ndarray  # (N, actions) float16, rows of 0 where only the value is learned
    value: np.ndarray  # (N,) float32: the seat's final win share

    @classmethod
    def empty(cls, size: int, actions: int) -> Samples:
        return cls(np.zeros((0, size), np.uint8), np.zeros((0, actions), np.float16), np.zeros(0, np.float32))

    @classmethod
    def join(cls, parts: list[Samples]) -> Samples:
        return cls(
            np.concatenate([p.obs for p in parts]),
            np.concatenate([p.policy for p in parts]),
            np.concatenate([p.value for p in parts]),
        )

    def __len__(self) -> int:
        return len(self.value)

    def tail(self, n: int) -> Samples:
        return Samples(self.obs[-n:], self.policy[-n:], self.value[-n:])


RANDOM_SEATS = 0.25
"""In imitation games, the share of seats played by ``random`` instead of the teacher."""

_NETS: dict[str, PolicyValueNet] = {}


def play_one(task: tuple[str, dict[str, bool], int, str, int, int]) -> Samples:
    """One recorded game: ``(game, options, seats, player, simulations, seed)``.

    ``player`` is a bot name (its moves are the policy targets) or the path of a
    network (the search's visit counts are). Every decision gives the mover's
    observation with its target and a value-only sample of one other seat's.
    """
    game_name, options, n, player, simulations, seed = task
    game = make(game_name, n, **options)
    rng = np.random.default_rng(seed)
    chance = np.random.default_rng(rng.integers(2**63))
    net = None
    bots = []
    if player.endswith(".npz"):
        net = _NETS.get(player)
        if net is None:
            net = _NETS[player] = PolicyValueNet.load(player)
    else:
        teacher = rng.random(n) >= RANDOM_SEATS
        teacher[rng.integers(n)] = True
        bots = [make_bot(player if t else "random", game) for t in teacher]
        for bot in bots:
            bot.reset(int(rng.integers(2**31)))
    obs: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    seat_of: list[int] = []
    state = game.initial_state()
    for _ in range(MAX_DECISIONS):
        mover = game.advance(state, chance)
        if mover == TERMINAL:
            break
        at = Seat.of(game, state, mover)
        target = np.zeros(game.num_actions, np.float32)
        if net is None:
            action = bots[mover].act(at)
            if teacher[mover]:
                target[action] = 1.0
        else:
            root = search(at, net, simulations, rng, noise=0.25)
            target[root.legal] = root.visits / root.visits.sum()
            action = root.legal[int(np.argmax(root.visits + 1e-3 * root.prior))]
        # the mover's observation with its target, and one other seat's for the value only: the
        # search values positions from a seat that is waiting too (all of them would crowd out the
        # policy samples at big tables)
        other = (mover + 1 + int(rng.integers(n - 1))) % n
        obs += [game.observe(state, mover), game.observe(state, other)]
        targets += [target, np.zeros_like(target)]
        seat_of += [mover, other]
        game.apply(state, action, check=False)
    else:  # a game that does not end teaches nothing about winning
        return Samples.empty(game.padded_spec.size, game.num_actions)
    shares = np.array([win_share(game, state, s) for s in range(n)], np.float32)
    return Samples(
        game.pad(np.array(obs)).astype(np.uint8),
        np.array(targets, np.float16),
        shares[np.array(seat_of)],
    )


def _tasks(config: ExpertConfig, player: str, games: int, simulations: int, seed: int) -> Iterator[tuple]:
    rng = np.random.default_rng(seed)
    for i in range(games):
        n = config.seats[i % len(config.seats)]
        yield (config.game, {}, n, player, simulations, int(rng.integers(2**62)))


def generate(config: ExpertConfig, player: str, games: int, simulations: int, seed: int) -> Samples:
    """Play ``games`` recorded games in ``workers`` processes."""
    tasks = list(_tasks(config, player, games, simulations, seed))
    if config.workers == 1:
        parts = [play_one(t) for t in tasks]
    else:
        with mp.get_context("spawn").Pool(config.workers) as pool:
            parts = list(pool.imap_unordered(play_one, tasks, chunksize=1))
    return Samples.join(parts)


# --------------------------------------------------------------------------- learning


def fit(net: PolicyValueNet, data: Samples, config: ExpertConfig, seed: int) -> tuple[PolicyValueNet, dict]:
    """Train ``net`` on ``data`` for ``epochs`` with torch; the new numpy network and the losses."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small layers: more threads only wait on each other on a shared machine
    sizes = [net.observation_size, *config.hidden]
    trunk = nn.Sequential(*[m for a, b in itertools.pairwise(sizes) for m in (nn.Linear(a, b), nn.ReLU())])
    policy_head = nn.Linear(sizes[-1], net.num_actions)
    value_head = nn.Linear(sizes[-1], 1)
    with torch.no_grad():  # start from the current numpy weights
        linears = [m for m in trunk if isinstance(m, nn.Linear)] + [policy_head]
        for layer, w, b in zip(linears, net.weights, net.biases, strict=True):
            layer.weight.copy_(torch.from_numpy(w))
            layer.bias.copy_(torch.from_numpy(b))
        value_head.weight.copy_(torch.from_numpy(net.value_w[None, :]))
        value_head.bias.fill_(net.value_b)
    params = [*trunk.parameters(), *policy_head.parameters(), *value_head.parameters()]
    optimiser = torch.optim.Adam(params, lr=config.learning_rate, weight_decay=1e-5)
    scale = torch.from_numpy(net.scale)
    obs = torch.from_numpy(data.obs)
    policy = torch.from_numpy(data.policy.astype(np.float32))
    value = torch.from_numpy(data.value)
    has_policy = policy.sum(dim=1) > 0
    generator = torch.Generator().manual_seed(seed)
    totals = {"policy_loss": 0.0, "value_loss": 0.0, "batches": 0}
    for _ in range(config.epochs):
        order = torch.randperm(len(value), generator=generator)
        for start in range(0, len(order), config.batch_size):
            idx = order[start : start + config.batch_size]
            h = trunk(obs[idx].float() / scale)
            logits = policy_head(h)
            mask = has_policy[idx]
            logp = torch.log_softmax(logits[mask], dim=1)
            p_loss = -(policy[idx][mask] * logp).sum(dim=1).mean() if mask.any() else logits.sum() * 0
            v_loss = nn.functional.binary_cross_entropy_with_logits(value_head(h).squeeze(1), value[idx])
            optimiser.zero_grad()
            (p_loss + v_loss).backward()
            optimiser.step()
            totals["policy_loss"] += p_loss.item()
            totals["value_loss"] += v_loss.item()
            totals["batches"] += 1
    linears = [m for m in trunk if isinstance(m, nn.Linear)] + [policy_head]
    new = PolicyValueNet(
        [m.weight.detach().numpy().copy() for m in linears],
        [m.bias.detach().numpy().copy() for m in linears],
        value_head.weight.detach().numpy().reshape(-1).copy(),
        value_head.bias.detach().numpy().copy(),
        net.scale,
        net.meta,
    )
    batches = max(1, totals.pop("batches"))
    return new, {k: round(v / batches, 4) for k, v in totals.items()}


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
    if done:
        net = PolicyValueNet.load(run / "net.npz")
        with np.load(run / "buffer.npz") as b:
            data = Samples(b["obs"], b["policy"], b["value"])
    else:
        net = PolicyValueNet.initial(game, config.hidden, config.seed)
        data = Samples.empty(game.padded_spec.size, game.num_actions)
    for iteration in range(len(done), config.iterations + 1):
        spent = (time.monotonic() - started) / 3600
        if config.hours and done and spent > config.hours * 0.85:
            print(f"stopping before iteration {iteration}: {spent:.2f} of {config.hours} hours spent")
            break
        t0 = time.monotonic()
        seed = config.seed * 1000 + iteration
        player = f"teacher {config.teacher}" if iteration == 0 else f"search={config.simulations}"
        played = run / f"played-{iteration}.npz"
        if played.exists():  # played before a stop, not yet learnt from
            with np.load(played) as b:
                new = Samples(b["obs"], b["policy"], b["value"])
        else:
            if iteration == 0:
                new = generate(config, config.teacher, config.teacher_games, 0, seed)
            else:
                new = generate(config, str(run / "net.npz"), config.games, config.simulations, seed)
            np.savez(played, obs=new.obs, policy=new.policy, value=new.value)
        t1 = time.monotonic()
        data = Samples.join([data, new]).tail(config.buffer)
        net, losses = fit(net, data, config, seed)
        net.meta.update(
            {"iteration": iteration, "teacher": config.teacher, "simulations": config.simulations}
        )
        net.save(run / f"net-{iteration}.npz")
        net.save(run / "net.npz")
        np.savez(run / "buffer.npz", obs=data.obs, policy=data.policy, value=data.value)
        played.unlink()
        t2 = time.monotonic()
        entry = {
            "iteration": iteration,
            "player": player,
            "decisions": int((new.policy.sum(axis=1) > 0).sum()),
            "new_samples": len(new),
            "buffer": len(data),
            **losses,
            "play_seconds": round(t1 - t0, 1),
            "fit_seconds": round(t2 - t1, 1),
            "against_heuristic": strength(config, net, seed) if config.eval_games else {},
        }
        _log(run, entry)
        done.append(entry)
    return run
