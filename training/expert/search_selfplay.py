"""Search self-play as one batched loop in the native core: a Gumbel root at every decision.

    from tablezoo.training.expert.search_selfplay import SearchSelfPlay
    loop = SearchSelfPlay("sechs_nimmt", 4, num_games=256, simulations=16, seed=1)
    samples = loop.play(net, decisions=10)          # net: a PolicyValueNet, or obs -> (logits, values)

Many games of one configuration advance together in the core (``native/src/search/gumbel.h``). Every
decision of every seat is searched the way Gumbel AlphaZero's root is (Danihelka et al.,
*Policy improvement by planning with Gumbel*, 2022):

1. the mover's observation is evaluated: logits (the prior) and a win share ``v0``;
2. ``considered`` moves are sampled without replacement by the Gumbel-top-k trick
   (``g(a) + logit(a)``, ``g`` a Gumbel(0, 1) draw per move; no draws with ``gumbel=False``);
3. sequential halving spends about ``simulations`` simulations over ``ceil(log2 considered)``
   phases, keeping the better half after each by ``g(a) + logit(a) + sigma(q(a))``;
4. a simulation plays the move in a *world*: a determinisation of the real state drawn from what
   the mover can see (the game's ``determinize``). Chance follows the engine's odds, every other
   seat samples the network's policy on its own observation of that world (``others="likeliest"``:
   plays its likeliest move), and where the simulation ends is ``leaf``, as at a table
   (:data:`~tablezoo.bots.search.LEAVES`): ``head`` (the default) when the mover is to move again
   (the network's win share) or after ``horizon`` decisions of the others (the same); ``turn`` at
   the start of the mover's next turn, its own moves within its turn the network's likeliest;
   ``end`` when the game ends, the network playing it out. The game's end always ends it (the
   mover's win share). The moves of a phase are all played in the same worlds with the same dice
   (common random numbers);
5. the move left is played; the sample is the mover's observation, its legal moves, the improved
   policy ``softmax(logit + sigma(completed q))`` (``q = v0`` for a move not simulated,
   ``sigma(q) = (c_visit + most visits) * c_scale * q``) and, once the game is over, the win share
   the mover ended with.

The network is the caller's. Every game plays on until it waits on the network; the loop then
hands out all the observations waiting (:meth:`SearchSelfPlay.requests`, one row each, in the
layout the network reads) and goes on with the answers (:meth:`SearchSelfPlay.answer`): one call
of the network per wave of leaves across all games, which a torch or numpy network turns into a
few matrix products. A :class:`~tablezoo.bots.net.PolicyValueNet` given to :meth:`play` is
instead run by the core itself (its forward pass, ``native/src/net/net.h``, reads only an
observation's nonzero entries) with the games spread over ``num_threads`` threads.

**Opponents.** With ``opponent="search"`` (any of the game's native bots, its
``native_ports``) and ``opponent_games=K``, the first ``K`` games seat that bot: at
the start of each of their episodes one seat is drawn to be searched, the bot plays every other
seat (its own memory and random stream) and makes no samples. The searched seat is thus trained
against the bot it is checked against, as in a league, while its simulations still model the
others by the network (the search does not read the bot's mind). :meth:`SearchSelfPlay.searched`
names the seat searched in a game's current episode.

Every game has its own random stream, drawn from ``(seed, game index)``: the samples depend on
the network's answers alone, not on the thread count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tablezoo.bots.native import native_net
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.search import LEAVES, OTHERS
from tablezoo.envs import MAX_CYCLES
from tablezoo.games import make
from tablezoo.games.core import ConfigError
from tablezoo.games.native import resolve_core

Evaluate = Callable[[np.ndarray], tuple[Any, Any]]
"""A network as the loop asks it: observations ``(rows, size)`` float32 to logits
``(rows, actions)`` and win shares ``(rows,)`` (numpy arrays, or anything ``np.asarray`` reads)."""

SAMPLE_FIELDS = ("obs", "mask", "policy", "visits", "q", "root_value", "value", "seat", "action", "game")
"""The arrays of :meth:`SearchSelfPlay.take`, one row per searched decision: the mover's
observation as the network reads it, its legal moves, the improved policy (0 off the legal
moves), each move's simulations and completed q, the network's win share at the root, the win
share the mover ended the game with, the mover, the move played, and the game's index. A
value-only row (where chance was due) has no legal moves, a policy of 0s, ``action`` -1 and
``root_value`` NaN."""


class SearchSelfPlay:
    """``num_games`` games of ``game`` at ``num_players`` seats, every decision searched by a
    Gumbel root (see the module's text); ``padded``: the rows in the layout every seat count
    shares (what the shipped networks read). A game still running after ``max_decisions``
    decisions (every seat's; None: the env's cap, :data:`~tablezoo.envs.MAX_CYCLES` a seat, 0:
    none) is cut and its samples dropped: it has no outcome to learn from. ``chance_values``: where
    chance is due (dice to roll, cards to deal) the seat that moved last gets a value-only sample
    of the position, so that the win-share head learns positions before the luck too.
    ``opponent`` and ``opponent_games``: the native bot at every seat but one of the first
    ``opponent_games`` games (see the module's text). ``leaf`` and ``others``: where a simulation
    is valued and how the other seats move in it, as in the table's search
    (:data:`~tablezoo.bots.search.LEAVES`, :data:`~tablezoo.bots.search.OTHERS`)."""

    def __init__(
        self,
        game: str,
        num_players: int | None = None,
        *,
        num_games: int = 256,
        seed: int = 0,
        simulations: int = 16,
        considered: int = 16,
        horizon: int = 0,
        c_visit: float = 50.0,
        c_scale: float = 1.0,
        gumbel: bool = True,
        padded: bool = True,
        num_threads: int = 1,
        max_decisions: int | None = None,
        chance_values: bool = True,
        opponent: str | None = None,
        opponent_games: int = 0,
        leaf: str = "head",
        others: str = "sample",
        **options: bool,
    ) -> None:
        if leaf not in LEAVES:
            raise ConfigError(f"leaf is one of {', '.join(LEAVES)}, not {leaf!r}")
        if others not in OTHERS:
            raise ConfigError(f"others is one of {', '.join(OTHERS)}, not {others!r}")
        resolve_core("native")  # the loop runs in the native core alone; this names why not
        self.game = make(game, num_players, core="native", **options)
        loop_class = getattr(self.game._native, "gumbel_selfplay", None)  # type: ignore[attr-defined]
        if loop_class is None:
            raise ConfigError(f"the native core has no search self-play for {self.game.info.title}")
        whole = {
            "num_games": (num_games, 1, 100_000),
            "simulations": (simulations, 1, 100_000),
            "considered": (considered, 1, 100_000),
            "horizon": (horizon, 0, 1_000_000),
            "num_threads": (num_threads, 1, 256),
            "seed": (seed, None, None),
            "opponent_games": (opponent_games, 0, num_games),
        }
        for name, (value, low, high) in whole.items():
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ConfigError(f"{name} must be a whole number, not {value!r}")
            if low is not None and high is not None and not low <= value <= high:
                raise ConfigError(f"{name} is {low} to {high}, not {value}")
        bots = self.game.native_ports  # type: ignore[attr-defined]
        if opponent is not None and opponent not in bots:
            raise ConfigError(
                f"no native bot named {opponent!r} to be the opponent in {self.game.info.title}; "
                f"there are: {', '.join(bots) or 'none'}"
            )
        if opponent_games and opponent is None:
            raise ConfigError("opponent_games needs an opponent: the native bot at their other seats")
        self.num_games = int(num_games)
        self.opponent = opponent
        self.opponent_games = int(opponent_games)
        self.padded = bool(padded)
        if max_decisions is None:  # the env's cap: a seat's decisions, for every seat
            max_decisions = MAX_CYCLES[f"{game}_v0"] * self.game.num_seats
        self._core = loop_class(
            self.game._native,  # type: ignore[attr-defined]
            num_games=self.num_games,
            seed=int(seed) % 2**64,
            num_threads=int(num_threads),
            simulations=int(simulations),
            considered=int(considered),
            horizon=int(horizon),
            c_visit=float(c_visit),
            c_scale=float(c_scale),
            gumbel=bool(gumbel),
            padded=self.padded,
            max_decisions=int(max_decisions),
            chance_values=bool(chance_values),
            opponent=opponent or "",
            opponent_games=self.opponent_games,
            leaf=leaf,
            others=others,
        )
        self._core.reset()

    @property
    def read_size(self) -> int:
        """The entries of a row: the padded or the plain observation's size."""
        return int(self._core.read_size)

    def reset(self) -> None:
        """Start every game anew from the seed (samples not taken are dropped)."""
        self._core.reset()

    def requests(self) -> np.ndarray:
        """The observations waiting on the network, ``(rows, read_size)`` float32."""
        return self._core.requests()

    def answer(self, logits: Any, values: Any) -> None:
        """The network's answers to the rows of :meth:`requests`, in their order: logits
        ``(rows, actions)`` (finite at the legal moves) and win shares ``(rows,)`` in [0, 1]. A bad
        answer raises ValueError and changes nothing."""
        if logits is None or values is None:
            raise TypeError("answer() takes the logits and the win shares of the rows requested, not None")
        self._core.answer(logits, values)

    def step(self, evaluate: Evaluate) -> None:
        """One wave: the rows waiting, answered by ``evaluate``."""
        logits, values = evaluate(self.requests())
        self.answer(logits, values)

    def play(self, net: PolicyValueNet | Evaluate, decisions: int) -> dict[str, np.ndarray]:
        """``decisions`` more searched decisions a game, guided by ``net``; the samples of the games
        that finished meanwhile (:meth:`take`). A :class:`PolicyValueNet` runs in the core, where
        each game plays exactly that many; any other callable is asked once per wave until the
        games together have played ``num_games * decisions``."""
        if isinstance(decisions, bool) or not isinstance(decisions, int | np.integer) or decisions < 0:
            raise ConfigError(f"decisions must be a whole number, 0 or more, not {decisions!r}")
        if isinstance(net, PolicyValueNet):
            net.check_fits(self.game, "the network")
            if net.padded != self.padded:
                layout = "padded" if net.padded else "plain"
                raise ConfigError(
                    f"the network reads the {layout} observation; this loop's rows are the other"
                )
            self._core.play(native_net(net), int(decisions))
        else:
            goal = self.counts()["decisions"] + self.num_games * int(decisions)
            while self.counts()["decisions"] < goal:
                self.step(net)
        return self.take()

    def take(self) -> dict[str, np.ndarray]:
        """The samples of the games finished since the last take (:data:`SAMPLE_FIELDS`)."""
        return self._core.take()

    def counts(self) -> dict[str, int]:
        """Searched and forced decisions, simulations, observations asked about, rows answered,
        answers, games finished, games cut, value-only samples and the opponents' moves since the
        loop was built."""
        return self._core.counts()

    def searched(self, index: int) -> int:
        """The seat searched in game ``index``'s current episode: -1 where every seat is (a game
        without an opponent)."""
        return int(self._core.searched(index))

    def state(self, index: int) -> Any:
        """A copy of game ``index``'s real state."""
        return self._core.state(index)


def evidence_policy(
    net: PolicyValueNet | Evaluate, samples: dict[str, np.ndarray], confidence: float = 0.25
) -> np.ndarray:
    """The policy each searched decision of ``samples`` (:meth:`SearchSelfPlay.take`'s ``obs``,
    ``mask``, ``visits`` and ``q``) teaches when the evidence is weighed as the table's search weighs
    it (:func:`tablezoo.bots.search.think`), ``(rows, actions)`` float32, 0 off the legal moves.

    A move's logit (``net``'s, on the decision's observation) is moved by ``confidence x (q - mean q)
    x sqrt(visits) / spread``: ``mean q`` the decision's simulated values' mean, ``spread`` the
    standard deviation of a win share of that mean, ``sqrt(mean q (1 - mean q))`` (exact where the
    values are outcomes of 0 or 1, an upper bound where they are win shares between; at least 0.05).
    A move never simulated keeps its logit. The table's root ranks its moves by ``logit + confidence
    x q x sqrt(visits) / spread``; here ``q`` is taken from the decision's mean, so that a move is
    pushed up or down by how far its evidence says it is better or worse than the others. Its push
    grows with the square root of its worlds, where the Gumbel target's ``sigma(q)`` scales ``q``
    alike for a move of one world and one of twenty. Value-only rows (no legal moves) keep a policy
    of 0s.
    """
    if not 0 < confidence < float("inf"):
        raise ConfigError(f"confidence is above 0, not {confidence!r}")
    mask = np.asarray(samples["mask"]).astype(bool)
    visits = np.where(mask, np.asarray(samples["visits"], dtype=np.float64), 0.0)
    q = np.asarray(samples["q"], dtype=np.float64)
    obs = np.asarray(samples["obs"], dtype=np.float32)
    evaluate = net.forward if isinstance(net, PolicyValueNet) else net
    logits = (
        np.concatenate(
            [np.asarray(evaluate(obs[i : i + 4096])[0], dtype=np.float64) for i in range(0, len(obs), 4096)]
        )
        if len(obs)
        else np.zeros(mask.shape)
    )
    total = visits.sum(axis=1, keepdims=True)
    mean = (visits * q).sum(axis=1, keepdims=True) / np.maximum(total, 1.0)
    spread = np.sqrt(np.maximum(mean * (1.0 - mean), 0.05**2))
    evidence = np.where(visits > 0, confidence * (q - mean) * np.sqrt(visits) / spread, 0.0)
    z = np.where(mask, logits + evidence, -np.inf)
    top = np.max(z, axis=1, keepdims=True)
    weights = np.exp(z - np.where(np.isfinite(top), top, 0.0))
    sums = weights.sum(axis=1, keepdims=True)
    return np.where(sums > 0, weights / np.where(sums > 0, sums, 1.0), 0.0).astype(np.float32)


def numpy_evaluator(net: PolicyValueNet) -> Evaluate:
    """``net``'s batched numpy forward pass as an :data:`Evaluate` (for a network the core's own
    forward pass cannot run, or to compare the two)."""
    return net.forward


def torch_evaluator(model: Any) -> Evaluate:
    """A :class:`~tablezoo.training.torch_net.TorchTwin` (the learner's network) as an
    :data:`Evaluate`, without gradients: its log-probabilities serve as logits (a constant per
    row changes neither the ranking nor the improved policy) and its value logits become win
    shares. Needs the ``train`` extra."""
    import torch

    def evaluate(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            x = torch.from_numpy(obs)
            legal_everywhere = torch.zeros((len(obs), model.num_actions), dtype=torch.bool)
            logits, value = model(x, legal_everywhere)
            return logits.numpy(), torch.sigmoid(value).numpy()

    return evaluate
