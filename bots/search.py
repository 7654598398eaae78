"""Network-guided search over the engine, the same for every game: the ``agent`` bot.

``agent`` plays the network's most likely legal move (a move in well under a
millisecond). ``agent:search=N`` weighs its likeliest moves by ``N`` simulations
(:func:`think`, a Gumbel root), and ``agent:think=SECONDS`` does the same for at
most that long a move. ``agent:search=N,root=puct`` is the determinised,
information-set Monte Carlo tree search of earlier versions (:func:`search`, the
move visited most), which expert iteration still trains on.

**The Gumbel root** (:func:`think`; Danihelka et al., "Policy improvement by
planning with Gumbel", 2022), from seat ``s`` deciding:

1. the network is asked once on ``s``'s observation: logits over the legal moves
   (the prior) and a win share. With ``advice=BOT`` a bot of the game that values its
   moves (Heckmeck's ``solver``: each move's expected worms for the turn) adds ``heed``
   logits (:data:`HEED`) for each unit of its value of a move, less its best move's value;
2. its ``considered`` likeliest moves (16; Gumbel noise added in self-play, none at a
   table) are weighed by **sequential halving**: in each of ``ceil(log2 m)`` phases
   every move still weighed is simulated as often as the budget allows, then the
   better half is kept;
3. a phase's simulations are **worlds**: each a determinisation of what ``s``
   cannot see (``game.determinize``) and one stream of chance, and every move is
   simulated in the same worlds (the same hidden cards, the same dice: the moves are
   compared on equal luck). With ``chance=turn`` (:data:`CHANCES`) each turn of the game
   draws its dice from a stream of its own, so the moves' simulations roll the same dice in
   the same turn even after they part (a move that rolls one die more does not shift the
   other seat's dice);
4. a simulation plays the move, then chance by the engine's odds and every other
   seat's move sampled from the network's policy on its own observation (a secret
   choice of ``s`` is in no observation of theirs; ``others="likeliest"``, :data:`OTHERS`:
   its likeliest move there), until ``s`` is to move again;
   its value is ``s``'s win share there, by the network's head where ``leaf``
   (:data:`LEAVES`) trusts it, else after the network played on: ``turn`` (the
   default) values the start of ``s``'s next turn, ``s``'s own moves within its
   turn played by the network's likeliest (``own=BOT``: by that bot of the game, such
   as Heckmeck's exact turn ``solver``); ``head`` the first next decision;
   ``end`` the game's end;
5. a move's score is ``logit + confidence · q · sqrt(visits) / spread``, ``q`` its
   mean simulated win share and ``spread`` their pooled standard deviation (``spread=paired``,
   :data:`SPREADS`: their deviation from their world's mean, as the moves share the worlds): a
   move overtakes one the network prefers by ``d`` logits only when its mean is better by
   ``d / confidence`` standard errors (:data:`CONFIDENCE`). With ``bias=B`` the standard
   error is ``sqrt(spread² / visits + B²)``: ``B`` is the error of the simulated values that
   no number of simulations averages away, so a long search's evidence weighs at most
   ``confidence / B`` logits a unit of win share. The move left is played.
6. the worlds that carried a move through a phase were lucky for it, more often than not:
   counted again when the last two moves are compared, they overrate the move kept (the
   winner's curse). With ``fresh=F`` the last phase runs a share ``F`` of the simulations on
   worlds of its own, and its two moves are scored on those worlds alone (``F=0``, the
   default: each phase an equal share, every world counted). Measured, it loses: the last two
   moves compared on fewer worlds cost more than the reuse of the earlier ones (Heckmeck's
   changes gain 0.009 a game at 256 simulations played out with ``fresh=0.5``, 0.042 without).

With one simulation (or one legal move) it is the network alone (advised: the prior's
likeliest move). With exact values at
its leaves it finds the best move of positions solved exactly, on both cores
(``tests/bots/test_think.py``, ``native/tests/test_core.cc``). Its native port
(:class:`~tablezoo.bots.native.NativeAgentBot`, ``native/src/search/search.h``) is the same
root, drawn from the core's generator.

**Where it stands** (see ``docs/bots/search.md`` for the curves): the search can only
be as good as the values it averages. ``benchmarks/value_calibration.py`` measures the
shipped heads on held-out self-play: at 2 seats To Court the King's and Diamant's are
informative (Brier score 0.73 and 0.78 of a constant's at turn starts), Heckmeck's
and 6 nimmt!'s are not (1.01 and 1.30: values piled near 0 and 1 where the seats
win about a quarter and three quarters of the time). The PUCT root averaged those
values into its choices and did not beat the network alone head to head (Heckmeck 0.494,
To Court the King 0.528 at 128 simulations, 500 games); the Gumbel root leaves the
network's move only on evidence, and against Heckmeck's exact turn solver it rises from
0.443 alone to 0.503 at 128 simulations (300 games). Heckmeck's, 6 nimmt!'s and Diamant's
shipped agents have their heads refitted to their own games (``tablezoo ship GAME
--refit-value ...``, :mod:`tablezoo.release.refit`), which lifts the curves where it was
measured: Diamant at 3 seats 0.318 alone, 0.433 at 128 simulations against two networks
alone; Heckmeck's ``agent:search=16`` 0.483 against the solver over 1,000 games. Head to head
at 2 seats, in the same games as the network alone: Heckmeck's ``agent:search=256,others=likeliest``
gains 0.042 (1,000 games), and advised by the exact turn solver of the margin
(``own=margin,advice=margin``) 0.098, as much as that advice gains the network alone; 6 nimmt!
valued at the next trick loses (-0.110 at 256 simulations) and played out (``leaf=end``) gains
0.092 at 8, so its thinking agent plays out
(:func:`~tablezoo.bots.registry.thinking_agent`). A second's search runs thousands of worlds
where its choice is not settled, and unbounded its evidence overrules the network on differences
no simulation can see past: Diamant's ``agent:think=1`` lost 0.085 to the network alone against
the ``search`` bot at 4 seats (1,000 games); with ``bias=0.03``, which bounds what the evidence
weighs, it holds the network's share there and gains 0.028 at 3 seats.

**The PUCT root** (``root=puct``, :func:`search`), described below, runs ``N``
simulations of a tree of ``s``'s information states and plays the move it visited most.

The search asks for priors and values through one small protocol,
:class:`Evaluator`: a batch of ``(state, seat, observation)`` requests in,
``(logits, win share)`` answers out. The trained network answers through
:class:`NetworkEvaluator` (it builds and pads the observations, and answers a
batch in one call of the network); uniform priors with rollouts, or a
hand-written heuristic, plug in the same way. Below, "the network" is whichever
evaluator guides the search.

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

**Simultaneous choices** (``game.secret_decision``: 6 nimmt!'s cards, Diamant's go/camp) are
asked by the engine seat by seat, and the search plays them in that order, which is sound
because the engine keeps a secret choice out of every other seat's observation until the
reveal: the seats after ``s`` in a round choose, in a simulation, from views that are the
same whatever ``s`` chose (``tests/bots/test_search.py`` checks it), and the network reads
nothing else. The seats before ``s`` in the round chose already; ``determinize`` redraws
their choices, uniformly. Measured (``tablezoo evaluate GAME --players N --bots
agent:search=32 agent --games G --seed S``, win share of the search, fair share 1/N):

| game | N | G | S | win share [95% CI] |
|---|---|---|---|---|
| 6 nimmt! | 2 | 200 | 5 | 0.362 [0.299, 0.431] |
| 6 nimmt! | 4 | 200 | 7 | 0.168 [0.122, 0.225] |
| Diamant | 4 | 200 | 5 | 0.613 [0.544, 0.678] |
| Heckmeck | 2 | 200 | 5 | 0.500 [0.431, 0.569] |

The 6 nimmt! search loses to the network alone, at every seat alike (by seat at 4 seats,
over 300 games: 0.16, 0.17, 0.17, 0.16), so the order of a secret round is not what weakens
it. Its values are: the shipped network's win-share head is sure where the game is not (in
the network's own games at 2 seats 82% of its values are below 0.2 or above 0.8, where the
seat then wins 0.33 and 0.63 of the time; its squared error, 0.31, is above a constant's,
0.25), so one simulation's value swings between about 0 and 1 with the others' cards drawn,
and 32 of them rank the moves by chance. Trusting the priors more (``c_puct=5``) gives 0.475
[0.380, 0.572] at 2 seats (100 games, seed 5) and 0.315 [0.232, 0.411] at 4 (100 games,
seed 7). :mod:`tablezoo.training.calibrate` refits the head to the network's own games (the policy,
and so ``agent``'s moves, unchanged): ``python -m tablezoo.training.calibrate
bots/agents/sechs_nimmt.npz sechs_nimmt --seats 2 3 4 5 6 7 8 9 10 --games 100 --out
refit.npz`` brings the squared error on held-out games from 0.174 to 0.120 (a constant's:
0.154), and ``refit.npz:search=32`` gives 0.445 [0.378, 0.514] at 2 seats (200 games, seed
5); a head refitted on 2 and 4 seats alone gave 0.502 [0.434, 0.571] there but 0.172 [0.126,
0.231] at 4 seats (200 games, seed 7): at 4 seats 32 simulations, about three a card with
three hands and cards drawn, are too few to rank the cards better than the priors do.
Modelling the others by their most likely move instead of a draw from their policy did not
change that (0.205 [0.138, 0.294], 100 games). The shipped head is left as it is.

**In the native core**: on a game of the native core that the core determinises (Heckmeck,
To Court the King, Diamant), :func:`~tablezoo.bots.registry.make_bot` seats for
``agent:search=N`` (and a network file's ``:search=N``; any ``N``, ``c_puct`` and
``horizon``) the native port of :class:`AgentBot`, :class:`~tablezoo.bots.native.NativeAgentBot`:
this search with ``batch=1``, simulation for simulation (``native/src/search/search.h`` reads like
:func:`search`), guided by the core's forward pass of the same network
(``native/src/net/net.h``, from the ``.npz``'s arrays, equal to numpy's to 1e-5). It draws from
the core's generator, so its moves differ from this search's in the draws; it is the same
player (400 Heckmeck games at 2 seats, ``N=32``: win share 0.510, 95% interval 0.461 to
0.559). It asks the network one observation at a time, as a simulation must wait for each
answer; the core's forward pass (about 0.035 ms) costs numpy's one-observation path or less
(0.034 to 0.054 ms), and numpy's batched forward (0.010 to 0.014 ms per observation, 32 at
once) would pay only with ``batch`` above 1, another search. Measured on a busy 2-core
machine, ms per move of the shipped agents at ``N`` = 32, 128, 512, Python then native:
Heckmeck at 2 seats 4.5 / 24 / 109 against 1.4 / 5.0 / 25 (3 to 5 times faster), To Court
the King at 4 seats 9.1 / 57 / 383 against 2.2 / 13 / 43 (4 to 9 times); search self-play
(``agent:search=24`` at all 4 seats, 2 processes) 792 games an hour of To Court the King on
the Python core against 9,218 on the native one, Heckmeck 1,784 against 11,377::

    OPENBLAS_NUM_THREADS=1 python benchmarks/native_search.py --games heckmeck court --positions 20
    python benchmarks/native_search.py --games heckmeck --simulations 32 --head-to-head 400
    python benchmarks/selfplay_rate.py --games court heckmeck --teacher-games 4 --search-games 4

``batch`` other than 1, the network alone (``agent``) and the Python core play this module's
search, the reference.

Only the engine's contract is used: ``determinize``, ``legal_actions``,
``apply``, ``advance``, ``observe``, ``observe_batch``, ``winners``. :mod:`tablezoo.training.expert`
trains the network on this search's own choices (expert iteration).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.net import PolicyValueNet, masked_softmax, win_share
from tablezoo.games.core import CHANCE, TERMINAL, ConfigError, Game

__all__ = [
    "AgentBot",
    "Evaluation",
    "Evaluator",
    "NetworkEvaluator",
    "Node",
    "Request",
    "as_evaluator",
    "search",
]


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
"""What a simulation asks the evaluator: a state (whole: the searching seat's determinisation, played
on), the seat whose view of it to evaluate, and that seat's observation where the simulation has built
it already (``None``: build it, if the evaluator reads observations)."""
Evaluation = tuple[np.ndarray, float]
"""The evaluator's answer: logits over every action (the priors, once softmaxed over the legal moves;
equal logits are uniform priors), and the seat's expected win share from there."""

