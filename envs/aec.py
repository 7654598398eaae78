"""One PettingZoo AEC adapter for every tablezoo game.

:class:`TablezooEnv` turns any :class:`tablezoo.games.core.Game` into an AEC
environment. Agents are ``player_0 .. player_{n-1}`` (seat order). Chance nodes
(rolls, shuffles, reveals) are resolved inside ``reset`` and ``step`` from the
env's own generator, so ``agent_selection`` is always a seat that decides.

Observation of an agent: ``{"observation": float32 vector from that seat's
point of view, "action_mask": int8 legal-move mask}``; the mask is all zeros
for agents that are not to move. With ``obs_type="flat"`` the observation is
the vector alone and each agent's mask is in ``infos[agent]["action_mask"]``.
``state()`` is the whole game state for centralised critics
(:meth:`~tablezoo.games.core.Game.encode_state`).

Rewards:

* ``reward="zero_sum"`` (default): at the end the winners share +1 and the
  others share -1 (all tied: 0 each); nothing before.
* ``reward="score"``: each seat's change of game points (``Game.scores``) as it
  happens, whoever caused it.

``max_cycles`` caps each agent's own decisions: once the agent to move has
made that many, every agent is truncated (the rules are never changed). The
default is the game's cap (``tablezoo.envs.MAX_CYCLES``), far above any game
measured; ``None`` lifts it. The parallel API over the same engine is
:mod:`tablezoo.envs.parallel`; the code both share is :class:`TablezooEnvBase`.

Two ways to meet an illegal action, as PettingZoo's classic environments:

* ``raw_env`` (a :class:`TablezooEnv`) raises
  :class:`~tablezoo.games.core.IllegalActionError` naming the legal moves and
  leaves the game as it was;
* ``env()`` wraps it in :class:`CheckedEnv`, with the guarantees of
  PettingZoo's three standard wrappers: order enforcement, action bounds, and
  an illegal move ending the game (:meth:`TablezooEnv.forfeit`) with
  ``illegal_reward`` for the mover. Each check is a method of its own; a
  legal ``int`` goes straight to the env's step, the one fast path, and the
  checks run where the env refuses a move or the game is not going on.

A step's bookkeeping is kept to what changed: the legal moves of the agent to
move are listed once per decision (the step's check and the mask share them),
masks are shared read-only arrays (one per legal-move list met), rewards are
cleared only after a step that paid some, and the terminations and
truncations dicts are rebuilt only when the game ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from tablezoo.games import make
from tablezoo.games.core import ConfigError, Game, IllegalActionError

REWARD_MODES = ("zero_sum", "score")
OBS_TYPES = ("dict", "flat")
MASK_CACHE_SIZE = 4096
"""The most legal-move lists whose masks an env keeps at once."""


class TablezooEnvBase:
    """What the AEC and the parallel environment share: the game, the spaces, rewards, state, render.

    Subclasses set :attr:`game_class` (each env module's ``raw_env`` does).
    """

    game_class: ClassVar[type[Game[Any]]]
    metadata: dict[str, Any]
    """PettingZoo's metadata: the class's render modes, and the env's name once configured."""
    default_max_cycles: ClassVar[int | None] = None
    """The cap on each agent's decisions when ``max_cycles`` is not given (the env module sets it)."""

    def __init__(
        self,
        num_players: int | None = None,
        reward: str = "zero_sum",
        render_mode: str | None = None,
        max_cycles: int | str | None = "default",
        obs_type: str = "dict",
        core: str | None = None,
        **options: bool,
    ) -> None:
        if max_cycles == "default":
            max_cycles = self.default_max_cycles
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
        ):
            raise ConfigError(f"max_cycles must be a positive whole number or None, not {max_cycles!r}")
        self.max_cycles: int | None = max_cycles
        self.game: Game[Any] = make(self.game_class.info.name, num_players, core=core, **options)
        info = self.game.info
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {', '.join(REWARD_MODES)}, not {reward!r}")
        if obs_type not in OBS_TYPES:
            raise ConfigError(f"obs_type must be one of {', '.join(OBS_TYPES)}, not {obs_type!r}")
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ConfigError(f"render_mode must be one of {', '.join(modes)} or None, not {render_mode!r}")
        self.metadata = {**self.metadata, "name": f"{info.name}_v{info.version}"}
        self.reward_mode = reward
        self._score_mode = reward == "score"
        self.render_mode = render_mode
        self.obs_type = obs_type
        self.flat = obs_type == "flat"
        n = self.game.num_seats
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.seat_of: dict[str, int] = {agent: s for s, agent in enumerate(self.possible_agents)}
        """The seat of each agent."""
        spec = self.game.observation_spec
        vector = spaces.Box(spec.low(), spec.high(), dtype=np.float32)
        obs_space: spaces.Space = vector
        if not self.flat:
            mask_space = spaces.Box(0, 1, (self.game.num_actions,), np.int8)
            obs_space = spaces.Dict({"observation": vector, "action_mask": mask_space})
        act_space: spaces.Space[Any] = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        state_spec = self.game.state_spec
        self.state_space = spaces.Box(state_spec.low(), state_spec.high(), dtype=np.float32)
        self._no_moves = np.zeros(self.game.num_actions, np.int8)
        self._no_moves.flags.writeable = False  # one shared all-zero mask
        self._masks: dict[tuple[int, ...], np.ndarray] = {}
        self._rng = np.random.default_rng()
        self.game_state: Any = None
        self._scores: list[float] = []
        # the engine's calls, bound once: the hot path looks up one attribute, not two (the
        # engine's move itself: each env checks the action against the legal list it holds)
        self._apply_move = self.game._apply
        self._advance = self.game.advance
        self._legal_actions = self.game.legal_actions
        self._observe = self.game.observe
        # the core builds the mask of the state's own legal moves in one call (a fraction of
        # building it here, which counts where legal lists seldom repeat: 6 nimmt!'s hands)
        # (read-only as it is made: NativeGame.read_only_mask)
        self._core_mask = getattr(self.game, "read_only_mask", None)

    def _mask_of(self, legal: list[int]) -> np.ndarray:
        """The read-only mask of ``legal``, shared by the decisions with the same legal moves.

        A game meets many legal lists again and again (Heckmeck's and Diamant's
        few, 6 nimmt!'s row choices), and looking a mask up costs a fraction of
        building one. Once :data:`MASK_CACHE_SIZE` lists are kept the cache
        starts afresh, so that it holds the lists met lately.
        """
        key = tuple(legal)
        mask = self._masks.get(key)
        return self._new_mask(key) if mask is None else mask

    def _new_mask(self, legal: tuple[int, ...]) -> np.ndarray:
        """The mask of ``legal``, built and kept (see :meth:`_mask_of`)."""
        if len(self._masks) >= MASK_CACHE_SIZE:
            self._masks.clear()
        bits = bytearray(self.game.num_actions)
        for action in legal:
            bits[action] = 1
        # over bytes the array is read-only, without the cost of setting its flag
        mask = self._masks[legal] = np.frombuffer(bytes(bits), np.int8)
        return mask

    def _state_mask(self, legal: tuple[int, ...]) -> np.ndarray:
        """The mask of the legal moves of the game's state now, ``legal``: as :meth:`_new_mask`,
        built by the native core where the game runs on it."""
        legal_mask = self._core_mask
        if legal_mask is None:
            return self._new_mask(legal)
        if len(self._masks) >= MASK_CACHE_SIZE:
            self._masks.clear()
        mask = self._masks[legal] = legal_mask(self.game_state)
        return mask

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def state(self) -> np.ndarray:
        """The whole game state as a float32 vector (``game.state_spec``), for centralised critics.

        It holds what every seat knows, hidden hands and secret choices included,
        so it is never part of a seat's observation.
        """
        return self.game.encode_state(self.game_state)

    def _start(self, seed: int | None) -> int:
        """A new game: reseed (only when ``seed`` is given), deal, resolve chance; the first mover."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.initial_state()
        self._scores = self.game.scores(self.game_state) if self.reward_mode == "score" else []
        return self.game.advance(self.game_state, self._rng)

    def _score_changes(self) -> list[float] | None:
        """Under ``reward="score"``: each seat's points won since last asked (None if nothing changed)."""
        if self.reward_mode != "score":
            return None
        new = self.game.scores(self.game_state)
        if new == self._scores:
            return None
        changes = [float(after - before) for before, after in zip(self._scores, new, strict=True)]
        self._scores = new
        return changes

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() was called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        if self.render_mode == "rgb_array":  # the site's drawing of the public view, as pixels
            from tablezoo.games import draw

            return draw.rgb_array(draw.svg(self.game, self.game.view(self.game_state, None)))
        text = self.game.render(self.game_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class TablezooEnv(TablezooEnvBase, AECEnv):
    """AEC environment over a tablezoo game; subclasses set :attr:`game_class`.

    A subclass's docstring is generated from its game's metadata
    (:func:`keyword_doc`): the keyword arguments it takes, with their defaults.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class and the instance
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": True,
        "render_fps": 1,
    }
    playing = False
    """Whether an agent is to move: False before the first reset and once every agent is done.

    Agents are all live or all done together, so this one flag stands for
    terminations and truncations on the hot path (when it is False, ``step``
    takes a done agent's ``None``).
    """
    _legal: list[int] | None = None
    """The legal actions of the agent to move, listed once per decision (None once the game ends)."""
    _seat = 0
    """The seat of the agent to move, while the game goes on."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "game_class" in cls.__dict__ and cls.__doc__ is None:
            title = cls.game_class.info.title
            cls.__doc__ = (
                f"The {title} AEC environment; an illegal move raises IllegalActionError.\n\n"
                + keyword_doc(cls)
            )

    # ------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        mover = self._start(seed)
        self.agents = self.possible_agents.copy()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._rewarded = False
        self.playing = True
        self._skip_agent_selection = None
        self.num_moves = 0
        self.decisions = dict.fromkeys(self.agents, 0)
        """How many decisions each agent has made this episode (``max_cycles`` caps them)."""
        self.agent_selection = self.possible_agents[mover]
        self._seat = mover
        self._legal = self.game.legal_actions(self.game_state)
        if self.flat:
            self._update_flat_masks(None)

    def step(self, action: int | None) -> None:
        if not self.playing:
            if "agent_selection" not in self.__dict__:
                EnvLogger.error_step_before_reset()
            self._was_dead_step(action)  # a done agent's step: None is its only action
            return
        state, legal = self.game_state, self._legal
        if action.__class__ is int and action in legal:  # type: ignore[operator]
            self._apply_move(state, action)
        else:  # numpy integers, or an illegal action: the engine's check and message
            self.game.apply(state, action, legal=legal)  # type: ignore[arg-type]
        # After the move (inline: one call less on the hot path): resolve chance, pay rewards,
        # pick the next agent.
        mover = self._advance(state, self._rng)
        self.num_moves += 1
        previous = self.agent_selection
        decisions = self.decisions
        decisions[previous] += 1
        self._cumulative_rewards[previous] = 0.0
        if self._rewarded or self._score_mode:  # under zero_sum nothing is paid before the end
            self._pay_rewards()
        if mover >= 0:  # a seat (advance resolves chance; below 0 is TERMINAL)
            agent = self.possible_agents[mover]
            cap = self.max_cycles
            # no agent has made more decisions than all agents together
            if cap is None or self.num_moves < cap or decisions[agent] < cap:
                self.agent_selection = agent
                self._seat = mover
                self._legal = self._legal_actions(state)
                if self.flat:
                    self._update_flat_masks(previous)
                return
        self._end(mover >= 0, previous)

    def forfeit(self, agent: str, penalty: float) -> None:
        """End the game because ``agent`` broke the rules: it is paid ``penalty``, the others 0.

        Every agent is terminated and ``agent``'s info says ``illegal_move``; the
        game state is left as it was. :class:`CheckedEnv` calls it on an illegal move.
        """
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = float(penalty)
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        self._rewarded = True
        self.terminations = dict.fromkeys(self.agents, True)
        self.playing = False
        self.infos[agent] = {**self.infos[agent], "illegal_move": True}
        if self.flat:
            self.infos[agent]["action_mask"] = self._no_moves

    def _end(self, truncated: bool, previous: str) -> None:
        """Every agent is done after ``previous`` moved: truncated at ``max_cycles``, or the game is over."""
        if truncated:  # the next mover has made max_cycles decisions already: no agent makes more
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            if not self._score_mode:
                rewards, cumulative = self.rewards, self._cumulative_rewards
                for seat, value in enumerate(self.game.returns(self.game_state)):
                    agent = self.possible_agents[seat]
                    rewards[agent] = value
                    cumulative[agent] += value
                self._rewarded = True
            self.terminations = dict.fromkeys(self.agents, True)
        # Dead agents then step None in seat order.
        self.playing = False
        self._legal = None
        self.agent_selection = self.agents[0]
        if self.flat:
            self._update_flat_masks(previous)

    def _pay_rewards(self) -> None:
        """Clear what the previous step paid (only if it paid); under ``reward="score"``, pay
        and accumulate each seat's change of points."""
        rewards = self.rewards
        if self._rewarded:
            for agent in rewards:
                rewards[agent] = 0.0
            self._rewarded = False
        if self._score_mode:
            changes = self._score_changes()
            if changes is not None:
                cumulative = self._cumulative_rewards
                for seat, change in enumerate(changes):
                    if change:
                        agent = self.possible_agents[seat]
                        rewards[agent] = change
                        cumulative[agent] += change
                self._rewarded = True

    def _update_flat_masks(self, previous: str | None) -> None:
        """``obs_type="flat"``: the mask of the agent to move, and of no other, in ``infos``."""
        if previous is None or not self.playing:
            for other in self.agents:
                self.infos[other]["action_mask"] = self._no_moves
        else:
            self.infos[previous]["action_mask"] = self._no_moves
        if self.playing:
            self.infos[self.agent_selection]["action_mask"] = self._mask_of(self._legal)  # type: ignore[arg-type]

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move (cached until the next step)."""
        if self._legal is None:
            self._legal = self.game.legal_actions(self.game_state)
        return self._legal

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not (self.playing and observe):
            return self._last_off_turn(observe)
        # the agent to move while the game goes on: observe's work without its checks
        agent = self.agent_selection
        vector = self._observe(self.game_state, self._seat)
        if self.flat:
            return vector, self._cumulative_rewards[agent], False, False, self.infos[agent]
        key = tuple(self._legal)  # type: ignore[arg-type]
        mask = self._masks.get(key)
        if mask is None:
            mask = self._state_mask(key)
        observation = {"observation": vector, "action_mask": mask}
        return observation, self._cumulative_rewards[agent], False, False, self.infos[agent]

    def _last_off_turn(self, observe: bool) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``last`` of a done agent, or without the observation; PettingZoo's error before the first reset."""
        if self.game_state is None:
            EnvLogger.error_observe_before_reset()
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> Any:
        if self.game_state is None:
            EnvLogger.error_observe_before_reset()
        vector = self._observe(self.game_state, self.seat_of[agent])
        if self.flat:
            return vector
        # an agent removed after its last dead step is done (SuperSuit's wrappers still observe it)
        if agent == self.agent_selection and self.playing:
            mask = self._mask_of(self._legal)  # type: ignore[arg-type]
        else:
            mask = self._no_moves
        return {"observation": vector, "action_mask": mask}

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """The agent to move, until no agent is left (``max_iter`` turns at most).

        PettingZoo's loop as a generator, which resumes faster than its iterator object's method.
        """
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection


READ_THROUGH = (
    # PettingZoo's AEC attributes
    "possible_agents",
    "agents",
    "agent_selection",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "observation_spaces",
    "action_spaces",
    "metadata",
    "render_mode",
    # the tablezoo env's own
    "state_space",
    "game",
    "game_state",
    "reward_mode",
    "obs_type",
    "max_cycles",
    "seat_of",
    "decisions",
    "num_moves",
    "playing",
    "legal_actions",
    "forfeit",
)
"""The attributes of a :class:`TablezooEnv` that :class:`CheckedEnv` reads through (read-only)."""


class CheckedEnv(AECEnv):
    """Order enforcement, action bounds and the illegal-move policy in one layer over a :class:`TablezooEnv`.

    * ``step``, ``observe``, ``last``, ``render`` and ``agent_iter`` before
      ``reset`` raise; stepping with no agents left warns; a loop over
      ``agent_iter`` must step (or reset) each turn;
    * an action outside ``Discrete(num_actions)`` raises (``None`` is the only
      action of an agent that is done);
    * an in-range illegal action ends the game: the mover gets
      ``illegal_reward``, the others 0, and the mover's info says
      ``illegal_move`` (:meth:`TablezooEnv.forfeit`).

    It is the behaviour of PettingZoo's ``OrderEnforcingWrapper``,
    ``AssertOutOfBoundsWrapper`` and ``TerminateIllegalWrapper`` stacked, at
    the cost of one thin layer:

    * a step with a plain ``int`` while the game goes on is the env's own step
      at once, the one fast path: the env refuses an illegal move
      (:class:`~tablezoo.games.core.IllegalActionError`) and leaves the game as
      it was, and only then do the bounds check and the forfeit run; any other
      step goes through the order checks first. Each check is a method of its
      own (``_check_*``); where a loop turn would pay for the call, its
      condition is tested inline first;
    * the env raises PettingZoo's own errors for ``step``, ``last`` and
      ``observe`` before its first reset, so those need no check here;
    * the env's attributes (:data:`READ_THROUGH`) are read through properties,
      not ``__getattr__`` as PettingZoo's ``BaseWrapper`` does: a class with
      ``__getattr__`` makes every attribute and method look-up on its instances
      slower (CPython cannot specialise them), which would cost the hot loop
      of ``agent_iter`` / ``last`` / ``step`` a tenth of its speed. Anything
      else is on ``unwrapped``, the env without the checks.
    """

    def __init__(self, env: TablezooEnv, illegal_reward: float = -1.0) -> None:
        super().__init__()
        self.env = env
        """The env under the checks (``unwrapped``)."""
        self.illegal_reward = float(illegal_reward)
        """The reward of an agent whose in-range illegal move ends the game."""
        self._has_reset = False
        self._stepped = False
        """Whether ``step`` or ``reset`` ran since ``agent_iter`` last yielded."""

    @property
    def unwrapped(self) -> TablezooEnv:
        return self.env

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._has_reset = True
        self._stepped = True

    def step(self, action: int | None) -> None:
        self._stepped = True
        env = self.env
        if action.__class__ is not int or not env.playing:  # off the fast path: the order checks first
            self._check_reset(EnvLogger.error_step_before_reset)
            if not self._check_agents_left():
                return
            if env.playing:
                self._check_action(action)
        try:
            env.step(action)  # a done agent's step too: the env takes None from it, and nothing else
            return
        except IllegalActionError:  # the game is as it was
            pass
        self._check_action(action)
        self._forfeit()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.env.last(observe)

    def observe(self, agent: str) -> Any:
        return self.env.observe(agent)

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """The agent to move, until no agent is left (``max_iter`` turns at most); each turn must step."""
        self._check_reset(EnvLogger.error_agent_iter_before_reset)
        return self._turns(max_iter)

    def _turns(self, max_iter: int) -> Iterator[str]:
        """The loop of :meth:`agent_iter`, as a generator (it resumes faster than an iterator's method)."""
        env = self.env
        for _ in range(max_iter):
            if not env.agents:
                return
            if not self._stepped:
                self._check_stepped()
            self._stepped = False
            yield env.agent_selection

    def render(self) -> str | np.ndarray | None:
        self._check_reset(EnvLogger.error_render_before_reset)
        return self.env.render()

    def state(self) -> np.ndarray:
        return self.env.state()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.env.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.env.action_space(agent)

    def close(self) -> None:
        self.env.close()

    def __str__(self) -> str:
        return str(self.env)

    # ------------------------------------------------------------ the checks

    def _check_reset(self, refuse: Callable[[], None]) -> None:
        """Before the first ``reset``, ``refuse`` (PettingZoo's error for the call made) raises."""
        if not self._has_reset:
            refuse()

    def _check_agents_left(self) -> bool:
        """Whether an agent is left to step; if none is, PettingZoo's warning (the step does nothing)."""
        if self.env.agents:
            return True
        EnvLogger.warn_step_after_terminated_truncated()
        return False

    def _check_action(self, action: Any) -> None:
        """The action of an agent to move is a whole number in ``Discrete(num_actions)``, or AssertionError.

        ``type(...) is int`` keeps bools (and floats equal to an action) out; numpy integers are whole.
        """
        n = self.env.game.num_actions
        if (type(action) is int or isinstance(action, np.integer)) and 0 <= action < n:
            return
        raise AssertionError(f"action {action!r} of {self.env.agent_selection} is not in Discrete({n})")

    def _check_stepped(self) -> None:
        """A loop over ``agent_iter`` steps (or resets) in each turn, or AssertionError."""
        if not self._stepped:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")

    def _forfeit(self) -> None:
        """The in-range action the env refused ends the game: the mover is paid ``illegal_reward``."""
        EnvLogger.warn_on_illegal_move()
        self.env.forfeit(self.env.agent_selection, self.illegal_reward)


for _name in READ_THROUGH:
    setattr(CheckedEnv, _name, property(attrgetter(f"env.{_name}"), doc=f"The env's ``{_name}``."))


ENV_KEYWORDS: dict[str, str] = {
    "reward": '``"zero_sum"`` (winners share +1 at the end) or ``"score"`` (game points as they are scored)',
    "render_mode": (
        '``"ansi"`` (``render()`` returns the table as text), ``"human"`` (prints it), '
        '``"rgb_array"`` (a picture of the table, ``H x W x 3`` uint8: the ``render`` extra) or ``None``'
    ),
    "max_cycles": (
        "the most decisions one agent makes before every agent is truncated (``None``: no cap); "
        "the default only ever cuts pathological games short"
    ),
    "obs_type": (
        '``"dict"`` (``{"observation", "action_mask"}``) or ``"flat"`` (the vector alone, '
        'the mask in ``infos[agent]["action_mask"]``)'
    ),
    "core": (
        '``"native"`` (the C++ rules, the default where built) or ``"python"`` (the reference); '
        "``None``: the ``TABLEZOO_CORE`` environment variable decides (:mod:`tablezoo.games.native`)"
    ),
}
"""What each keyword argument that every environment takes does (the game's own come from its info)."""


def keyword_doc(env_class: type[TablezooEnvBase], extra: dict[str, tuple[Any, str]] | None = None) -> str:
    """The keyword arguments of a game's environments, with their defaults, as a docstring section.

    Generated from the game's declared metadata (seats, options), the env's
    default cap and :data:`ENV_KEYWORDS`, so the documented signature cannot
    drift from the code.
    """
    info = env_class.game_class.info
    rows: list[tuple[str, Any, str]] = [
        ("num_players", info.default_seats, f"the seat count, {info.min_seats} to {info.max_seats}"),
        *((o.name, o.default, o.help) for o in info.options),
        ("reward", "zero_sum", ENV_KEYWORDS["reward"]),
        ("render_mode", None, ENV_KEYWORDS["render_mode"]),
        ("max_cycles", env_class.default_max_cycles, ENV_KEYWORDS["max_cycles"]),
        ("obs_type", "dict", ENV_KEYWORDS["obs_type"]),
        ("core", None, ENV_KEYWORDS["core"]),
        *((name, default, text) for name, (default, text) in (extra or {}).items()),
    ]
    lines = ["Keyword arguments (default):", ""]
    lines += [f"* ``{name}={default!r}``: {text}" for name, default, text in rows]
    return "\n".join(lines)


def make_env(raw_class: type[TablezooEnv]) -> Any:
    """The ``env()`` factory of a game module: ``raw_class`` inside :class:`CheckedEnv`."""

    def env(*, illegal_reward: float = -1.0, **kwargs: Any) -> CheckedEnv:
        return CheckedEnv(raw_class(**kwargs), illegal_reward=illegal_reward)

    penalty = {"illegal_reward": (-1.0, "the reward of an agent whose illegal move ends the game")}
    env.__doc__ = (
        f"The {raw_class.game_class.info.title} AEC environment with order, bounds and "
        f"illegal-move checks (an illegal move ends the game).\n\n" + keyword_doc(raw_class, penalty)
    )
    return env
