"""League rounds of expert iteration: the network improves on its teachers by policy gradient.

Imitation stops at the teacher's level, and search self-play is slow to pass it
where a game's outcome turns on long runs of chance. A league round plays the
network itself, with its moves sampled from its policy, against a league of
bots (``--league heuristic self``: the heuristic, and the network's own
current policy), and takes one step of proximal policy optimisation (PPO,
clipped ratio) on the win shares those games end with:

* each game takes its seat count in turn from the run's and gives the
  network ``k`` seats: with ``self`` in the league, ``k`` is uniform in
  1 .. seats (one network against a full table of bots is as common as a table
  of networks); without it, one seat; a league of ``self`` alone, every seat.
  Each other seat is a bot drawn from the league's others;
* every move the network makes is a sample: its padded observation, legal
  moves, the move and its log-probability;
* the advantage of a move is the generalised advantage estimate over the
  moves of that seat, from the network's own value head (the win share it
  expects) to the win share the seat ended with (``GAE_LAMBDA``); advantages
  are normalised over the round;
* the fit: ``epochs`` passes of clipped-ratio PPO (``CLIP``; Adam at
  ``league_learning_rate``, minibatches of ``MINIBATCH``), a win-share loss
  for the value head and a little entropy (``ENTROPY``), stopped early when the
  policy has moved ``TARGET_KL`` from the one that played.

This is the usual PPO of reinforcement learning, over whole games of any seat
count, with the engine's own network rather than an environment wrapper: the
league mixes seat counts and bots within one round, which one-seat wrappers
for SB3 or RLlib do not, and the samples stay on numpy in the self-play
processes. Needs the ``train`` extra for the fit.
"""

from __future__ import annotations

import multiprocessing as mp
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.net import PolicyValueNet, masked_softmax, win_share
from tablezoo.bots.registry import make_bot
from tablezoo.games import make
from tablezoo.games.core import TERMINAL
from tablezoo.training.evaluate import MAX_DECISIONS

if TYPE_CHECKING:
    from tablezoo.training.expert import ExpertConfig

SELF = "self"
"""The league's name for the network being trained: with it, the network plays more than one seat."""
CLIP = 0.2
"""PPO's clip of the probability ratio."""
GAE_LAMBDA = 0.95
"""How far the advantage looks past the value head's estimate (1: the final win share alone)."""
ENTROPY = 0.003
"""Weight of the policy's entropy in the loss."""
TARGET_KL = 0.02
"""A round's fit stops after the epoch in which the policy moved this far (mean KL) from the player's."""
MINIBATCH = 2048
"""Samples per gradient step."""


@dataclass
class Episodes:
    """The network's moves in league games, with what policy gradient needs of each."""

    obs: np.ndarray  # (N, size) uint8 padded observations
    legal: np.ndarray  # (N, actions) bool
    action: np.ndarray  # (N,) int32
    logp: np.ndarray  # (N,) float32: the move's log-probability under the network that played it
    advantage: np.ndarray  # (N,) float32
    share: np.ndarray  # (N,) float32: the win share the seat ended with (the value target)
    seats: np.ndarray  # (N,) int8: the game's seat count
    seat: np.ndarray  # (N,) int8: the mover's seat

    @classmethod
    def empty(cls, size: int, actions: int) -> Episodes:
        return cls(
            np.zeros((0, size), np.uint8),
            np.zeros((0, actions), bool),
            *(np.zeros(0, t) for t in (np.int32, np.float32, np.float32, np.float32, np.int8, np.int8)),
        )

    @classmethod
    def join(cls, parts: list[Episodes]) -> Episodes:
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))

    def __len__(self) -> int:
        return len(self.action)

    def save(self, path: Path) -> None:
        np.savez(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path: Path) -> Episodes:
        with np.load(path) as b:
            return cls(*(b[f.name] for f in fields(cls)))


LeagueTask = tuple[str, int, str, tuple[str, ...], int]
"""One league game: ``(game, seats, network path, league, seed)``."""

_NETS: dict[str, PolicyValueNet] = {}


def advantages(values: np.ndarray, share: float, lam: float = GAE_LAMBDA) -> np.ndarray:
    """Generalised advantage estimates of one seat's moves: no reward but the final win share."""
    following = np.append(values[1:], share)
    delta = following - values
    out = np.zeros_like(delta)
    running = 0.0
    for t in range(len(delta) - 1, -1, -1):
        running = delta[t] + lam * running
        out[t] = running
    return out