DIRICHLET_ALPHA = 0.3
"""The concentration of the Dirichlet noise :func:`search` mixes into the root's priors by default."""

OBSERVE_BATCH_FROM = 32
"""From this many observations to build at once, :meth:`~tablezoo.games.core.Game.observe_batch`
builds them (cheaper than one ``observe`` each there, dearer below: its numpy calls cost the
same for any number of states)."""


@runtime_checkable
class Evaluator(Protocol):
    """What guides the search: priors and values of positions, a batch at a time.

    :class:`NetworkEvaluator` is the trained network's; any other (uniform priors and
    rollouts, a hand-written heuristic) plugs into :func:`search` and :class:`AgentBot` alike.
    Its states are the search's own (determinised: they hold no more than the searching seat
    knows); it reads them and changes none."""

    def evaluate_batch(self, game: Game[Any], requests: Sequence[Request]) -> list[Evaluation]:
        """One answer per request of ``game``, in their order."""
        ...


class NetworkEvaluator:
    """A :class:`~tablezoo.bots.net.PolicyValueNet` as an :class:`Evaluator`: it builds the
    requests' observations (one ``observe_batch`` from :data:`OBSERVE_BATCH_FROM` of them), has the
    network read them as it reads (padded, or plain), and answers them all with one call of the
    network; a single request takes the network's one-observation path (only its nonzero entries)."""

    def __init__(self, net: PolicyValueNet) -> None:
        if not net.has_value_head:
            raise ConfigError(f"a {net.kind} has no value head: it cannot guide a search")
        self.net = net

    def evaluate_batch(self, game: Game[Any], requests: Sequence[Request]) -> list[Evaluation]:
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
            return [self.net.evaluate(self.net.reads(game, observations[0]))]
        logits, values = self.net.forward(self.net.reads(game, np.stack(observations)))
        return list(zip(logits, values.tolist(), strict=True))


