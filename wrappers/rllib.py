"""Any tablezoo game as a Ray RLlib ``MultiAgentEnv`` (new API stack), with bots inside.

Needs the ``rllib`` extra (``ray[rllib]``); import this module only when you use RLlib.

Agents are ``player_0 .. player_{n-1}`` (seat order), as in the AEC envs. Each
episode, every seat is either a *learner* (an agent RLlib sees and steps, all
mapped to one shared policy by the trainer) or a *league* seat played inside
``step()`` by a bot: one of the named bots (``random``, ``heuristic``,
``solver``, ``search``, ``agent``, a ``policy.npz``) or a frozen snapshot of the
learner pushed in with :meth:`RLlibEnv.add_snapshot`. Roles are drawn at reset:
one seat drawn uniformly is always a learner; every other seat is a learner too
with probability ``learner_share``, else a league seat, a snapshot with
probability ``self_play`` (when there are snapshots) or else one of the bots.
Bots act on :class:`~tablezoo.bots.core.Seat`, so search bots that sample
the hidden state work as at a table.

Turns stay turns: an observation is returned only for the learner to move, so
the simultaneous choices of Diamant and 6 nimmt!, which the engine asks seat by
seat and keeps hidden until all have chosen, stay secret. Rewards reach each
learner as they are paid (RLlib adds a reward paid between two of an agent's
turns to its last step); at the end every learner gets a final observation.

Observation of an agent (the keys RLlib's action-masking module reads)::

    {"observations": float32 vector scaled into 0..1 (each field's upper bound),
     "action_mask": float32 0/1 mask of the legal actions}

An action that is not legal (only an unmasked policy, or RLlib's env pre-check,
which samples one, makes it) ends the episode: the mover gets
``illegal_reward``, the others nothing, its info says ``illegal_move`` and
:attr:`RLlibEnv.illegal_moves` counts it. ``max_cycles`` truncates an episode
after that many decisions of all seats (To Court the King between two bots need
not end).

Chance is seeded: ``reset(seed=s)`` seeds the dice and deals, the roles and
every bot through one ``SeedSequence``; without a seed the env continues its
own generator, seeded at construction from ``seed`` and RLlib's worker and
vector indices, so every copy of the env draws differently and repeatably.

``env_config`` (a dict, as RLlib passes it): ``env`` (``"diamant_v0"``, a module
of :mod:`tablezoo.envs`), ``num_players``, ``options`` (names switched on),
``reward`` (``zero_sum`` or ``score``), ``opponents`` (bot names), ``learner_share``,
``self_play``, ``illegal_reward``, ``max_cycles``, ``seed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.policy import PolicyBot
from tablezoo.bots.registry import make_bot
from tablezoo.envs.names import make_game
from tablezoo.games.core import TERMINAL, ConfigError

OBS_KEY = "observations"
MASK_KEY = "action_mask"
CONFIG_KEYS = (
    "env",
    "num_players",
    "options",
    "reward",
    "opponents",
    "learner_share",
    "self_play",
    "illegal_reward",
    "max_cycles",
    "seed",
)


class RLlibEnv(MultiAgentEnv):
    """One tablezoo game for RLlib: learner seats as agents, league seats played inside ``step()``."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise ConfigError(
                f"unknown env_config key {', '.join(map(repr, unknown))}; allowed: {', '.join(CONFIG_KEYS)}"
            )
        self.game = make_game(
            config.get("env", "heckmeck_v0"), config.get("num_players"), config.get("options")
        )
        self.reward_mode = config.get("reward", "zero_sum")
        if self.reward_mode not in ("zero_sum", "score"):
            raise ConfigError(f"reward must be 'zero_sum' or 'score', not {self.reward_mode!r}")
        self.learner_share = _probability(config, "learner_share", 0.0)
        self.self_play = _probability(config, "self_play", 0.0)
        self.illegal_reward = float(config.get("illegal_reward", -1.0))
        max_cycles = config.get("max_cycles")
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or int(max_cycles) != max_cycles or max_cycles < 1
        ):
            raise ConfigError(f"max_cycles must be a positive whole number or None, not {max_cycles!r}")
        self.max_cycles = max_cycles
        names = list(config.get("opponents") or [])
        # One set of bots per seat: a bot may keep state through a game, so no instance plays two seats.
        self.bots: list[list[Bot]] = [
            [make_bot(name, self.game) for name in names] for _ in range(self.game.num_seats)
        ]
        self.snapshots: list[PolicyBot] = []
        self.illegal_moves = 0
        """Episodes ended by an illegal learner action since the env was made."""
        self.steps_taken = 0
        """Learner decisions stepped since the env was made."""

        n = self.game.num_seats
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.agents = list(self.possible_agents)
        spec = self.game.observation_spec
        self.scale = spec.scale()
        obs_space = gymnasium.spaces.Dict(
            {
                OBS_KEY: gymnasium.spaces.Box(
                    spec.low() / self.scale, spec.high() / self.scale, dtype=np.float32
                ),
                MASK_KEY: gymnasium.spaces.Box(0.0, 1.0, (self.game.num_actions,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces: dict[str, gymnasium.spaces.Space[Any]] = dict.fromkeys(
            self.possible_agents, gymnasium.spaces.Discrete(self.game.num_actions)
        )
        # Each copy of the env (RLlib worker, vector slot) gets its own stream from the one seed.
        worker = int(getattr(config, "worker_index", 0))
        slot = int(getattr(config, "vector_index", 0))
        self._rng = np.random.default_rng([int(config.get("seed", 0)), worker, slot])
        self._chance = self._rng
        self.state: Any = None
        self._seats: dict[int, Bot | None] = {}  # seat -> its league bot, None for a learner
        self._mover = -1
        self._decisions = 0
        self._scores: list[float] = []

    # ------------------------------------------------------------ league

    def add_snapshot(self, policy: PolicyValueNet, limit: int | None = None) -> int:
        """Add a frozen learner to the league (keeping the newest ``limit``); the pool's size."""
        if (
            policy.observation_size != self.game.observation_spec.size
            or policy.num_actions != self.game.num_actions
        ):
            raise ConfigError(
                f"a snapshot for observations of {policy.observation_size} and {policy.num_actions} actions "
                f"cannot play {self.game!r}"
            )
        self.snapshots.append(PolicyBot(policy, "snapshot"))
        if limit is not None and len(self.snapshots) > limit:
            del self.snapshots[: len(self.snapshots) - limit]
        return len(self.snapshots)

    def learners(self) -> list[int]:
        """The learner seats of this episode."""
        return [s for s, bot in self._seats.items() if bot is None]

    # ------------------------------------------------------------ MultiAgentEnv API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        n = self.game.num_seats
        if seed is not None:
            streams = np.random.SeedSequence(seed).spawn(2)
            self._chance = np.random.default_rng(streams[0])
            self._rng = np.random.default_rng(streams[1])
        rng = self._rng
        first = int(rng.integers(n))
        self._seats = {}
        for seat in range(n):
            learner = seat == first or (not self.bots[seat] and not self.snapshots)
            if not learner and rng.random() < self.learner_share:
                learner = True
            if learner:
                self._seats[seat] = None
            elif self.snapshots and (rng.random() < self.self_play or not self.bots[seat]):
                self._seats[seat] = self.snapshots[int(rng.integers(len(self.snapshots)))]
            else:
                self._seats[seat] = self.bots[seat][int(rng.integers(len(self.bots[seat])))]
        for bot in {id(b): b for b in self._seats.values() if b is not None}.values():
            bot.reset(int(rng.integers(2**31)))
        self.agents = [self.possible_agents[s] for s in self.learners()]
        self.state = self.game.initial_state()
        self._decisions = 0
        self._scores = self.game.scores(self.state) if self.reward_mode == "score" else []
        rewards = self._advance()
        if self._over():  # the league finished the game before any learner moved (cannot in these games)
            return self._final(rewards)[0], {}
        agent = self.possible_agents[self._mover]
        return {agent: self._observe(self._mover)}, {agent: {"seat": self._mover}}

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("step() before reset()")
        agent = self.possible_agents[self._mover] if self._mover >= 0 else None
        if agent is None or self._over():
            raise RuntimeError("the episode is over: call reset()")
        if agent not in action_dict or len(action_dict) != 1:
            raise ValueError(
                f"{agent} is to move: step() takes {{{agent!r}: action}}, not {dict(action_dict)!r}"
            )
        action = int(action_dict[agent])
        self.steps_taken += 1
        if action not in self.game.legal_actions(self.state):
            self.illegal_moves += 1
            self._mover = -1
            obs = {a: self._observe(self.possible_agents.index(a), masked=False) for a in self.agents}
            rewards = {a: (self.illegal_reward if a == agent else 0.0) for a in self.agents}
            done = {**dict.fromkeys(self.agents, True), "__all__": True}
            not_cut = {**dict.fromkeys(self.agents, False), "__all__": False}
            return obs, rewards, done, not_cut, {agent: {"illegal_move": True}}
        self.game.apply(self.state, action, check=False)
        self._decisions += 1
        rewards = self._advance()
        if self._over():
            return self._final(rewards)
        nxt = self.possible_agents[self._mover]
        no = {"__all__": False}
        # RLlib wants a reward (0 too) for every agent that gets an observation; the others' wait.
        return {nxt: self._observe(self._mover)}, {nxt: 0.0, **rewards}, no, dict(no), {}

    # ------------------------------------------------------------ internals

    def _advance(self) -> dict[str, float]:
        """Resolve chance and play league seats until a learner is to move or the game ends;
        the learners' rewards paid on the way."""
        game, state = self.game, self.state
        rewards: dict[str, float] = {}
        while True:
            self._pay(rewards)
            mover = game.advance(state, self._chance)
            self._mover = mover
            if mover == TERMINAL or self._cut():
                break
            bot = self._seats[mover]
            if bot is None:
                break
            game.apply(state, bot.act(Seat.of(game, state, mover)), check=True)
            self._decisions += 1
        self._pay(rewards)
        if mover == TERMINAL and self.reward_mode == "zero_sum":
            returns = game.returns(state)
            for seat in self.learners():
                agent = self.possible_agents[seat]
                rewards[agent] = rewards.get(agent, 0.0) + float(returns[seat])
        return rewards

    def _pay(self, rewards: dict[str, float]) -> None:
        """Add the learners' changes of game points since the last call (``reward="score"``)."""
        if self.reward_mode != "score":
            return
        new = self.game.scores(self.state)
        for seat in self.learners():
            change = float(new[seat] - self._scores[seat])
            if change:
                agent = self.possible_agents[seat]
                rewards[agent] = rewards.get(agent, 0.0) + change
        self._scores = new

    def _cut(self) -> bool:
        return self.max_cycles is not None and self._decisions >= self.max_cycles

    def _over(self) -> bool:
        return self._mover == TERMINAL or self._cut()

    def _final(
        self, rewards: dict[str, float]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        """The last step: a final observation and reward for every learner, all done."""
        terminal = self._mover == TERMINAL
        self._mover = -1
        obs = {a: self._observe(self.possible_agents.index(a), masked=False) for a in self.agents}
        rewards = {a: rewards.get(a, 0.0) for a in self.agents}
        terminated = {**dict.fromkeys(self.agents, terminal), "__all__": terminal}
        truncated = {**dict.fromkeys(self.agents, not terminal), "__all__": not terminal}
        return obs, rewards, terminated, truncated, {}

    def _observe(self, seat: int, masked: bool = True) -> dict[str, np.ndarray]:
        mask = np.zeros(self.game.num_actions, np.float32)
        if masked:
            mask[self.game.legal_actions(self.state)] = 1.0
        return {OBS_KEY: self.game.observe(self.state, seat) / self.scale, MASK_KEY: mask}


def _probability(config: Mapping[str, Any], key: str, default: float) -> float:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ConfigError(f"{key} must be a probability between 0 and 1, not {value!r}")
    return float(value)
