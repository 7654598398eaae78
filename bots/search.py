"""Network-guided search over the engine, the same for every game: the ``agent`` bot.

``agent`` plays the network's most likely legal move (a move in well under a
millisecond). ``agent:search=N`` runs ``N`` simulations of a determinised,
information-set Monte Carlo tree search (:func:`search`) guided by the network,
and plays the move it visited most.

How one simulation goes, from seat ``s`` deciding in state ``x``:

1. **Determinise**: ``game.determinize(x, s, rng)`` draws everything ``s``
   cannot see (the others' hands, their secret choices) anew, consistent with
   what ``s`` knows. Each simulation plans on a fresh draw, so the search
   averages over the hidden cards instead of peeking at them.
2. **Descend** the tree of ``s``'s own decisions. A node is one of ``s``'s
   information states, keyed by ``s``'s observation; at a node the move is
   chosen by PUCT: ``Q(a) + c · P(a) · sqrt(N) / (1 + N(a))``, with ``P`` the
   network's policy and ``Q`` the mean win share of the simulations through ``a``.
3. **Between two of ``s``'s decisions** chance is sampled (``sample_chance``:
   the engine's exact odds) and every other seat moves by sampling the
   network's own policy for that seat, from that seat's observation of the
   determinised state: the others are modelled as playing like the agent, and
   never see what ``s`` chose in secret.
4. **Evaluate**: the game's end gives ``s``'s win share; a new node, or the
   ``horizon``-th decision of the others since ``s`` last moved, is valued by the
   network's win-share head on ``s``'s observation. The value is added to every
   ``(node, move)`` on the way down.

**Side by side** (``agent:search=N,batch=B``): B simulations run at once, each
paused where it needs the network, and one call of the network (and, from
:data:`OBSERVE_BATCH_FROM` positions on, one ``observe_batch``) answers them
all; a simulation counts its visits on the way down, so that those beside it
try other moves meanwhile. ``batch=1`` (the default) is the search one
simulation after the other. A batched matrix product pays where BLAS runs one
thread per process (``OPENBLAS_NUM_THREADS=1``): on a busy 2-core machine with
two BLAS threads it can cost more than the single calls it replaces.

Only the engine's contract is used: ``determinize``, ``legal_actions``,
``apply``, ``advance``, ``observe``, ``observe_batch``, ``winners``. :mod:`tablezoo.training.expert`
trains the network on this search's own choices (expert iteration).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Generator, Iterator
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.net import PolicyValueNet, masked_softmax, win_share
from tablezoo.games.core import TERMINAL, Game

__all__ = ["AgentBot", "Node", "search"]


class Node:
    """One information state of the searching seat: its legal moves, priors and statistics."""

    __slots__ = ("legal", "prior", "total", "value", "value0", "visits")

    def __init__(self, legal: list[int], prior: np.ndarray, value0: float) -> None:
        self.legal = legal
        self.prior = prior
        self.visits = np.zeros(len(legal))
        self.value = np.zeros(len(legal))  # summed win shares
        self.total = 0
        self.value0 = value0  # the network's estimate: the Q of a move not tried yet

    def select(self, c_puct: float) -> int:
        """The index (into :attr:`legal`) of the move PUCT tries next."""
        visits = self.visits
        q = np.where(visits > 0, self.value / np.maximum(visits, 1), self.value0)
        u = c_puct * self.prior * (math.sqrt(self.total + 1) / (1.0 + visits))
        return int(np.argmax(q + u))


Request = tuple[Any, int, "np.ndarray | None"]
"""What a simulation asks the network: a state, the seat whose view of it to evaluate, and that
seat's observation where the simulation has built it already (``None``: build it)."""
Evaluation = tuple[np.ndarray, float]
"""The network's answer: the logits over every action, and the win share."""

OBSERVE_BATCH_FROM = 32
"""From this many observations to build at once, :meth:`~tablezoo.games.core.Game.observe_batch`
builds them (cheaper than one ``observe`` each there, dearer below: its numpy calls cost the
same for any number of states)."""


