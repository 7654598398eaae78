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
  expects) to the win share the seat ended with (``gae_lambda``); advantages
  are normalised over the round;
* the fit: ``epochs`` passes of clipped-ratio PPO (``ppo_clip``; Adam at
  ``league_learning_rate``, minibatches of ``league_batch_size``), a win-share
  loss for the value head and a little entropy (weight ``entropy``), stopped
  early when the policy has moved ``target_kl`` from the one that played.

Every constant of the method is a setting of the run's
:class:`~tablezoo.training.expert.config.ExpertConfig`, saved with it; the games are
played by :mod:`tablezoo.training.expert.selfplay`.

This is the usual PPO of reinforcement learning, over whole games of any seat
count, with the engine's own network rather than an environment wrapper: the
league mixes seat counts and bots within one round, which one-seat wrappers
for SB3 or RLlib do not, and the samples stay on numpy in the self-play
processes. Needs the ``train`` extra for the fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.net import PolicyValueNet, masked_softmax, win_share
from tablezoo.evaluation.play import play_in_order, play_out
from tablezoo.games import make
from tablezoo.games.core import Game
from tablezoo.training.expert.selfplay import (
    Decisions,
    cached_net,
    column,
    forget_nets,
    minibatch_fit,
    seat_bots,
    seat_counts,
)

if TYPE_CHECKING:
    import torch

    from tablezoo.training.expert.config import ExpertConfig

SELF = "self"
"""The league's name for the network being trained: with it, the network plays more than one seat."""


@dataclass
class Episodes(Decisions):
    """The network's moves in league games, with what policy gradient needs of each."""

    action: np.ndarray = column("", np.int32)
    """(N,): the move played."""
    logp: np.ndarray = column("", np.float32)
    """(N,): the move's log-probability under the network that played it."""
    advantage: np.ndarray = column("", np.float32)
    """(N,): the move's generalised advantage estimate."""
    share: np.ndarray = column("", np.float32)
    """(N,): the win share the seat ended with (the value target)."""
    seats: np.ndarray = column("", np.int8)
    """(N,): the game's seat count."""
    seat: np.ndarray = column("", np.int8)
    """(N,): the mover's seat."""


class LeagueGame(NamedTuple):
    """One league game (:func:`play_league`)."""

    config: ExpertConfig
    """The run's settings (its ``game``, ``league`` and ``gae_lambda``)."""
    seats: int
    """The table's seat count."""
    net: str
    """The network file that plays."""
    seed: int
    """The game's seed: its chance, its seating, its bots' seeds and the network's sampled moves."""


def advantages(values: np.ndarray, share: float, lam: float) -> np.ndarray:
    """Generalised advantage estimates of one seat's moves: no reward but the final win share."""
    following = np.append(values[1:], share)
    delta = following - values
    out = np.zeros_like(delta)
    running = 0.0
    for t in range(len(delta) - 1, -1, -1):
        running = delta[t] + lam * running
        out[t] = running
    return out


def league_seats(league: list[str], n: int, rng: np.random.Generator) -> tuple[np.ndarray, list[str | None]]:
    """Which of ``n`` seats the network plays, and the league bot at each other seat (None at its own).

    With ``self`` in the league the network plays 1 to ``n`` seats (uniform), else one; a league of
    ``self`` alone, every seat. The other seats draw their bots from the league's others."""
    others = [name for name in league if name != SELF]
    mine = np.zeros(n, bool)
    order = rng.permutation(n)
    mine[order[: n if not others else int(rng.integers(1, n + 1)) if SELF in league else 1]] = True
    return mine, [None if m else others[rng.integers(len(others))] for m in mine]


def play_league(task: LeagueGame) -> Episodes:
    """One league game (see the module's docstring); the network's moves."""
    game = make(task.config.game, task.seats)
    rng = np.random.default_rng(task.seed)
    chance = np.random.default_rng(rng.integers(2**63))
    net = cached_net(task.net)
    mine, names = league_seats(task.config.league, task.seats, rng)
    bots: list[Any] = seat_bots(game, names, rng)
    rows: list[tuple[np.ndarray, np.ndarray, int, float, float, int]] = []

    def act(at: Seat) -> int:
        if not mine[at.seat]:
            return int(bots[at.seat].act(at))
        x = game.pad(at.observation)
        logits, value = net.evaluate(x)
        p = masked_softmax(logits, at.legal)
        i = int(rng.choice(len(p), p=p)) if len(p) > 1 else 0
        rows.append((x, at.mask.astype(bool), at.legal[i], np.log(max(p[i], 1e-12)), value, at.seat))
        return at.legal[i]

    state = game.initial_state()
    if (
        not play_out(game, state, chance, act, check=False) or not rows
    ):  # a game that does not end teaches nothing about winning
        return Episodes.empty(game.padded_spec.size, game.num_actions)
    return _episodes(game, state, rows, mine, task.config.gae_lambda)