def as_evaluator(guide: Evaluator | PolicyValueNet) -> Evaluator:
    """``guide`` as an :class:`Evaluator`: a network through :class:`NetworkEvaluator`, any other as it is."""
    return NetworkEvaluator(guide) if isinstance(guide, PolicyValueNet) else guide


def search(
    at: Seat,
    evaluator: Evaluator | PolicyValueNet,
    simulations: int,
    rng: np.random.Generator,
    *,
    c_puct: float = 1.5,
    horizon: int | None = None,
    batch: int = 1,
    noise: float = 0.0,
    dirichlet_alpha: float = DIRICHLET_ALPHA,
) -> Node:
    """Run ``simulations`` simulations from the decision ``at``, guided by ``evaluator`` (a network
    or any :class:`Evaluator`); the root node.

    The search sees the position only through ``at``: the seat's observation,
    its legal moves and :meth:`~tablezoo.bots.core.Seat.sample_state`. The root is
    evaluated on the first simulation's determinisation (with the seat's observation).

    ``horizon``: how many decisions of the other seats are played out before
    the evaluator values the position (default: two rounds of the others,
    ``2 (n - 1)``). ``noise``: the weight of Dirichlet noise mixed into the
    root's priors (exploration in self-play; 0 at a table), of concentration
    ``dirichlet_alpha`` (smaller: the noise piles on fewer moves). ``batch``: how many
    simulations run side by side. Each of them stops where it needs the evaluator
    (a move of another seat, a new position to value); when all have stopped,
    one call of the evaluator answers them all (a network's: one call of it, and one
    ``observe_batch`` for their observations, from :data:`OBSERVE_BATCH_FROM` of them). A simulation
    counts its visits on the way down, so those beside it are steered to other
    moves until its value comes back (a "virtual loss"); with ``batch=1`` the
    simulations run one after the other, each seeing all before it.

    A root with one legal move is not evaluated: the move has all the visits and the prior 1.
    """
    if batch < 1:
        raise ValueError(f"batch is 1 or more, not {batch}")
    guide = as_evaluator(evaluator)
    game, seat = at.game, at.seat
    if horizon is None:
        horizon = 2 * (game.num_seats - 1)
    legal = at.legal
    if len(legal) == 1:
        root = Node(legal, np.ones(1), 0.0)
        root.visits[0] = simulations
        root.total = simulations
        return root
    obs = at.observation
    spread = rng.dirichlet(np.full(len(legal), dirichlet_alpha)) if noise > 0 else None
    first = at.sample_state(rng)  # the first simulation's: the root's priors are asked on it
    ((logits, value),) = guide.evaluate_batch(game, [(first, seat, obs)])
    prior = masked_softmax(logits, legal)
    if spread is not None:
        prior = (1 - noise) * prior + noise * spread
    root = Node(legal, prior, value)
    tree: dict[bytes, Node] = {obs.tobytes(): root}
    running: list[tuple[Generator[Request, Evaluation, None], Request]] = []
    started = 0
    while started < simulations or running:
        while len(running) < batch and started < simulations:
            x = first if started == 0 else at.sample_state(rng)
            started += 1
            walk = _simulation(game, seat, x, root, tree, c_puct, horizon, rng)
            request = next(walk, None)
            if request is not None:  # None: the simulation needed no evaluation (the game ended)
                running.append((walk, request))
        answers = guide.evaluate_batch(game, [request for _, request in running]) if running else []
        waiting = []
        for (walk, _), answer in zip(running, answers, strict=True):
            with contextlib.suppress(StopIteration):  # the simulation is over: its value is counted
                waiting.append((walk, walk.send(answer)))
        running = waiting
    return root


