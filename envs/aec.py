"""One PettingZoo AEC adapter for every tablezoo game.

:class:`TablezooEnv` turns any :class:`tablezoo.games.core.Game` into an AEC
environment. Agents are ``player_0 .. player_{n-1}`` (seat order). Chance nodes
(rolls, shuffles, reveals) are resolved inside ``reset`` and ``step`` from the
env's own generator, so ``agent_selection`` is always a seat that decides.

Observation of an agent: ``{"observation": float32 vector from that seat's
point of view, "action_mask": int8 legal-move mask}``; the mask is all zeros
for agents that are not to move.

Rewards:

* ``reward="zero_sum"`` (default): at the end the winners share +1 and the
  others share -1 (all tied: 0 each); nothing before.
* ``reward="score"``: each seat's change of game points (``Game.scores``) as it
  happens, whoever caused it.

``max_cycles`` (default ``None``: no limit) truncates an episode after that
many decisions: every agent is then truncated, the rules are never changed.

``raw_env`` raises :class:`~tablezoo.games.core.IllegalActionError` (naming the
legal moves) on an illegal action and leaves the game as it was. ``env()``
wraps it in :class:`CheckedEnv`, one lean layer with the guarantees of
PettingZoo's three standard wrappers: order enforcement, action bounds, and an
illegal move ending the game with ``illegal_reward`` for the mover.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper
from pettingzoo.utils.env_logger import EnvLogger

from tablezoo.games.core import TERMINAL, ConfigError, Game, action_mask

REWARD_MODES = ("zero_sum", "score")


class TablezooEnv(AECEnv):
    """AEC environment over a tablezoo game; subclasses set :attr:`game_class`."""

    game_class: ClassVar[type[Game[Any]]]
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int | None = None,
        reward: str = "zero_sum",
        render_mode: str | None = None,
        max_cycles: int | None = None,
        **options: bool,
    ) -> None:
        super().__init__()
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
        ):
            raise ConfigError(f"max_cycles must be a positive whole number or None, not {max_cycles!r}")
        self.max_cycles = max_cycles
        self.game: Game[Any] = self.game_class(num_players, **options)
        info = self.game.info
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {', '.join(REWARD_MODES)}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode must be one of {', '.join(self.metadata['render_modes'])} or None, "
                f"not {render_mode!r}"
            )
        self.metadata = {**type(self).metadata, "name": f"{info.name}_v{info.version}"}
        self.reward_mode = reward
        self.render_mode = render_mode
        n = self.game.num_seats
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        spec = self.game.observation_spec
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(spec.low(), spec.high(), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.game.num_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._rng = np.random.default_rng()
        self.game_state: Any = None
        self._scores: list[float] = []

    # ------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game = self.game
        self.game_state = game.initial_state()
        mover = game.advance(self.game_state, self._rng)
        self.agents = self.possible_agents.copy()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._scores = game.scores(self.game_state) if self.reward_mode == "score" else []
        self._rewarded = False
        self._legal = None
        self.num_moves = 0
        self.agent_selection = self.possible_agents[mover]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._play(action, check=True)

    def _play(self, action: Any, check: bool) -> None:
        """Apply one action of the agent to move, then resolve chance; update rewards."""
        game, state = self.game, self.game_state
        game.apply(state, action, check=check)
        mover = game.advance(state, self._rng)
        self._legal = None
        self.num_moves += 1
        rewards = self.rewards
        if self._rewarded:  # clear what the previous step paid, only if it paid
            for agent in rewards:
                rewards[agent] = 0.0
            self._rewarded = False
        if self.reward_mode == "score":
            new = game.scores(state)
            for seat, (before, after) in enumerate(zip(self._scores, new, strict=True)):
                if after != before:
                    rewards[self.possible_agents[seat]] = float(after - before)
                    self._rewarded = True
            self._scores = new
        self._cumulative_rewards[self.agent_selection] = 0.0
        if mover == TERMINAL:
            if self.reward_mode == "zero_sum":
                for seat, value in enumerate(game.returns(state)):
                    rewards[self.possible_agents[seat]] = value
                self._rewarded = True
            self.terminations = dict.fromkeys(self.agents, True)
            # Dead agents then step None in seat order.
            self.agent_selection = self.agents[0]
        elif self.max_cycles is not None and self.num_moves >= self.max_cycles:
            self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[mover]
        if self._rewarded:
            for agent, value in rewards.items():
                self._cumulative_rewards[agent] += value

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move (cached until the next step)."""
        if self._legal is None:
            self._legal = self.game.legal_actions(self.game_state)
        return self._legal

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            mask = action_mask(self.legal_actions(), self.game.num_actions)
        else:
            mask = np.zeros(self.game.num_actions, np.int8)
        return {"observation": self.game.observe(self.game_state, self._seat[agent]), "action_mask": mask}

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