def search(
    at: Seat,
    net: PolicyValueNet,
    simulations: int,
    rng: np.random.Generator,
    *,
    c_puct: float = 1.5,
    horizon: int | None = None,
    noise: float = 0.0,
    batch: int = 1,
    dirichlet_alpha: float = 0.3,
) -> Node:
    """Run ``simulations`` simulations from the decision ``at``; the root node.

    The search sees the position only through ``at``: the seat's observation,
    its legal moves and :meth:`~tablezoo.bots.core.Seat.sample_state`.

    ``horizon``: how many decisions of the other seats are played out before
    the network values the position (default: two rounds of the others,
    ``2 (n - 1)``). ``noise``: the weight of Dirichlet noise mixed into the
    root's priors (exploration in self-play; 0 at a table). ``batch``: how many
    simulations run side by side. Each of them stops where it needs the network
    (a move of another seat, a new position to value); when all have stopped,
    one call of the network answers them all (and one ``observe_batch`` builds
    their observations, from :data:`OBSERVE_BATCH_FROM` of them). A simulation
    counts its visits on the way down, so those beside it are steered to other
    moves until its value comes back (a "virtual loss"); with ``batch=1`` the
    simulations run one after the other, each seeing all before it.
    """
    if batch < 1:
        raise ValueError(f"batch is 1 or more, not {batch}")
    game, seat = at.game, at.seat
    if horizon is None:
        horizon = 2 * (game.num_seats - 1)
    obs = at.observation
    legal = at.legal
    logits, value = net.evaluate(game.pad(obs))
    prior = masked_softmax(logits, legal)
    if noise > 0 and len(legal) > 1:
        prior = (1 - noise) * prior + noise * rng.dirichlet(np.full(len(legal), dirichlet_alpha))
    root = Node(legal, prior, value)
    if len(legal) == 1:
        root.visits[0] = simulations
        root.total = simulations
        return root
    tree: dict[bytes, Node] = {obs.tobytes(): root}
    running: list[tuple[Generator[Request, Evaluation, None], Request]] = []
    started = 0
    while started < simulations or running:
        while len(running) < batch and started < simulations:
            started += 1
            walk = _simulation(game, seat, at.sample_state(rng), root, tree, c_puct, horizon, rng)
            request = next(walk, None)
            if request is not None:  # None: the simulation needed no network (the game ended)
                running.append((walk, request))
        answers = _evaluate(game, net, [request for _, request in running])
        waiting = []
        for (walk, _), answer in zip(running, answers, strict=True):
            with contextlib.suppress(StopIteration):  # the simulation is over: its value is counted
                waiting.append((walk, walk.send(answer)))
        running = waiting
    return root


def _simulation(
    game: Game[Any],
    seat: int,
    x: Any,
    root: Node,
    tree: dict[bytes, Node],
    c_puct: float,
    horizon: int,
    rng: np.random.Generator,
) -> Generator[Request, Evaluation, None]:
    """One simulation on the determinised state ``x`` (see the module docstring): it yields
    each evaluation it needs and is sent the network's answer."""
    node = root
    path: list[tuple[Node, int]] = []
    while True:
        i = node.select(c_puct)
        node.visits[i] += 1  # counted now: simulations running beside this one see it
        node.total += 1
        path.append((node, i))
        game.apply(x, node.legal[i], check=False)
        others = 0
        mover = game.advance(x, rng)
        while mover != TERMINAL and mover != seat and others < horizon:
            moves = game.legal_actions(x)
            logits, _ = yield (x, mover, None)
            p = masked_softmax(logits, moves)
            game.apply(x, moves[int(rng.choice(len(moves), p=p))], check=False)
            others += 1
            mover = game.advance(x, rng)
        if mover == TERMINAL:
            v = win_share(game, x, seat)
            break
        obs = game.observe(x, seat)
        if mover != seat:
            _, v = yield (x, seat, obs)
            break
        key = obs.tobytes()
        child = tree.get(key)
        moves = game.legal_actions(x)
        if child is None or child.legal != moves:
            # a new information state (or, where an observation leaves out something that
            # changes the legal moves, another state behind the same one: valued, not entered)
            logits, v = yield (x, seat, obs)
            if child is None:
                tree[key] = Node(moves, masked_softmax(logits, moves), v)
            break
        node = child
    for n, i in path:
        n.value[i] += v


def _evaluate(game: Game[Any], net: PolicyValueNet, requests: list[Request]) -> list[Evaluation]:
    """The network's answers to ``requests``, in one call of it."""
    if not requests:
        return []
    missing = [(x, seat) for x, seat, obs in requests if obs is None]
    built: Iterator[np.ndarray]
    if len(missing) >= OBSERVE_BATCH_FROM:
        states, seats = zip(*missing, strict=True)
        built = iter(game.observe_batch(states, seats))
    else:
        built = (game.observe(x, seat) for x, seat in missing)
    # in the requests' order: an observation a simulation brought, else the next one built
    observations = [obs if obs is not None else next(built) for _, _, obs in requests]
    if len(requests) == 1:  # one observation: the network reads only its nonzero entries
        return [net.evaluate(game.pad(observations[0]))]
    logits, values = net.forward(game.pad(np.stack(observations)))
    return list(zip(logits, values.tolist(), strict=True))


class AgentBot:
    """The trained network at a table: alone (``search=0``) or guiding ``search`` simulations."""

    def __init__(
        self,
        net: PolicyValueNet,
        search: int = 0,
        c_puct: float = 1.5,
        horizon: int = 0,
        batch: int = 1,
        seed: int | None = None,
        name: str = "agent",
    ) -> None:
        if search < 0 or horizon < 0 or c_puct <= 0 or batch < 1:
            raise ValueError("search and horizon are 0 or more, c_puct above 0, batch 1 or more")
        self.net = net
        self.simulations = search
        self.c_puct = c_puct
        self.horizon = horizon or None
        self.batch = batch
        self.name = name
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, seat: Seat) -> int:
        if self.simulations == 0:
            legal = seat.legal
            logits, _ = self.net.evaluate(seat.game.pad(seat.observation))
            return legal[int(np.argmax(logits[legal]))]
        root = search(
            seat,
            self.net,
            self.simulations,
            self.rng,
            c_puct=self.c_puct,
            horizon=self.horizon,
            batch=self.batch,
        )
        best = np.flatnonzero(root.visits == root.visits.max())
        return root.legal[int(best[np.argmax(root.prior[best])])]
