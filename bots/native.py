"""Bots whose moves the native core makes: the ports of Python bots, for native games.

A bot's native port (``native/``: every game's heuristic, and the bots of the game's
``Ports``) reads like its Python twin. A deterministic port makes its twin's moves, move for
move and value for value; a randomised one (To Court the King's heuristic, whose stopping
rollouts draw dice; 6 nimmt!'s ``montecarlo`` and ``search``; Diamant's ``search``) draws from
the core's own random generator, so its moves differ from its twin's in the draws but it is
the same player, measured over head-to-head games (``tests/bots/test_native_*.py``,
``benchmarks/native_bots.py``). Either is many times faster.
:func:`tablezoo.bots.registry.make_bot` seats one where the game runs on the native core and
has a port of the bot asked for (with its default settings); the Python bot plays everywhere
else and stays the reference. The port's bot is a :class:`NativePortBot` and an instance of
the Python bot's class too (:func:`native_twin`): it is that bot, played by the core.

A port is handed the whole state (:meth:`~tablezoo.bots.core.Seat.native_state`) and reads
only what its seat may know: a port of a hidden-information bot plans on the core's
determinisations, as its twin plans on ``seat.sample_state``.

The network-guided search (``agent:search=N``, ``agent:think=SECONDS``,
:class:`~tablezoo.bots.search.AgentBot`) has a port too, :class:`NativeAgentBot`: the core's
forward pass of the same network (:func:`native_net`) guiding the core's search
(``native/src/search/search.h``: the Gumbel root of :func:`~tablezoo.bots.search.think`, or with
``root=puct`` the tree of :func:`~tablezoo.bots.search.search`), on the games the core
determinises (:attr:`~tablezoo.games.native.NativeGame.has_native_search`), with the settings
it plays (:func:`has_native_search`).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.net import ActionHead, PolicyValueNet
from tablezoo.bots.search import CONFIDENCE, DIRICHLET_ALPHA, HEED, AgentBot, Node, Root
from tablezoo.games.core import Game


def has_native_port(game: Game[Any], name: str) -> bool:
    """Whether ``game`` runs on the native core and it has a port of the bot ``name``."""
    return name in getattr(game, "native_ports", ())


def _fresh_seed() -> int:
    """A seed from the operating system, for a bot given none (as a Python bot draws its own)."""
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


class NativePortBot:
    """The native port of the bot ``name`` for ``game`` (a native game), as a bot.

    It plays the game it was made for (seats of another configuration of the game are
    refused by the core). Its randomness is seeded with ``seed`` (one from the operating
    system when None), and again by ``reset(seed)``.
    """

    def __init__(self, game: Game[Any], name: str, seed: int | None = None) -> None:
        self.name = name
        self._port = game.native_port(name, _fresh_seed() if seed is None else seed)  # type: ignore[attr-defined]

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the bot's randomness when ``seed`` is given."""
        self._port.reset(seed)

    def act(self, seat: Seat) -> int:
        """The port's move for ``seat``."""
        return int(self._port.act(seat.native_state()))


class ValuingNativePortBot(NativePortBot):
    """A native port of a bot that values its moves (a solver's or a search's values, which
    expert iteration reads as soft targets)."""

    def action_values(self, seat: Seat) -> list[float]:
        """The value of each legal move (``seat.legal``'s order), as the Python bot values it."""
        return list(self._port.action_values(seat.native_state()))


@functools.cache
def native_twin(cls: type[Bot]) -> type[NativePortBot]:
    """The class of the native port bots of the Python bot ``cls``: a :class:`NativePortBot`
    (a :class:`ValuingNativePortBot` when ``cls`` values its moves) that is also a ``cls``,
    made once per class."""
    base = ValuingNativePortBot if hasattr(cls, "action_values") else NativePortBot
    doc = f"{cls.__name__} played by the native core's port of it (see :mod:`tablezoo.bots.native`)."
    twin = type(f"Native{cls.__name__}", (base, cls), {"__doc__": doc, "__module__": __name__})
    return cast(type[NativePortBot], twin)


_NATIVE_NETS: weakref.WeakKeyDictionary[PolicyValueNet, Any] = weakref.WeakKeyDictionary()


def native_net(net: PolicyValueNet) -> Any:
    """The native core's twin of ``net``: its forward pass (``native/src/net/net.h``) from the same
    arrays, handed over once per network (the bots of a table share it; none changes it)."""
    twin = _NATIVE_NETS.get(net)
    if twin is None:
        from tablezoo.games import _native  # type: ignore[attr-defined]  # built: a native game asked

        head = None
        if net.head is not None:
            head = {name: getattr(net.head, name) for name in ActionHead.ARRAYS} | {"size": net.head.size}
        twin = _native.PolicyValueNet(
            net.weights,
            net.biases,
            net.value_w,
            None if net.value_b is None else np.array([net.value_b], np.float32),
            net.scale,
            head,
            net.activation,
            net.padded,
        )
        _NATIVE_NETS[net] = twin
    return twin