class CheckedEnv(BaseWrapper):
    """Order enforcement, action bounds and the illegal-move policy in one layer.

    * ``step``, ``observe``, ``render`` and ``agent_iter`` before ``reset`` raise;
      stepping with no agents left warns;
    * an action outside ``Discrete(num_actions)`` raises (``None`` is the only
      action of an agent that is done);
    * an in-range illegal action ends the game: the mover gets
      ``illegal_reward``, the others 0, and the mover's info says
      ``illegal_move``.

    It is the behaviour of PettingZoo's ``OrderEnforcingWrapper``,
    ``AssertOutOfBoundsWrapper`` and ``TerminateIllegalWrapper`` stacked, at
    the cost of one layer.
    """

    def __init__(self, env: TablezooEnv, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._raw = env
        self._illegal_reward = float(illegal_reward)
        self._has_reset = False
        self._has_updated = False

    def __getattr__(self, name: str) -> Any:
        if not self.__dict__.get("_has_reset", False) and name in {
            "rewards",
            "terminations",
            "truncations",
            "infos",
            "agent_selection",
            "num_agents",
            "agents",
        }:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return super().__getattr__(name)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._raw.reset(seed=seed, options=options)

    def step(self, action: int | None) -> None:
        raw = self._raw
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw._was_dead_step(action)
            return
        # `type(...) is int` keeps bools (and floats equal to an action) out
        if type(action) is int or isinstance(action, np.integer):
            if action in raw.legal_actions():
                raw._play(action, check=False)
                return
            n = raw.game.num_actions
            if not 0 <= action < n:
                raise AssertionError(f"action {action!r} of {agent} is not in Discrete({n})")
        else:
            raise AssertionError(f"action {action!r} of {agent} is not in Discrete({raw.game.num_actions})")
        EnvLogger.warn_on_illegal_move()
        raw.rewards = dict.fromkeys(raw.agents, 0.0)
        raw.rewards[agent] = self._illegal_reward
        raw._cumulative_rewards[agent] = 0.0
        raw._accumulate_rewards()
        raw._rewarded = True
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.infos[agent] = {**raw.infos[agent], "illegal_move": True}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.last(observe)

    def render(self) -> str | np.ndarray | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return self._raw.render()

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return self._iterate(max_iter)

    def _iterate(self, max_iter: int) -> Iterator[str]:
        raw = self._raw
        for _ in range(max_iter):
            if not raw.agents:
                return
            if not self._has_updated:
                raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
            self._has_updated = False
            yield raw.agent_selection

    def __str__(self) -> str:
        return str(self._raw)


def make_env(raw_class: type[TablezooEnv]) -> Any:
    """The ``env()`` factory of a game module: ``raw_class`` inside :class:`CheckedEnv`."""

    def env(*, illegal_reward: float = -1.0, **kwargs: Any) -> CheckedEnv:
        return CheckedEnv(raw_class(**kwargs), illegal_reward=illegal_reward)

    env.__doc__ = (
        f"The {raw_class.game_class.info.title} AEC environment with order, bounds and "
        f"illegal-move checks; keyword arguments as for ``raw_env``."
    )
    return env