def play_league(task: LeagueTask) -> Episodes:
    """One league game (see the module's docstring); the network's moves."""
    game_name, n, path, league, seed = task
    game = make(game_name, n)
    rng = np.random.default_rng(seed)
    chance = np.random.default_rng(rng.integers(2**63))
    net = _NETS.get(path) or _NETS.setdefault(path, PolicyValueNet.load(path))
    others = [name for name in league if name != SELF]
    mine = np.zeros(n, bool)
    order = rng.permutation(n)
    mine[order[: n if not others else int(rng.integers(1, n + 1)) if SELF in league else 1]] = True
    bots: list[Any] = [None if m else make_bot(others[rng.integers(len(others))], game) for m in mine]
    for bot in bots:
        if bot is not None:
            bot.reset(int(rng.integers(2**31)))
    rows: dict[str, list[Any]] = {k: [] for k in ("obs", "legal", "action", "logp", "value", "seat")}
    state = game.initial_state()
    for _ in range(MAX_DECISIONS):
        mover = game.advance(state, chance)
        if mover == TERMINAL:
            break
        at = Seat.of(game, state, mover)
        if mine[mover]:
            x = game.pad(at.observation)
            logits, value = net.evaluate(x)
            p = masked_softmax(logits, at.legal)
            i = int(rng.choice(len(p), p=p)) if len(p) > 1 else 0
            action = at.legal[i]
            for key, item in zip(
                rows, (x, at.mask.astype(bool), action, np.log(max(p[i], 1e-12)), value, mover), strict=True
            ):
                rows[key].append(item)
        else:
            action = bots[mover].act(at)
        game.apply(state, action, check=False)
    else:  # a game that does not end teaches nothing about winning
        return Episodes.empty(game.padded_spec.size, game.num_actions)
    if not rows["obs"]:
        return Episodes.empty(game.padded_spec.size, game.num_actions)
    seat_of = np.array(rows["seat"])
    values = np.array(rows["value"], np.float32)
    share = np.zeros(len(seat_of), np.float32)
    advantage = np.zeros(len(seat_of), np.float32)
    for s in np.flatnonzero(mine):
        at_s = seat_of == s
        share[at_s] = win_share(game, state, int(s))
        advantage[at_s] = advantages(values[at_s], float(share[at_s][0]))
    return Episodes(
        np.array(rows["obs"]).astype(np.uint8),
        np.array(rows["legal"]),
        np.array(rows["action"], np.int32),
        np.array(rows["logp"], np.float32),
        advantage,
        share,
        np.full(len(seat_of), n, np.int8),
        seat_of.astype(np.int8),
    )


def generate_league(config: ExpertConfig, path: str, seed: int) -> Episodes:
    """``league_games`` league games of the network at ``path``, in ``workers`` processes."""
    _NETS.clear()  # the network file is rewritten every round
    rng = np.random.default_rng(seed)
    tasks: list[LeagueTask] = [
        (config.game, n, path, tuple(config.league), int(rng.integers(2**62)))
        for n in (config.seats[i % len(config.seats)] for i in range(config.league_games))
    ]
    if config.workers == 1:
        parts = [play_league(t) for t in tasks]
    else:
        with mp.get_context("spawn").Pool(config.workers) as pool:
            parts = list(pool.imap(play_league, tasks, chunksize=4))  # in order: the same whatever workers is
    return Episodes.join(parts)


def improve(
    net: PolicyValueNet, data: Episodes, config: ExpertConfig, seed: int, step_size: float | None = None
) -> tuple[PolicyValueNet, dict[str, Any]]:
    """One PPO fit of ``net`` on its own league games; the new network and what the fit measured.

    ``step_size`` is Adam's (default: ``config.league_learning_rate``)."""
    import torch
    from torch import nn

    from tablezoo.training.torch_net import TorchTwin

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    twin = TorchTwin(net)
    lr = config.league_learning_rate if step_size is None else step_size
    optimiser = torch.optim.Adam(twin.parameters(), lr=lr)
    obs = torch.from_numpy(data.obs)
    illegal = torch.from_numpy(~data.legal)
    action = torch.from_numpy(data.action.astype(np.int64))
    old = torch.from_numpy(data.logp)
    adv = torch.from_numpy((data.advantage - data.advantage.mean()) / (data.advantage.std() + 1e-8))
    share = torch.from_numpy(data.share)
    generator = torch.Generator().manual_seed(seed)
    size = MINIBATCH
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "clipped": 0.0, "batches": 0}
    kl = 0.0
    epochs = 0
    for _ in range(config.epochs):
        order = torch.randperm(len(data), generator=generator)
        kl_sum = 0.0
        for start in range(0, len(order), size):
            idx = order[start : start + size]
            logp, v = twin(obs[idx], illegal[idx])
            new = logp.gather(1, action[idx, None]).squeeze(1)
            ratio = torch.exp(new - old[idx])
            a = adv[idx]
            p_loss = -torch.min(ratio * a, ratio.clamp(1 - CLIP, 1 + CLIP) * a).mean()
            v_loss = nn.functional.binary_cross_entropy_with_logits(v, share[idx])
            entropy = -(logp.exp() * logp.clamp(min=-30)).sum(dim=1).mean()
            optimiser.zero_grad()
            (p_loss + v_loss - ENTROPY * entropy).backward()
            nn.utils.clip_grad_norm_(twin.parameters(), 1.0)
            optimiser.step()
            with torch.no_grad():
                kl_sum += float((old[idx] - new).sum())
                stats["clipped"] += float(((ratio - 1).abs() > CLIP).float().mean())
            stats["policy_loss"] += p_loss.item()
            stats["value_loss"] += v_loss.item()
            stats["entropy"] += entropy.item()
            stats["batches"] += 1
        epochs += 1
        kl = kl_sum / max(1, len(data))
        if kl > TARGET_KL:
            break
    batches = max(1, stats.pop("batches"))
    result: dict[str, Any] = {k: round(v / batches, 4) for k, v in stats.items()}
    result.update(kl=round(kl, 4), epochs=epochs, step_size=optimiser.param_groups[0]["lr"])
    # how the network fared in its own league games, per seat count: its win share over the fair
    # one, averaged over its moves
    counts = sorted(set(data.seats.tolist()))
    result["share_over_fair"] = {
        f"{n}p": round(float(data.share[data.seats == n].mean() * n), 3) for n in counts
    }
    return twin.to_numpy(), result
