"""Batched environments on the native core: thousands of games per call, numpy buffers in and out.

An RL trainer steps many games at once. Here they live in the native core as one object
(the EnvPool pattern): one call steps all of them, the actions go in as one integer
array, and the observations, masks, rewards, the seat to move and the end flags come out
in numpy arrays the core writes in place, with no Python object per game.
``num_threads`` spreads the games over cores (the GIL is released while they step).

Two faces over the same core:

* :class:`SelfPlayBatch`: every decision of every seat comes back to the caller, so one
  policy plays all the seats of N games at once (expert iteration, league play,
  CleanRL-style self-play PPO). Rewards come for every seat.
* :class:`BatchedVectorEnv`: a Gymnasium ``VectorEnv`` of one learner seat per game
  (fixed, or drawn each episode) against bots at the other seats (``"random"`` or
  ``"heuristic"``, played inside the core), with the masks in ``infos["action_mask"]`` and
  ``action_masks()`` as :class:`~tablezoo.wrappers.single_agent.SingleAgentEnv` gives
  them. ``tablezoo.training.ppo.sb3_batched`` makes it a stable-baselines3 ``VecEnv`` for
  sb3-contrib's ``MaskablePPO``.

The rules of both faces
-----------------------
* Turn order is the game's. A simultaneous choice (6 nimmt!'s card, Diamant's go/camp)
  is asked seat by seat, as ``env()`` asks it: each seat sees the table as it was before
  anyone chose.
* Chance is resolved inside the core from a random stream per game, drawn from the
  ``seed`` and the game's index alone: the same seed gives the same games whatever the
  thread count or the batch size (game ``i`` of a batch of 64 is game ``i`` of a batch of
  1,024). Game ``i``'s stream is ``tablezoo.games._native.Rng(game_seed(seed, i))``, so a
  game can be replayed on the single-game native core.
* Autoreset is Gymnasium's *same-step* mode: in the step that ends a game, ``terminated``
  (or ``truncated``) and the rewards are the finished game's, and the observation is the
  first decision of the game that replaced it.
* Rewards: ``reward="zero_sum"`` pays at the end (winners share +1, the others share
  -1), ``reward="score"`` pays game points as they are scored, as in ``env()``.
* ``max_cycles`` truncates a game once the seat to move has made that many decisions
  (each game's default as ``env()``'s; ``None`` lifts it).
* An action that is not legal raises :class:`~tablezoo.games.core.IllegalActionError`
  naming the game's index and its legal moves, and no game is stepped; with
  ``illegal="forfeit"`` that game ends instead, the mover receiving ``illegal_reward``,
  as ``env()`` does it (``infos["illegal_move"]`` marks it).

The arrays a step returns are the batch's own buffers, overwritten by the next step:
copy what you keep.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from tablezoo.envs import MAX_CYCLES
from tablezoo.games import make
from tablezoo.games.core import ConfigError, Game
from tablezoo.games.native import resolve_core

__all__ = ["BOT_KINDS", "BatchedVectorEnv", "SelfPlayBatch"]

BOT_KINDS = {"random": 0, "heuristic": 1}
"""The bots the core plays at the learner's opponents' seats."""
REWARD_MODES = ("zero_sum", "score")
ILLEGAL_MODES = ("raise", "forfeit")


def _env_module(game: str) -> str:
    return f"{game}_v0"


class _Batch:
    """What both faces share: the game, the core batch and its settings."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int | None,
        *,
        seed: int | None,
        num_threads: int,
        padded: bool,
        reward: str,
        max_cycles: int | str | None,
        illegal: str,
        illegal_reward: float,
        learner: int,
        bots: list[int],
        options: dict[str, bool],
    ) -> None:
        resolve_core("native")  # the batched env runs on the native core alone; this names why not
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {', '.join(REWARD_MODES)}, not {reward!r}")
        if illegal not in ILLEGAL_MODES:
            raise ConfigError(f"illegal must be one of {', '.join(ILLEGAL_MODES)}, not {illegal!r}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ConfigError(f"num_envs must be a positive whole number, not {num_envs!r}")
        if isinstance(num_threads, bool) or not isinstance(num_threads, int | np.integer) or num_threads < 1:
            raise ConfigError(f"num_threads must be a positive whole number, not {num_threads!r}")
        if max_cycles == "default":
            max_cycles = MAX_CYCLES.get(_env_module(game))
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
        ):
            raise ConfigError(f"max_cycles must be a positive whole number or None, not {max_cycles!r}")
        self.game: Game[Any] = make(game, num_players, core="native", **options)
        self.num_envs = int(num_envs)
        self.num_seats = self.game.num_seats
        self.padded = bool(padded)
        self.spec = self.game.padded_spec if padded else self.game.observation_spec
        self._settings = {
            "num_envs": self.num_envs,
            "num_threads": int(num_threads),
            "padded": self.padded,
            "score_reward": reward == "score",
            "max_cycles": max_cycles or 0,
            "learner": learner,
            "bots": bots,
            "forfeit": illegal == "forfeit",
            "illegal_reward": float(illegal_reward),
        }
        self._seed = 0 if seed is None else int(seed)
        self._core = self._build(self._seed)

    def _build(self, seed: int) -> Any:
        from tablezoo.games import _native  # type: ignore[attr-defined]

        batch_class = getattr(_native, f"{self.game.reference_class.__name__}Batch")  # type: ignore[attr-defined]
        return batch_class(self.game._native, seed=seed % 2**64, **self._settings)  # type: ignore[attr-defined]

    def _reset(self, seed: int | None) -> None:
        if seed is not None:
            self._seed = int(seed)
            self._core = self._build(self._seed)
        self._core.reset()

    def _step(self, actions: Any) -> None:
        self._core.step(np.asarray(actions))

    def state(self, index: int) -> Any:
        """A copy of game ``index``'s state (a native state: ``game.view``, ``game.render`` read it)."""
        return self._core.state(index)