NATIVE_SEARCH_SETTINGS = (
    "search",
    "c_puct",
    "horizon",
    "think",
    "considered",
    "confidence",
    "root",
    "leaf",
    "others",
    "bias",
    "fresh",
    "spread",
    "chance",
    "own",
    "advice",
    "heed",
)
"""The settings of :class:`~tablezoo.bots.search.AgentBot` the native search plays (any values);
another (``batch`` other than 1) is the Python search's."""


def has_native_search(game: Game[Any], net: PolicyValueNet, settings: Mapping[str, Any]) -> bool:
    """Whether ``AgentBot(net, **settings)`` on ``game`` has a native port: ``game`` runs on the
    native core and determinises there, ``net`` has a value head, it searches (``search`` 1 or
    more: the network alone is AgentBot's own), and every other setting is one the port plays (``own``:
    the network, or a bot the core has a port of; ``advice``: none, or such a bot)."""
    own = settings.get("own", "network")
    advice = settings.get("advice", "none")
    return (
        bool(getattr(game, "has_native_search", False))
        and (own == "network" or (isinstance(own, str) and has_native_port(game, own)))
        and (advice == "none" or (isinstance(advice, str) and has_native_port(game, advice)))
        and net.has_value_head
        and (settings.get("search", 0) >= 1 or settings.get("think", 0) > 0)
        and all(
            key in NATIVE_SEARCH_SETTINGS or (key, value) == ("batch", 1) for key, value in settings.items()
        )
    )


class NativeAgentBot(AgentBot):
    """:class:`~tablezoo.bots.search.AgentBot`'s search played by the native core: the same
    simulation (``native/src/search/search.h`` reads like :func:`tablezoo.bots.search.search`), the
    network's forward pass in the core (:func:`native_net`). Its randomness is the core's own
    generator, seeded with ``seed`` (one from the operating system when None) and again by
    ``reset(seed)``: its moves differ from the Python search's in the draws, and it is the same
    player (``tests/bots/test_native_search.py``). It is an AgentBot (its ``net``,
    ``simulations``, ``c_puct`` and ``horizon`` are the Python bot's)."""

    def __init__(
        self,
        game: Game[Any],
        net: PolicyValueNet,
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
        own: str = "network",
        advice: str = "none",
        heed: float = HEED,
    ) -> None:
        if batch != 1:
            raise ValueError(
                f"the native search runs one simulation after the other (batch=1), not batch={batch}"
            )
        super().__init__(
            net,
            search=search,
            c_puct=c_puct,
            horizon=horizon,
            seed=seed,
            name=name,
            think=think,
            considered=considered,
            confidence=confidence,
            root=root,
            leaf=leaf,
            others=others,
            bias=bias,
            fresh=fresh,
            spread=spread,
            chance=chance,
            own="network" if root == "gumbel" else own,  # AgentBot refuses a bot with the puct root
            advice="none" if root == "gumbel" else advice,
            heed=heed,
        )
        self.own = own  # the core's port of that name plays the seat's own moves
        self.advice = advice  # the core's port of that name advises the root
        if self.simulations < 1:
            raise ValueError("the native search searches: search=N (1 or more) or think=SECONDS")
        seed = _fresh_seed() if seed is None else seed
        self._port = game.native_search(  # type: ignore[attr-defined]
            native_net(net),
            self.simulations,
            c_puct,
            horizon,
            seed,
            root=root,
            considered=considered,
            confidence=confidence,
            leaf=leaf,
            seconds=think,
            others=others,
            bias=bias,
            fresh=fresh,
            spread=spread,
            chance=chance,
            own=own,
            advice=advice,
            heed=heed,
        )

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the search's randomness when ``seed`` is given."""
        self._port.reset(seed)

    def act(self, seat: Seat) -> int:
        """The native search's move for ``seat``."""
        return int(self._port.act(seat.native_state()))

    def think(self, seat: Seat, gumbel: float = 0.0) -> Root:
        """:func:`tablezoo.bots.search.think`'s root for ``seat``, searched in the core (Gumbel noise of
        scale ``gumbel`` at the root: 0 at a table)."""
        found = self._port.think(seat.native_state(), gumbel)
        arrays = {key: np.asarray(found[key], np.float64) for key in ("logits", "visits", "q", "score")}
        return Root(
            legal=list(found["legal"]),
            value0=float(found["value0"]),
            choice=int(found["choice"]),
            simulations=int(found["simulations"]),
            settled=bool(found["settled"]),
            **arrays,
        )

    def root(self, seat: Seat, noise: float = 0.0, dirichlet_alpha: float = DIRICHLET_ALPHA) -> Node:
        """The root :func:`tablezoo.bots.search.search` returns, searched in the core: its legal
        moves, priors (``noise`` of Dirichlet noise of concentration ``dirichlet_alpha`` mixed in,
        as expert iteration's self-play asks) and visits; its values are not kept."""
        legal, prior, visits = self._port.root(seat.native_state(), noise, dirichlet_alpha)
        node = Node(list(legal), np.asarray(prior, np.float64), 0.0)
        node.visits = np.asarray(visits, np.float64)
        node.total = int(node.visits.sum())
        return node