def _episodes(
    game: Game[Any], state: Any, rows: list[tuple[Any, ...]], mine: np.ndarray, lam: float
) -> Episodes:
    """The network's moves of an ended game, with each seat's win share and advantages."""
    obs, legal, action, logp, value, seat = zip(*rows, strict=True)
    seat_of = np.array(seat)
    values = np.array(value, np.float32)
    share = np.zeros(len(seat_of), np.float32)
    advantage = np.zeros(len(seat_of), np.float32)
    for s in np.flatnonzero(mine):
        at_s = seat_of == s
        share[at_s] = win_share(game, state, int(s))
        advantage[at_s] = advantages(values[at_s], float(share[at_s][0]), lam)
    return Episodes(
        np.array(obs).astype(np.uint8),
        np.array(legal),
        np.array(action, np.int32),
        np.array(logp, np.float32),
        advantage,
        share,
        np.full(len(seat_of), game.num_seats, np.int8),
        seat_of.astype(np.int8),
    )


def generate_league(config: ExpertConfig, path: str, seed: int) -> Episodes:
    """``league_games`` league games of the network at ``path``, in ``workers`` processes."""
    forget_nets()  # the network file is rewritten every round
    rng = np.random.default_rng(seed)
    tasks = [
        LeagueGame(config, n, path, int(rng.integers(2**62)))
        for n in seat_counts(config.num_players, config.league_games)
    ]
    return Episodes.join(play_in_order(play_league, tasks, config.workers, chunksize=4))


def ppo_loss(data: Episodes, config: ExpertConfig) -> Any:
    """The clipped-ratio PPO loss of a minibatch of ``data``
    (a :data:`~tablezoo.training.expert.selfplay.Loss`), reporting the policy and value losses, the
    entropy, the share of clipped ratios and the summed KL."""
    import torch
    from torch import nn

    obs = torch.from_numpy(data.obs)
    illegal = torch.from_numpy(~data.legal)
    action = torch.from_numpy(data.action.astype(np.int64))
    old = torch.from_numpy(data.logp)
    adv = torch.from_numpy((data.advantage - data.advantage.mean()) / (data.advantage.std() + 1e-8))
    share = torch.from_numpy(data.share)
    clip = config.ppo_clip

    def loss(twin: Any, idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        logp, v = twin(obs[idx], illegal[idx])
        new = logp.gather(1, action[idx, None]).squeeze(1)
        ratio = torch.exp(new - old[idx])
        a = adv[idx]
        p_loss = -torch.min(ratio * a, ratio.clamp(1 - clip, 1 + clip) * a).mean()
        v_loss = nn.functional.binary_cross_entropy_with_logits(v, share[idx])
        entropy = -(logp.exp() * logp.clamp(min=-30)).sum(dim=1).mean()
        with torch.no_grad():
            kl = float((old[idx] - new).sum())
            clipped = float(((ratio - 1).abs() > clip).float().mean())
        figures = {
            "policy_loss": p_loss.item(),
            "value_loss": v_loss.item(),
            "entropy": entropy.item(),
            "clipped": clipped,
            "kl": kl,
        }
        return p_loss + v_loss - config.entropy * entropy, figures

    return loss


def improve(
    net: PolicyValueNet, data: Episodes, config: ExpertConfig, seed: int, step_size: float | None = None
) -> tuple[PolicyValueNet, dict[str, Any]]:
    """One PPO fit of ``net`` on its own league games; the new network and what the fit measured.

    ``step_size`` is Adam's (default: ``config.league_learning_rate``)."""
    fitted = minibatch_fit(
        net,
        len(data),
        ppo_loss(data, config),
        figures=("policy_loss", "value_loss", "entropy", "clipped", "kl"),
        epochs=config.epochs,
        batch_size=config.league_batch_size,
        learning_rate=config.league_learning_rate if step_size is None else step_size,
        seed=seed,
        clip_norm=1.0,
        stop=lambda epoch: epoch["kl"] / max(1, len(data)) > config.target_kl,
    )
    result: dict[str, Any] = {k: v for k, v in fitted.means.items() if k != "kl"}
    kl = fitted.last_epoch["kl"] / max(1, len(data))
    result.update(kl=round(kl, 4), epochs=fitted.epochs, step_size=fitted.step_size)
    # how the network fared in its own league games, per seat count: its win share over the fair
    # one, averaged over its moves
    counts = sorted(set(data.seats.tolist()))
    result["share_over_fair"] = {
        f"{n}p": round(float(data.share[data.seats == n].mean() * n), 3) for n in counts
    }
    return fitted.net, result