class SelfPlayBatch(_Batch):
    """N games of one configuration whose every decision comes back to the caller.

    ``reset()`` returns ``(observations, infos)`` and ``step(actions)`` returns
    ``(observations, rewards, terminated, truncated, infos)``: ``observations`` ``(N,
    obs_size)`` float32 are each game's seat to move's (``infos["to_move"]``, ``(N,)``
    int32), its legal moves ``infos["action_mask"]`` ``(N, num_actions)`` int8, and
    ``rewards`` ``(N, num_seats)`` float32 every seat's, by seat number. ``actions`` is one
    action per game, for its seat to move. See the module docstring for the rules.

    Args:
        game: the game's name (``"heckmeck"`` ...).
        num_envs: how many games.
        num_players: the seat count (the game's default when ``None``).
        seed: the seed of every game's stream (``reset(seed=...)`` reseeds).
        num_threads: threads stepping the games.
        padded: observations in the layout every seat count shares (``game.padded_spec``).
        reward: ``"zero_sum"`` or ``"score"``.
        max_cycles: the cap on a seat's decisions per game (``"default"``: ``env()``'s).
        illegal: ``"raise"`` or ``"forfeit"``; ``illegal_reward`` is the forfeit's reward.
        **options: the game's options.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int | None = None,
        *,
        seed: int | None = None,
        num_threads: int = 1,
        padded: bool = False,
        reward: str = "zero_sum",
        max_cycles: int | str | None = "default",
        illegal: str = "raise",
        illegal_reward: float = -1.0,
        **options: bool,
    ) -> None:
        super().__init__(
            game,
            num_envs,
            num_players,
            seed=seed,
            num_threads=num_threads,
            padded=padded,
            reward=reward,
            max_cycles=max_cycles,
            illegal=illegal,
            illegal_reward=illegal_reward,
            learner=-1,
            bots=[],
            options=options,
        )

    def _infos(self) -> dict[str, np.ndarray]:
        core = self._core
        return {"to_move": core.to_move, "action_mask": core.mask, "illegal_move": core.illegal}

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        self._reset(seed)
        return self._core.obs, self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        self._step(actions)
        core = self._core
        return core.obs, core.rewards, core.terminated, core.truncated, self._infos()


class BatchedVectorEnv(_Batch, gymnasium.vector.VectorEnv):  # type: ignore[misc]
    """A Gymnasium ``VectorEnv`` of N games: one learner seat each, native bots at the others.

    The learner's observation (plain or padded), its reward over the whole stretch until it
    is to move again, and ``infos["action_mask"]`` (``(N, num_actions)`` int8) /
    ``action_masks()`` (bool) for a masked learner. Autoreset is same-step (see the
    module docstring).

    Args:
        game: the game's name (``"heckmeck"`` ...).
        num_envs: how many games.
        num_players: the seat count (the game's default when ``None``).
        learner: the learner's seat in every game, or ``"random"`` (drawn each episode).
        opponents: the bot at every other seat, ``"heuristic"`` or ``"random"``, or a list
            with one per seat (the learner's entry is ignored).
        seed, num_threads, padded, reward, max_cycles, illegal, illegal_reward, **options:
            as :class:`SelfPlayBatch`.
    """

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}  # noqa: RUF012 - Gymnasium's convention

    def __init__(
        self,
        game: str,
        num_envs: int,
        num_players: int | None = None,
        *,
        learner: int | str = "random",
        opponents: str | list[str] = "heuristic",
        seed: int | None = None,
        num_threads: int = 1,
        padded: bool = False,
        reward: str = "zero_sum",
        max_cycles: int | str | None = "default",
        illegal: str = "raise",
        illegal_reward: float = -1.0,
        **options: bool,
    ) -> None:
        seats = make(game, num_players, core="python", **options).num_seats
        if learner == "random":
            seat = -2
        elif isinstance(learner, int) and not isinstance(learner, bool) and 0 <= learner < seats:
            seat = learner
        else:
            raise ConfigError(f"learner must be a seat 0..{seats - 1} or 'random', not {learner!r}")
        names = [opponents] * seats if isinstance(opponents, str) else list(opponents)
        if len(names) != seats or any(n not in BOT_KINDS for n in names):
            raise ConfigError(
                f"opponents is one of {', '.join(BOT_KINDS)} or a list of {seats} of them, not {opponents!r}"
            )
        super().__init__(
            game,
            num_envs,
            num_players,
            seed=seed,
            num_threads=num_threads,
            padded=padded,
            reward=reward,
            max_cycles=max_cycles,
            illegal=illegal,
            illegal_reward=illegal_reward,
            learner=seat,
            bots=[BOT_KINDS[n] for n in names],
            options=options,
        )
        self.single_observation_space = spaces.Box(self.spec.low(), self.spec.high(), dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def _infos(self) -> dict[str, np.ndarray]:
        core = self._core
        return {"action_mask": core.mask, "illegal_move": core.illegal}

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if isinstance(seed, list):
            seed = seed[0] if seed else None
        self._reset(seed)
        return self._core.obs, self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._step(actions)
        core = self._core
        return core.obs, core.rewards, core.terminated, core.truncated, self._infos()

    def action_masks(self) -> np.ndarray:
        """The learners' legal moves, ``(N, num_actions)`` bool (sb3-contrib's ``MaskablePPO``)."""
        return self._core.mask.astype(bool)

    def learner_seats(self) -> np.ndarray:
        """Each game's learner seat in its current episode."""
        return np.array([self._core.learner(i) for i in range(self.num_envs)], np.int32)
