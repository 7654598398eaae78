"""A single-agent Gymnasium view of any tablezoo AEC environment.

One learner seat plays; the other seats are bots stepped inside ``step()``, so
the observation, the reward and the end of the episode all belong to the
learner:

* ``reset()`` returns the learner's first observation (opponents who move
  first have moved);
* ``step(a)`` plays the learner's action, then the opponents until the
  learner is to move again or the game is over, and returns the learner's
  observation with the reward the learner received over that whole stretch
  (its zero-sum result at the end, or its points with ``reward="score"``);
* ``action_masks()`` gives the learner's legal moves, as sb3-contrib's
  ``MaskablePPO`` expects (no ``ActionMasker`` needed); the same mask is in
  every ``info["action_mask"]`` (all False once the episode is over), which
  is where a Gymnasium vector env's user finds it (``infos["action_mask"]``,
  one row per sub-env).

Opponents are bots by name (``"heuristic"``, ``"search:samples=4"``: the
registry :func:`tablezoo.bots.registry.make_bot`) or :class:`Bot` objects,
one for every other seat or a list with one per other seat.

Registered with Gymnasium on import of :mod:`tablezoo.envs`:
``gymnasium.make("tablezoo/Heckmeck-v0", num_players=2, opponents="heuristic")``
(also ``SechsNimmt-v0``, ``Diamant-v0`` and ``Court-v0``) calls :func:`make_env`.
In a vector env (``gymnasium.make_vec``) a masked learner reads the masks of
every sub-env from ``infos["action_mask"]`` or ``vec.call("action_masks")``.
Under Gymnasium's default next-step autoreset, a sub-env whose episode has just
ended shows an all-False row: its next action is ignored (it resets), so any
action will do there.

An illegal learner action (only an unmasked learner makes one) follows
``illegal_move``: ``"lose"`` (default, as PettingZoo's ``env()``) ends the
episode with ``illegal_reward`` and ``info["illegal_move"]``; ``"raise"``
raises :class:`~tablezoo.games.core.IllegalActionError` naming the legal moves.

``reset(seed=...)`` seeds everything that is random, through one
``SeedSequence``: the dice and deals, the learner's seat (when it is drawn
each episode) and each opponent's own stream. The same seed and the same
actions give the same episode.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from tablezoo.bots.core import Bot, RandomBot, Seat
from tablezoo.bots.registry import make_bot
from tablezoo.envs import ENV_MODULES
from tablezoo.envs.aec import CheckedEnv, TablezooEnv
from tablezoo.games.core import ConfigError, Game, IllegalActionError

Opponents = str | Bot | Sequence[str | Bot]
"""A bot name or a :class:`Bot` for every other seat, or a list with one per other seat."""


class SingleAgentEnv(gymnasium.Env):
    """One learner seat against bots, over a tablezoo AEC environment.

    Args:
        env: a tablezoo AEC environment (``raw_env(...)`` or ``env(...)``), or a
            callable that makes one.
        learner: the learner's seat, or ``"random"`` for a seat drawn each episode.
        opponents: one bot (a name such as ``"heuristic"``, or a :class:`Bot`)
            for every other seat, or a list with one per other seat (in seat
            order, skipping the learner); random bots by default. A name makes
            a fresh bot for each seat; one Bot object plays every other seat.
        illegal_move: ``"lose"`` or ``"raise"``, what an illegal learner action does.
        illegal_reward: the learner's reward for an illegal action under ``"lose"``.
        scale_observations: divide each observation entry by its field's upper bound,
            so that the learner sees values in 0..1 (what the shipped policies expect).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 - Gymnasium's convention

    def __init__(
        self,
        env: TablezooEnv | CheckedEnv | Callable[[], TablezooEnv | CheckedEnv],
        learner: int | str = 0,
        opponents: Opponents | None = None,
        illegal_move: str = "lose",
        illegal_reward: float = -1.0,
        scale_observations: bool = False,
    ) -> None:
        if illegal_move not in ("lose", "raise"):
            raise ValueError(f"illegal_move must be 'lose' or 'raise', not {illegal_move!r}")
        self.illegal_move = illegal_move
        self.illegal_reward = float(illegal_reward)
        self._lost_by_illegal_move = False
        aec = env() if callable(env) and not isinstance(env, (TablezooEnv, CheckedEnv)) else env
        self.aec: TablezooEnv = aec.unwrapped  # the checks live here, not in the AEC wrapper
        self.game = self.aec.game
        n = self.game.num_seats
        if learner != "random" and (isinstance(learner, bool) or learner not in range(n)):
            raise ValueError(f"learner must be a seat 0..{n - 1} or 'random', not {learner!r}")
        self.learner_choice = learner
        self.opponents: list[Bot] = _opponents(opponents, self.game)
        agent = self.aec.possible_agents[0]
        # the game's own bounds: the AEC env's space depends on its observation type
        spec = self.game.observation_spec
        self.observation_space = gymnasium.spaces.Box(spec.low(), spec.high(), dtype=np.float32)
        self._scale = None
        if scale_observations:
            self._scale = self.game.observation_spec.scale()
            self.observation_space = gymnasium.spaces.Box(0.0, 1.0, self._scale.shape, np.float32)
        self.action_space = self.aec.action_space(agent)
        self.render_mode = self.aec.render_mode
        # the AEC env's render modes and pace, which Gymnasium's checker and video recorder read
        aec_meta = self.aec.metadata
        self.metadata = {
            **type(self).metadata,
            "render_modes": list(aec_meta["render_modes"]),
            "render_fps": aec_meta.get("render_fps", 1),
        }
        self.learner = 0 if learner == "random" else int(learner)
        self._bots: dict[int, Bot] = {}

    # ------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        env_seed = None
        if seed is not None:
            seeds = np.random.SeedSequence(seed).generate_state(len(self.opponents) + 1)
            env_seed = int(seeds[0])
            for bot, bot_seed in zip(self.opponents, seeds[1:], strict=True):
                bot.reset(int(bot_seed))
        else:
            for bot in self.opponents:
                bot.reset(None)
        self.aec.reset(seed=env_seed)
        self._lost_by_illegal_move = False
        n = self.game.num_seats
        if self.learner_choice == "random":
            self.learner = int(self.np_random.integers(n))
        others = [s for s in range(n) if s != self.learner]
        self._bots = dict(zip(others, self.opponents, strict=True))
        self._agent = self.aec.possible_agents[self.learner]
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        aec = self.aec
        if self._done():
            raise RuntimeError("the episode is over: call reset()")
        try:
            aec.step(int(action))
        except IllegalActionError:  # the game is as it was
            if self.illegal_move == "raise":
                raise
            self._lost_by_illegal_move = True
            info = {**self._info(), "illegal_move": True}
            return self._observation(), self.illegal_reward, True, False, info
        reward = aec.rewards[self._agent] + self._play_opponents()
        terminated = all(aec.terminations.values())
        truncated = all(aec.truncations.values()) and not terminated
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal moves as booleans (all False once the episode is over)."""
        mask = np.zeros(self.game.num_actions, bool)
        if not self._done() and self.aec.agent_selection == self._agent:
            mask[self.aec.legal_actions()] = True
        return mask

    def learner_seat(self) -> Seat:
        """The learner's decision as a bot sees it (for a teacher bot playing the learner's seat)."""
        return Seat.of(self.game, self.aec.game_state, self.learner)

    def render(self) -> Any:
        """The AEC env's render: text (``ansi``), a picture (``rgb_array``) or nothing (``human``)."""
        return self.aec.render()

    # ------------------------------------------------------------ internals

    def _done(self) -> bool:
        aec = self.aec
        return self._lost_by_illegal_move or aec.terminations[self._agent] or aec.truncations[self._agent]

    def _play_opponents(self) -> float:
        """Play the bots until the learner is to move or the game is over; the learner's reward meanwhile."""
        aec, game, agent = self.aec, self.game, self._agent
        reward = 0.0
        while not self._done() and aec.agent_selection != agent:
            seat = aec.seat_of[aec.agent_selection]
            aec.step(self._bots[seat].act(Seat.of(game, aec.game_state, seat)))
            reward += aec.rewards[agent]
        return reward

    def _observation(self) -> np.ndarray:
        obs = self.game.observe(self.aec.game_state, self.learner)
        return obs if self._scale is None else obs / self._scale

    def _info(self) -> dict[str, Any]:
        return {"seat": self.learner, "action_mask": self.action_masks()}