@dataclass
class Root:
    """What :func:`think` found at a decision: the moves it weighed, what each is worth, its choice."""

    legal: list[int]
    """The legal moves."""
    logits: np.ndarray
    """The network's logits of :attr:`legal` (the prior, before softmax)."""
    value0: float
    """The network's win share of the position."""
    visits: np.ndarray
    """Simulations of each legal move (0: a move not considered, or dropped before it was tried);
    with ``fresh``, the last phase's two moves count those of the last phase alone, as they were
    judged."""
    q: np.ndarray
    """Each move's mean win share over the simulations :attr:`visits` counts (:attr:`value0` where
    it had none)."""
    score: np.ndarray
    """Each move's final score: ``gumbel + logit + confidence · q / sqrt(spread² / visits + bias²)``
    (``-inf`` for a move not considered); the chosen move has the highest among those left."""
    choice: int
    """The index (into :attr:`legal`) of the move to play."""
    simulations: int
    """The simulations run (below the budget where time ran out or the choice was settled)."""
    settled: bool = False
    """Whether a timed search (``seconds``) stopped early because its choice was settled: its
    leading move would still lead with every simulation the time left allowed, unless the
    evidence against the others was off by more than :data:`SETTLED` standard errors."""

    @property
    def move(self) -> int:
        return self.legal[self.choice]


CONFIDENCE = 0.25
"""How many standard errors of a move's simulated win share count as one unit of the network's
logits, by default: a move the network gives half a logit less than its favourite must be better
by two standard errors to be played instead (measured: at 1.0, a noisy estimate overrode a right
prior more often than a wrong one in Heckmeck; in 6 nimmt! played out, ``leaf=end``, whose values
are the games' own outcomes, 1.0 lost 0.117 to the default over 200 paired games at 32
simulations)."""

SETTLED = 3.0
"""How many standard errors of the difference of two moves' simulated win shares a timed
:func:`think` holds against its leading move before it stops early, settled: it stops once its
leader would still lead if its lead over each other move were that much smaller, with every
simulation the time left allows to come."""

SPREADS = ("pooled", "paired")
"""The standard deviation :func:`think` reckons a move's standard error from, ``spread=``:

* ``pooled``: of a move's simulated values about their mean, pooled over the moves (each move's
  squared deviations summed, over their degrees of freedom, ``visits - 1`` a move; the default).
  Until a move has had two worlds, the paired one;
* ``paired``: of the values' deviations from the mean of their world, scaled by ``m / (m - 1)``
  for the ``m`` moves of the world: the moves are simulated on the same worlds, so what a world
  does to all of them alike (a lead, a good deal) is no error of their comparison. It is the
  standard deviation of two moves' difference in a world over the square root of two, and equals
  the pooled one where the worlds do not bear on the moves alike.
"""

SPREAD_FLOOR = 0.05
"""The least spread of a move's simulated values :func:`think` assumes: a move whose few
simulations happened to agree is not taken for certain."""


HEED = 10.0
"""How many logits a unit of an advising bot's value of a move weighs in the root's prior, by
default (``advice=BOT``): Heckmeck's solver values moves in worms, so a move it expects to bring a
tenth of a worm less than its best loses a logit."""


def advised(logits: np.ndarray, advice: Bot, at: Seat, heed: float) -> np.ndarray:
    """``logits`` (the legal moves', in ``at.legal``'s order) plus ``heed`` times ``advice``'s value
    of each move less the best, shifted to a top of 0: the prior of a search advised by a bot."""
    values = np.asarray(advice.action_values(at), np.float64)  # type: ignore[attr-defined]
    if values.shape != logits.shape or not np.isfinite(values).all():
        raise ValueError(
            f"{advice.name} must value each of the {len(logits)} legal moves with a finite number"
        )
    logits = logits + heed * (values - values.max())
    return logits - logits.max()


