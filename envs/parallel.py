"""One PettingZoo parallel adapter for every tablezoo game.

:class:`TablezooParallelEnv` plays the same engine as the AEC environment
(:mod:`tablezoo.envs.aec`), one *decision round* per ``step``:

* in a simultaneous choice (6 nimmt!'s card choice, Diamant's go/camp: the
  moves :meth:`~tablezoo.games.core.Game.secret_decision` marks), every seat
  that still has to choose decides in the same step, each seeing the table as
  it was before anyone chose;
* otherwise the one seat to move decides.

Seats with nothing to decide get an all-zero mask and their action is ignored
(send anything, or leave them out of the dict). Chance (dice, deals, reveals)
is resolved inside ``step`` from the env's generator, seeded by
``reset(seed=...)``. A due seat's action that is missing or illegal ends the
game, as in ``env()``: that agent is paid ``illegal_reward``, the others 0,
every agent terminates and its info says ``illegal_move``.

Observations, rewards (summed over the decisions of the step), ``obs_type``,
``state()`` and rendering are those of the AEC environment. ``max_cycles``
caps each agent's decisions, as in the AEC environment: every agent is
truncated once an agent due to decide has made that many.

On the native core a step is one call into the core in the common case
(observations as dicts, ``reward="zero_sum"``, every due action an ``int``
that is legal, the game going on and under its cap): the core applies the due
seats' actions, resolves chance from the env's generator, finds the next
round's seats and writes every agent's observation (each a row of one array,
writeable and the agent's own) and mask, and the step's five dicts with them.
Anything else (a missing, illegal or numpy action, the last step,
``obs_type="flat"``, ``reward="score"``) takes the Python path, which the
core's step follows result for result.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from tablezoo.envs.aec import MASK_CACHE_SIZE, TablezooEnv, TablezooEnvBase, keyword_doc
from tablezoo.games.core import Game


class TablezooParallelEnv(TablezooEnvBase, ParallelEnv):
    """Parallel environment over a tablezoo game; subclasses set :attr:`game_class`."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class and the instance
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": True,
        "render_fps": 1,
    }

    def __init__(self, *args: Any, illegal_reward: float = -1.0, **kwargs: Any) -> None:
        """The AEC environment's arguments (:class:`~tablezoo.envs.aec.TablezooEnvBase`), and
        ``illegal_reward``, the reward of an agent whose missing or illegal action ends the game."""
        super().__init__(*args, **kwargs)
        self.illegal_reward = float(illegal_reward)
        self.agents: list[str] = []
        self._due: dict[int, list[int]] | None = {}
        """The seats due in the next step with their legal actions; None after a step of the
        core's, until asked (:meth:`_due_seats` finds them from the state)."""
        game = getattr(self.game, "reference", self.game)  # a native game's rules are its reference's
        self._simultaneous = type(game).secret_decision is not Game.secret_decision
        """Whether the game has simultaneous choices at all (else one seat decides per step)."""
        self._seats = list(enumerate(self.possible_agents))
        # the native core's whole step (NativeGame.parallel_step), for the case it covers
        fast = getattr(self.game, "parallel_step", None)
        self._core_step = None if self.flat or self._score_mode else fast
        self._core_forms: tuple[Any, ...] = ()
        """What the core's step reads and writes besides the state and the generator (set by reset)."""

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        mover = self._start(seed)
        self.agents = self.possible_agents.copy()
        self.decisions = dict.fromkeys(self.agents, 0)
        """How many decisions each agent has made this episode (``max_cycles`` caps them)."""
        self.num_cycles = 0
        self._due = self._due_now(mover)
        agents = self.possible_agents
        zeros, falses = dict.fromkeys(agents, 0.0), dict.fromkeys(agents, False)  # the dicts it copies
        self._core_forms = (
            agents,
            self.decisions,
            self._no_moves,
            zeros,
            falses,
            self._masks,
            MASK_CACHE_SIZE,
        )
        return self._observations(), self._infos()

    def due(self) -> dict[str, list[int]]:
        """The agents that decide in the next step, each with its legal actions, in the engine's order."""
        return {self.possible_agents[seat]: legal for seat, legal in self._due_seats().items()}

    def _due_seats(self) -> dict[int, list[int]]:
        """The seats due in the next step with their legal actions (found once after a core's step)."""
        due = self._due
        if due is None:
            mover = self.game.to_move(self.game_state)
            due = self._due = self._due_now(mover) if mover >= 0 else {}
        return due

    def _due_now(self, mover: int) -> dict[int, list[int]]:
        """The seats that decide now, with their legal actions.

        A simultaneous choice is asked seat by seat by the engine; the round is
        found on a copy of the state, with a legal choice in each seat's place
        (the choices of a simultaneous round do not change each other's legal moves).
        """
        game, state = self.game, self.game_state
        due = {mover: self._legal_actions(state)}
        if not self._simultaneous or not game.secret_decision(state):
            return due
        probe = game.clone(state)
        while True:
            game.apply(probe, due[mover][0], check=False)
            mover = game.to_move(probe)
            if mover < 0 or mover in due or not game.secret_decision(probe):
                return due
            due[mover] = game.legal_actions(probe)

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        core_step = self._core_step
        if core_step is not None and self.agents:
            cap = self.max_cycles
            if cap is None or self.num_cycles + 1 < cap:  # this step cannot reach the cap
                result = core_step(self.game_state, self._rng, actions, self._core_forms)
                if result is not None:  # applied (None: nothing was, the path below decides)
                    self.num_cycles += 1
                    if result.__class__ is tuple:
                        self._due = None
                        return result
                    return self._game_over(dict.fromkeys(self.agents, 0.0))
        state, agents = self.game_state, self.possible_agents
        live, decisions, apply_move = self.agents, self.decisions, self._apply_move
        for seat, legal in self._due_seats().items():
            agent = agents[seat]
            action = actions.get(agent)
            if action.__class__ is not int or action not in legal:
                # numpy integers are fine too; anything else, or an illegal move, forfeits
                if not isinstance(action, np.integer) or action not in legal:
                    return self._forfeit(agent)
                action = int(action)
            apply_move(state, action)
            decisions[agent] += 1
        mover = self._advance(state, self._rng)
        self.num_cycles += 1
        rewards = dict.fromkeys(live, 0.0)
        if self._score_mode:
            changes = self._score_changes()
            if changes is not None:
                for seat, change in enumerate(changes):
                    rewards[agents[seat]] += change
        if mover >= 0:  # the game goes on (advance resolves chance; below 0 is TERMINAL)
            due = self._due = self._due_now(mover)
            cap = self.max_cycles
            # no agent has made more decisions than all the cycles' decisions together
            if cap is None or self.num_cycles < cap:
                flags = dict.fromkeys(live, False)
                return self._observations(), rewards, flags, flags.copy(), self._infos()
            for seat in due:
                if decisions[agents[seat]] >= cap:
                    return self._finish(rewards, False)
            flags = dict.fromkeys(live, False)
            return self._observations(), rewards, flags, flags.copy(), self._infos()
        return self._game_over(rewards)

    def _game_over(
        self, rewards: dict[str, float]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """The step after which the game is over: ``rewards`` (the step's so far) and, under
        ``reward="zero_sum"``, the game's returns."""
        if self.reward_mode == "zero_sum":
            agents = self.possible_agents
            for seat, value in enumerate(self.game.returns(self.game_state)):
                rewards[agents[seat]] += value
        return self._finish(rewards, True)

    def _finish(
        self, rewards: dict[str, float], terminated: bool
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """The step that ends the episode: the game is over (``terminated``) or truncated."""
        live = self.agents
        self._due = {}
        observations, infos = self._observations(), self._infos()
        self.agents = []
        return (
            observations,
            rewards,
            dict.fromkeys(live, terminated),
            dict.fromkeys(live, not terminated),
            infos,
        )

    def _forfeit(
        self, agent: str
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """A due agent's action is missing or illegal: the game ends, the state is left as it was."""
        live = self.agents
        self._due = {}
        rewards = dict.fromkeys(live, 0.0)
        rewards[agent] = self.illegal_reward
        observations, infos = self._observations(), self._infos()
        infos[agent]["illegal_move"] = True
        self.agents = []
        return observations, rewards, dict.fromkeys(live, True), dict.fromkeys(live, False), infos

    def _mask(self, seat: int) -> np.ndarray:
        legal = self._due_seats().get(seat)
        return self._no_moves if legal is None else self._mask_of(legal)

    def _observations(self) -> dict[str, Any]:
        """Each live agent's observation, with its mask when it is due."""
        observe, state = self._observe, self.game_state
        # agents are all live or all done together: the live ones are the seats in order
        seats = self._seats if self.agents else ()
        if self.flat:
            return {agent: observe(state, seat) for seat, agent in seats}
        due, no_moves, masks = self._due_seats(), self._no_moves, self._masks
        observations = {}
        for seat, agent in seats:
            legal = due.get(seat)
            mask: np.ndarray | None = no_moves
            if legal is not None:
                mask = masks.get(tuple(legal))
                if mask is None:
                    mask = self._mask_of(legal)
            observations[agent] = {"observation": observe(state, seat), "action_mask": mask}
        return observations

    def _infos(self) -> dict[str, dict[str, Any]]:
        if not self.flat:
            return {agent: {} for agent in self.agents}
        return {agent: {"action_mask": self._mask(self.seat_of[agent])} for agent in self.agents}


def make_parallel_env(raw_class: type[TablezooEnv]) -> type[TablezooParallelEnv]:
    """The ``parallel_env`` of a game module: the parallel env of ``raw_class``'s game and cap."""
    penalty = {
        "illegal_reward": (-1.0, "the reward of an agent whose missing or illegal action ends the game")
    }
    title = raw_class.game_class.info.title
    return type(
        "parallel_env",
        (TablezooParallelEnv,),
        {
            "game_class": raw_class.game_class,
            "default_max_cycles": raw_class.default_max_cycles,
            "__module__": raw_class.__module__,
            "__doc__": f"The {title} parallel environment.\n\n" + keyword_doc(raw_class, penalty),
        },
    )