def _opponents(opponents: Opponents | None, game: Game[Any]) -> list[Bot]:
    """One bot per other seat, from what ``SingleAgentEnv(opponents=...)`` takes."""
    n = game.num_seats
    if opponents is None:
        return [RandomBot() for _ in range(n - 1)]
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        opponents = [opponents] * (n - 1)
    if len(opponents) != n - 1:
        raise ValueError(f"{n} seats need {n - 1} opponents, not {len(opponents)}")
    bots = []
    for opponent in opponents:
        if isinstance(opponent, str):
            bots.append(make_bot(opponent, game))  # a fresh bot, with its own random stream
        elif isinstance(opponent, Bot):
            bots.append(opponent)
        else:
            raise ValueError(f"an opponent is a bot name or a Bot (with name, reset, act), not {opponent!r}")
    return bots


def make_env(
    env_module: str,
    num_players: int | None = None,
    opponents: Opponents = "random",
    learner: int | str = 0,
    illegal_move: str = "lose",
    illegal_reward: float = -1.0,
    scale_observations: bool = False,
    render_mode: str | None = None,
    **env_kwargs: Any,
) -> SingleAgentEnv:
    """The single-agent view of the game of ``env_module``: what the Gymnasium ids make.

    ``gymnasium.make("tablezoo/Heckmeck-v0", **kwargs)`` calls it with
    ``env_module="heckmeck_v0"``. ``num_players``, ``render_mode`` and
    ``env_kwargs`` (``reward``, ``max_cycles``, the game's options such as
    ``quick=True``) go to the AEC env's ``raw_env``; the others to
    :class:`SingleAgentEnv`. Bot objects among ``opponents`` are copied, so
    that the sub-envs of a vector env made with the same arguments never share
    a bot (nor its random stream).
    """
    if env_module not in ENV_MODULES:
        raise ConfigError(f"no env module {env_module!r}; env modules are: {', '.join(ENV_MODULES)}")
    module = importlib.import_module(f"tablezoo.envs.{env_module}")
    raw = module.raw_env(num_players=num_players, render_mode=render_mode, **env_kwargs)
    if isinstance(opponents, Bot):
        opponents = [copy.deepcopy(opponents) for _ in range(raw.game.num_seats - 1)]
    elif not isinstance(opponents, str):
        opponents = [o if isinstance(o, str) else copy.deepcopy(o) for o in opponents]
    return SingleAgentEnv(
        raw,
        learner=learner,
        opponents=opponents,
        illegal_move=illegal_move,
        illegal_reward=illegal_reward,
        scale_observations=scale_observations,
    )