def think(
    at: Seat,
    evaluator: Evaluator | PolicyValueNet,
    simulations: int,
    rng: np.random.Generator,
    *,
    considered: int = 16,
    confidence: float = CONFIDENCE,
    horizon: int | None = None,
    gumbel: float = 0.0,
    seconds: float | None = None,
    leaf: str = "turn",
    others: str = "sample",
    bias: float = 0.0,
    fresh: float = 0.0,
    spread: str = "pooled",
    chance: str = "world",
    own: Bot | None = None,
    advice: Bot | None = None,
    heed: float = HEED,
) -> Root:
    """A Gumbel root with sequential halving over ``simulations`` simulations from the decision
    ``at``: the move to play and what it found (see the module docstring).

    ``considered``: the most moves weighed (the network's likeliest, plus Gumbel noise of scale
    ``gumbel``: 0 at a table, 1 in self-play, where it samples them without replacement).
    ``confidence``: how many standard errors of a move's simulated win share count as much as
    one unit of the network's logits. ``seconds``: a time budget; the search is timed after
    every world, the rest of the halving planned anew for the simulations the time left allows
    at the rate measured (``simulations`` stays the most it runs), and it stops when the time
    is up, or sooner where the choice is settled (:attr:`Root.settled`, :data:`SETTLED`).
    ``others`` (:data:`OTHERS`): how the other seats move in a simulation. ``bias``: the error of a
    move's simulated win share that no number of simulations averages away (the model's own: of
    the others, of the values); its standard error is ``sqrt(spread² / visits + bias²)``, so that
    the evidence a long search gathers weighs at most ``confidence / bias`` logits for each unit
    of win share (0: no bound). ``fresh``: the share of the simulations the halving's last phase
    runs, on worlds of its own, and the final choice between its two moves is judged on those
    worlds alone (0: each phase has an equal share, and every world a move had counts): the
    worlds that carried a move through the earlier phases, where it was lucky to be kept, do not
    count again for it. ``spread`` (:data:`SPREADS`): the standard deviation a move's standard
    error is reckoned from. ``chance`` (:data:`CHANCES`): how a simulation draws chance. ``own``: a
    bot that plays the seat's own moves in a simulation after the root's (None: the network's
    likeliest), on the simulation's state. ``advice``: a bot that values its moves
    (``action_values``), whose value of each legal move, less the best, ``heed`` times, is added
    to the network's logits: the prior the moves are considered and weighed by (None: the
    network's logits alone). One simulation (or one considered move) plays the prior's likeliest
    move: the network's own, without advice."""
    if spread not in SPREADS:
        raise ValueError(f"spread is one of {', '.join(SPREADS)}, not {spread!r}")
    if chance not in CHANCES:
        raise ValueError(f"chance is one of {', '.join(CHANCES)}, not {chance!r}")
    paired = spread == "paired"
    game, seat = at.game, at.seat
    guide = as_evaluator(evaluator)
    legal = at.legal
    horizon = 2 * (game.num_seats - 1) if horizon is None else horizon
    started = time.perf_counter()
    deadline = None if seconds is None else started + seconds
    k = len(legal)
    first = at.sample_state(rng)
    ((all_logits, value0),) = guide.evaluate_batch(game, [(first, seat, at.observation)])
    logits = np.asarray(all_logits, np.float64)[legal]
    logits = logits - logits.max()
    if advice is not None:
        logits = advised(logits, advice, at, heed)
    noise = gumbel * rng.gumbel(size=k) if gumbel > 0 else np.zeros(k)
    visits, totals, squares = np.zeros(k), np.zeros(k), np.zeros(k)
    # what the scores read: every world a move had, less those before the last phase with `fresh`
    base_visits, base_totals = np.zeros(k), np.zeros(k)
    within, degrees = 0.0, 0  # the values' squared deviations from their world's mean, and their count
    m = min(considered, k, max(1, simulations // 2))
    candidates = sorted(range(k), key=lambda i: -(noise[i] + logits[i]))[:m]
    spent = 0

    def deviation() -> float:
        # pooled: each move's squared deviations from its mean over its degrees of freedom, summed
        # over the moves (a move of one world has none); before any move has two worlds, and with
        # `paired`, the values' deviations from their world's mean
        tried = visits > 1
        if not paired and tried.any():
            deviations = squares[tried] - totals[tried] ** 2 / visits[tried]
            variance = float(np.sum(deviations)) / float(np.sum(visits[tried] - 1))
        elif degrees:
            variance = within / degrees
        else:
            return SPREAD_FLOOR
        return max(math.sqrt(max(variance, 0.0)), SPREAD_FLOOR)

    def weight(n: Any, s: float) -> Any:
        # one unit of q over its standard error: s / sqrt(n) from the simulations' noise, and `bias`
        # that no number of them averages away (0 where a move has none)
        if bias == 0:
            return np.sqrt(n) / s
        n = np.asarray(n, np.float64)
        return np.where(n > 0, 1 / np.sqrt(s * s / np.maximum(n, 1) + bias * bias), 0.0)

    def judged() -> tuple[np.ndarray, np.ndarray]:
        n = visits - base_visits
        return n, np.where(n > 0, (totals - base_totals) / np.maximum(n, 1), value0)

    def scores() -> np.ndarray:
        n, q = judged()
        return noise + logits + confidence * q * weight(n, deviation())

    def settled(left: int) -> bool:
        # the leader's lead over each other move still weighed (which has had as many worlds), cut
        # by SETTLED standard errors of the difference of their means, still ranks it first with
        # `left` more simulations each (where the cut lead is negative, the most it may weigh)
        now, s = scores(), deviation()
        worlds, q = judged()
        lead = max(candidates, key=lambda i: now[i])
        for i in candidates:
            if i != lead:
                n = worlds[i]
                kept = q[lead] - q[i] - SETTLED * s * math.sqrt(2 / n)
                reach = n + (left if kept < 0 else 0)
                prior = noise[lead] + logits[lead] - noise[i] - logits[i]
                if prior + confidence * kept * float(weight(reach, s)) <= 0:
                    return False
        return True

    phases = max(1, math.ceil(math.log2(m))) if m > 1 else 0
    budget = simulations
    stopped = False

    def share(phase: int, before: int) -> int:
        # a phase's worlds: its equal share of the budget left when it began, or with `fresh` the
        # last phase the rest of the budget and each other phase its share of the rest but `fresh`
        if fresh and phases > 1:
            screening = budget - round(fresh * budget)
            if phase < phases - 1:
                return max(1, (screening - before) // ((phases - 1 - phase) * len(candidates)))
        return max(1, (budget - before) // ((phases - phase) * len(candidates)))

    for phase in range(phases):
        before = spent
        if fresh and phase == phases - 1 and phase > 0:  # the last phase judges on its own worlds
            base_visits[candidates], base_totals[candidates] = visits[candidates], totals[candidates]
        per = share(phase, before)
        world = 0
        while world < per:
            if deadline is not None and spent and time.perf_counter() > deadline:
                break
            y = first if spent == 0 else at.sample_state(rng)
            stream = int(rng.integers(2**63))
            values = []
            for i in candidates:  # every move on the same hidden cards and the same dice
                walk = _lookahead(
                    game,
                    seat,
                    game.clone(y),
                    legal[i],
                    horizon,
                    np.random.default_rng(stream),
                    leaf,
                    others,
                    chance,
                    own,
                )
                v = _drive(game, guide, walk)
                values.append(v)
                visits[i] += 1
                totals[i] += v
                squares[i] += v * v
                spent += 1
            world += 1
            within += float(np.sum((np.asarray(values) - np.mean(values)) ** 2))
            degrees += len(values) - 1
            if deadline is not None:
                # timed after every world: the budget is what is spent and what the time left allows
                # at the rate measured so far, this phase's worlds its share of it planned anew
                elapsed = time.perf_counter() - started
                rate = spent / max(elapsed, 1e-9)
                budget = min(simulations, spent + max(0, int(rate * (deadline - started - elapsed))))
                per = share(phase, before)
                # stop where more would come but would not change the choice (settled): a move gets
                # at most what is left of the budget, and a world each phase to come
                more = world < per or phase < phases - 1
                if more and settled(max(0, budget - spent) + phases - phase):
                    stopped = True
                    break
        else:
            now = scores()
            ranked = sorted(candidates, key=lambda i: -now[i])
            candidates = ranked[: max(1, math.ceil(len(candidates) / 2))]
            continue
        break  # out of time, or settled: the moves are ranked as they stand
    final = scores()
    considered_mask = np.zeros(k, bool)
    considered_mask[candidates] = True
    choice = max(candidates, key=lambda i: final[i])
    judged_visits, q = judged()
    return Root(
        legal=legal,
        logits=logits,
        value0=float(value0),
        visits=judged_visits,
        q=q,
        score=np.where(considered_mask, final, -np.inf),
        choice=int(choice),
        simulations=spent,
        settled=stopped,
    )


def _drive(game: Game[Any], guide: Evaluator, walk: Generator[Request, Evaluation, float]) -> float:
    """Run one simulation to its end, answering each of its requests at once; its value."""
    try:
        request = next(walk)
        while True:
            (answer,) = guide.evaluate_batch(game, [request])
            request = walk.send(answer)
    except StopIteration as end:
        return float(end.value)


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
    each evaluation it needs and is sent the evaluator's answer."""
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


LEAVES = ("head", "turn", "end")
"""Where :func:`think` trusts the network's value head, ``leaf=``:

* ``head``: at the first new decision of the searching seat (AlphaZero's leaf);
* ``turn``: only at a decision of the seat that follows another seat's (a new turn, the
  position the head is best calibrated at); the seat's moves within its turn are played
  by the network (its likeliest), the others' sampled from its policy, until then;
* ``end``: nowhere: the network plays the game out, the seat's win share its value.
"""

OTHERS = ("sample", "likeliest")
"""How the other seats move in :func:`think`'s simulations, ``others=``:

* ``sample``: a draw from the network's policy on their own observation (the default);
* ``likeliest``: the network's likeliest move there, as ``agent`` plays at a table.
"""

CHANCES = ("world", "turn")
"""How chance is drawn in :func:`think`'s simulations, ``chance=``:

* ``world``: from the world's one stream, in the order it comes (the default). The moves compared
  roll the same dice only until their simulations part: a move that rolls one die more shifts every
  later roll of the world, the other seats' turns included;
* ``turn``: each part of the game (a seat's turn, a cave, a round: the game's
  :meth:`~tablezoo.games.core.Game.chance_context`) from a stream of its own, drawn from the world's
  and the part's number. The moves compared roll the same dice in the same turn, whatever
  happened before it, so what a world does to them alike cancels from their comparison (common
  random numbers kept in step); each move's own values are drawn as before.
"""

MAX_PLAYOUT = 10_000
"""The decisions a playout (:data:`LEAVES` ``turn`` and ``end``) plays at most before the head values it."""


class _TurnStreams:
    """Chance by the turn (:data:`CHANCES` ``turn``): each part of the game
    (:meth:`~tablezoo.games.core.Game.chance_context`, read before every chance outcome and
    decision) draws from its own generator, seeded by the world's stream and the number of parts
    begun since the root; the others' sampled moves draw from it too."""

    def __init__(self, game: Game[Any], x: Any, rng: np.random.Generator) -> None:
        self.base = int(rng.integers(2**63))
        self.context = game.chance_context(x)
        self.parts = 0
        self.rng = np.random.default_rng([self.base, 0])

    def follow(self, game: Game[Any], x: Any) -> None:
        context = game.chance_context(x)
        if context != self.context:
            self.context, self.parts = context, self.parts + 1
            self.rng = np.random.default_rng([self.base, self.parts])

    def advance(self, game: Game[Any], x: Any) -> int:
        """``game.advance``, each chance outcome drawn from its part's generator."""
        self.follow(game, x)
        mover = game.to_move(x)
        while mover == CHANCE:
            game.step_chance(x, self.rng)
            self.follow(game, x)
            mover = game.to_move(x)
        return mover


def _lookahead(
    game: Game[Any],
    seat: int,
    x: Any,
    move: int,
    horizon: int,
    rng: np.random.Generator,
    leaf: str,
    others_move: str = "sample",
    chance: str = "world",
    own: Bot | None = None,
) -> Generator[Request, Evaluation, float]:
    """One simulation of :func:`think`: ``move`` played in the determinised state ``x``, then chance
    by the engine's odds (drawn from ``rng``) and the others' moves sampled from the network's
    policy (or its likeliest, ``others_move``), until the seat is to move again (or ``horizon``
    decisions of the others, or the end);
    the seat's value there, where ``leaf`` (:data:`LEAVES`) trusts the head, or after the network
    played on to such a place. ``chance`` (:data:`CHANCES`): ``rng`` draws everything
    (``world``), or seeds a generator for each part of the game (``turn``). ``own``: the bot that
    plays the seat's own moves before the leaf (None: the network's likeliest; a bot draws from its
    own generator, so the simulation's chance is drawn as without it). It yields each evaluation it
    needs and returns the value."""
    turns = _TurnStreams(game, x, rng) if chance == "turn" else None
    game.apply(x, move, check=False)
    others = 0
    limit = horizon if leaf == "head" else MAX_PLAYOUT  # else the others play until the seat moves
    for _ in range(MAX_PLAYOUT):
        if turns is None:
            mover = game.advance(x, rng)
        else:
            mover = turns.advance(game, x)
            rng = turns.rng
        if mover == TERMINAL:
            return win_share(game, x, seat)
        if mover != seat and others < limit:
            moves = game.legal_actions(x)
            logits, _ = yield (x, mover, None)
            if others_move == "likeliest":
                chosen = int(np.argmax(np.asarray(logits)[moves]))
            else:
                chosen = int(rng.choice(len(moves), p=masked_softmax(logits, moves)))
            game.apply(x, moves[chosen], check=False)
            others += 1
            continue
        if mover != seat or leaf == "head" or (leaf == "turn" and others):
            _, v = yield (x, seat, game.observe(x, seat))
            return v
        # the seat's own move within its turn (or anywhere, for "end"): the own bot's, else the
        # network's likeliest, and on
        if own is not None:
            game.apply(x, own.act(Seat(game, x, seat)), check=False)
            continue
        logits, _ = yield (x, seat, game.observe(x, seat))
        moves = game.legal_actions(x)
        game.apply(x, moves[int(np.argmax(np.asarray(logits)[moves]))], check=False)
    _, v = yield (x, seat, game.observe(x, seat))
    return v


ROOTS = ("gumbel", "puct")
"""How :class:`AgentBot` chooses at its decision: ``gumbel`` (:func:`think`, the default) or ``puct``
(:func:`search`'s most visited move, the root of versions before 0.7)."""

THINK_SIMULATIONS = 100_000
"""The simulations a thinking agent (``think=SECONDS`` without ``search``) may run at most."""


class AgentBot:
    """A network (or any :class:`Evaluator`) at a table: alone (``search=0``, ``think=0``) or
    searching, ``search`` simulations a move and at most ``think`` seconds.

    Alone, a network plays its most likely legal move from the seat's observation; another
    evaluator is asked on a determinisation of the seat's position (drawn from the bot's own
    generator). Searching, it plays :func:`think`'s choice (``root="puct"``: the most visited move
    of :func:`search`)."""

    def __init__(
        self,
        evaluator: Evaluator | PolicyValueNet,
        search: int = 0,
        c_puct: float = 1.5,
        horizon: int = 0,
        batch: int = 1,
        seed: int | None = None,
        name: str = "agent",
        think: float = 0.0,
        considered: int = 16,
        confidence: float = CONFIDENCE,
        root: str = "gumbel",
        leaf: str = "turn",
        others: str = "sample",
        bias: float = 0.0,
        fresh: float = 0.0,
        spread: str = "pooled",
        chance: str = "world",
        own: str | Bot = "network",
        advice: str | Bot = "none",
        heed: float = HEED,
    ) -> None:
        if search < 0 or horizon < 0 or c_puct <= 0 or batch < 1:
            raise ValueError("search and horizon are 0 or more, c_puct above 0, batch 1 or more")
        if not (think >= 0 and math.isfinite(think)) or considered < 1 or not confidence > 0:
            raise ValueError("think is 0 seconds or more, considered 1 or more, confidence above 0")
        if root not in ROOTS:
            raise ValueError(f"root is one of {', '.join(ROOTS)}, not {root!r}")
        if leaf not in LEAVES:
            raise ValueError(f"leaf is one of {', '.join(LEAVES)}, not {leaf!r}")
        if others not in OTHERS:
            raise ValueError(f"others is one of {', '.join(OTHERS)}, not {others!r}")
        if not 0 <= bias <= 1:
            raise ValueError(f"bias is a win share, 0 to 1, not {bias}")
        if not 0 <= fresh < 1:
            raise ValueError(
                f"fresh is the share of the simulations the last phase runs, 0 to below 1, not {fresh}"
            )
        if spread not in SPREADS:
            raise ValueError(f"spread is one of {', '.join(SPREADS)}, not {spread!r}")
        if chance not in CHANCES:
            raise ValueError(f"chance is one of {', '.join(CHANCES)}, not {chance!r}")
        if root == "puct" and chance != "world":
            raise ValueError("chance (how a simulation draws chance) is the gumbel root's")
        if root == "puct" and spread != "pooled":
            raise ValueError("spread (what a move's standard error is reckoned from) is the gumbel root's")
        if root == "puct" and think:
            raise ValueError("think (a time budget) is the gumbel root's: the puct root takes search=N")
        if root == "puct" and bias:
            raise ValueError("bias (a bound on the evidence) is the gumbel root's: the puct root averages")
        if root == "puct" and fresh:
            raise ValueError("fresh (the halving's last phase on worlds of its own) is the gumbel root's")
        if batch != 1 and root != "puct":
            raise ValueError("batch (simulations side by side) is the puct root's: add root=puct")
        if root == "puct" and own != "network":
            raise ValueError("own (the seat's own moves in a simulation) is the gumbel root's")
        if isinstance(own, str) and own != "network":
            raise ValueError(
                f"own is network or a bot (the registry makes one by name: agent:own=NAME), not {own!r}"
            )
        if root == "puct" and advice != "none":
            raise ValueError("advice (a bot's values added to the root's logits) is the gumbel root's")
        if isinstance(advice, str) and advice != "none":
            raise ValueError(
                "advice is none or a bot that values its moves (the registry makes one by name: "
                f"agent:advice=NAME), not {advice!r}"
            )
        if not isinstance(advice, str) and not hasattr(advice, "action_values"):
            raise ValueError(f"advice is a bot that values its moves (action_values), not {advice.name!r}")
        if not (heed >= 0 and math.isfinite(heed)):
            raise ValueError(f"heed is the logits a unit of the advice's value weighs, 0 or more, not {heed}")
        self.net = evaluator if isinstance(evaluator, PolicyValueNet) else None
        """The network, where the bot plays one (None for another evaluator)."""
        self.evaluator = as_evaluator(evaluator)
        self.simulations = search or (THINK_SIMULATIONS if think else 0)
        self.seconds = think or None
        self.c_puct = c_puct
        self.horizon = horizon or None
        self.batch = batch
        self.considered = considered
        self.confidence = confidence
        self.root_kind = root
        self.leaf = leaf
        self.others = others
        self.bias = bias
        self.fresh = fresh
        self.spread = spread
        self.chance = chance
        self.own_bot = None if isinstance(own, str) else own
        """The bot playing the seat's own moves in the root's simulations (None: the network's likeliest)."""
        self.own = own if isinstance(own, str) else own.name
        """Its name (``network``: the network's likeliest)."""
        self.advice_bot = None if isinstance(advice, str) else advice
        """The bot whose values of the moves join the network's logits (None: the logits alone)."""
        self.advice = advice if isinstance(advice, str) else advice.name
        """Its name (``none``: no advice)."""
        self.heed = heed
        self.name = name
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        if self.own_bot is not None:
            self.own_bot.reset(seed)
        if self.advice_bot is not None:
            self.advice_bot.reset(seed)

    def think(self, seat: Seat, gumbel: float = 0.0) -> Root:
        """The Gumbel root :func:`think` searches from ``seat`` with this bot's settings: the move it
        plays and what it found (Gumbel noise of scale ``gumbel`` at the root: 0 at a table)."""
        if self.root_kind != "gumbel" or not self.simulations:
            raise ValueError(
                f"{self.name} thinks with the gumbel root only where it searches: search=N or think=SECONDS"
            )
        return think(
            seat,
            self.evaluator,
            self.simulations,
            self.rng,
            considered=self.considered,
            confidence=self.confidence,
            horizon=self.horizon,
            gumbel=gumbel,
            seconds=self.seconds,
            leaf=self.leaf,
            others=self.others,
            bias=self.bias,
            fresh=self.fresh,
            spread=self.spread,
            chance=self.chance,
            own=self.own_bot,
            advice=self.advice_bot,
            heed=self.heed,
        )

    def act(self, seat: Seat) -> int:
        legal = seat.legal
        if self.simulations == 0:
            if self.net is not None:  # the observation is all a network reads: no state to draw
                logits = self.net.logits(self.net.reads(seat.game, seat.observation))
            else:
                request = (seat.sample_state(self.rng), seat.seat, seat.observation)
                ((logits, _),) = self.evaluator.evaluate_batch(seat.game, [request])
            prior = np.asarray(logits, np.float64)[legal]
            if self.advice_bot is not None and len(legal) > 1:
                prior = advised(prior - prior.max(), self.advice_bot, seat, self.heed)
            return legal[int(np.argmax(prior))]
        if self.root_kind == "gumbel":
            return legal[0] if len(legal) == 1 else self.think(seat).move
        root = search(
            seat,
            self.evaluator,
            self.simulations,
            self.rng,
            c_puct=self.c_puct,
            horizon=self.horizon,
            batch=self.batch,
        )
        best = np.flatnonzero(root.visits == root.visits.max())
        return root.legal[int(best[np.argmax(root.prior[best])])]
