"""The parallel API, flat observations, the global state, max_cycles and the registry, for every game."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo.test import parallel_api_test, parallel_seed_test, state_test
from pettingzoo.utils import aec_to_parallel, parallel_to_aec

from tablezoo.envs import ENV_MODULES, MAX_CYCLES, registry_id
from tablezoo.games.native import available as native_available

MODULES = {name: importlib.import_module(f"tablezoo.envs.{name}") for name in ENV_MODULES}
EXTREMES = [
    (name, seats)
    for name, module in MODULES.items()
    for seats in sorted({module.raw_env.game_class.info.min_seats, module.raw_env.game_class.info.max_seats})
]
IDS = [f"{name}-{seats}p" for name, seats in EXTREMES]


def _options(name: str) -> dict[str, bool]:
    """Every option of the game switched on (6 nimmt!'s profi, logic and tactic together)."""
    return dict.fromkeys(MODULES[name].raw_env.game_class.info.option_names, True)


@pytest.mark.parametrize(("name", "seats"), EXTREMES, ids=IDS)
@pytest.mark.parametrize("obs_type", ["dict", "flat"])
def test_parallel_api_and_seed(name: str, seats: int, obs_type: str) -> None:
    module = MODULES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for options in ({}, _options(name)):
            parallel_api_test(module.parallel_env(num_players=seats, obs_type=obs_type, **options), 200)
            parallel_seed_test(
                lambda o=options: module.parallel_env(num_players=seats, obs_type=obs_type, **o)
            )


@pytest.mark.parametrize(("name", "seats"), EXTREMES, ids=IDS)
def test_state_checks(name: str, seats: int) -> None:
    module = MODULES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state_test(module.env(num_players=seats), module.parallel_env(num_players=seats))
    env = module.parallel_env(num_players=seats)
    env.reset(seed=0)
    game = env.game
    assert env.state_space.shape == (game.state_spec.size,) == (game.observation_spec.size * seats,)
    assert "seat0/" in game.state_spec.describe()


def _random_parallel_game(
    module: Any, seats: int, seed: int, **kwargs: Any
) -> tuple[Any, list[int], dict[str, float]]:
    """Random legal play of the parallel env: the env, every action in the engine's order, the rewards."""
    env = module.parallel_env(num_players=seats, **kwargs)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    played: list[int] = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {}
        for agent in env.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            actions[agent] = int(rng.choice(legal)) if len(legal) else 0  # the others' are ignored
        played += [actions[agent] for agent in env.due()]
        obs, rewards, *_ = env.step(actions)
        for agent, value in rewards.items():
            totals[agent] += value
    return env, played, totals


@pytest.mark.parametrize(("name", "seats"), EXTREMES, ids=IDS)
def test_parallel_plays_the_same_game_as_aec(name: str, seats: int) -> None:
    """The same seed and the same actions give the same game and the same rewards in both APIs."""
    module = MODULES[name]
    for seed in range(2):
        par, played, par_totals = _random_parallel_game(module, seats, seed, reward="score", max_cycles=None)
        aec = module.raw_env(num_players=seats, reward="score", max_cycles=None)
        aec.reset(seed=seed)
        totals = dict.fromkeys(aec.possible_agents, 0.0)
        moves = iter(played)
        for agent in aec.agent_iter():
            _, reward, term, trunc, _ = aec.last(observe=False)
            totals[agent] += reward
            aec.step(None if term or trunc else next(moves))
        assert next(moves, None) is None
        assert aec.game.to_json(aec.game_state) == par.game.to_json(par.game_state)
        assert totals == pytest.approx(par_totals)


@pytest.mark.parametrize("name", ["sechs_nimmt_v0", "diamant_v0"])
def test_a_simultaneous_choice_is_one_step_for_every_seat(name: str) -> None:
    env = MODULES[name].parallel_env(num_players=4)
    obs, _ = env.reset(seed=5)
    game = env.game
    assert list(env.due()) == env.possible_agents  # every seat chooses at once
    for agent in env.agents:
        assert obs[agent]["action_mask"].any()
    # each seat sees the table as it was before anyone chose
    assert all(
        np.array_equal(obs[a]["observation"], game.observe(env.game_state, env.seat_of[a]))
        for a in env.agents
    )
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[-1]) for a in env.agents}
    env.step(actions)
    assert all(count == 1 for count in env.decisions.values())  # one decision each, in one step


def test_actions_of_seats_not_due_are_ignored_and_a_missing_one_loses() -> None:
    module = MODULES["heckmeck_v0"]
    env = module.parallel_env(num_players=3, illegal_reward=-5.0)
    obs, _ = env.reset(seed=1)
    (mover,) = env.due()
    others = [a for a in env.agents if a != mover]
    assert all(not obs[a]["action_mask"].any() for a in others)
    legal = int(np.flatnonzero(obs[mover]["action_mask"])[0])
    env.step({mover: legal, **dict.fromkeys(others, 999)})  # nonsense for the others: ignored
    assert env.agents == env.possible_agents
    (mover,) = env.due()
    state = env.game.to_json(env.game_state)
    _, rewards, terminations, _, infos = env.step({})  # the due seat sent nothing
    assert rewards[mover] == -5.0 and all(terminations.values()) and infos[mover]["illegal_move"]
    assert env.agents == [] and env.game.to_json(env.game_state) == state


@pytest.mark.parametrize("name", ENV_MODULES)
def test_flat_observations_carry_the_mask_in_infos(name: str) -> None:
    module = MODULES[name]
    flat, boxed = module.env(obs_type="flat"), module.env()
    assert isinstance(flat.observation_space("player_0"), spaces.Box)
    flat.reset(seed=3)
    boxed.reset(seed=3)
    rng = np.random.default_rng(3)
    for steps, agent in enumerate(flat.agent_iter()):
        obs, _, term, trunc, info = flat.last()
        expected = boxed.observe(agent)
        assert np.array_equal(obs, expected["observation"])
        assert np.array_equal(info["action_mask"], expected["action_mask"])
        for other in flat.agents:  # every agent's info carries its own mask (zeros unless it moves)
            assert np.array_equal(flat.infos[other]["action_mask"], boxed.observe(other)["action_mask"])
        action = None if term or trunc else int(rng.choice(np.flatnonzero(info["action_mask"])))
        flat.step(action)
        boxed.step(action)
        if steps > 400:
            break


@pytest.mark.parametrize("name", ENV_MODULES)
def test_max_cycles_caps_each_agents_decisions(name: str) -> None:
    module = MODULES[name]
    assert module.raw_env().max_cycles == module.parallel_env().max_cycles == MAX_CYCLES[name]
    assert module.raw_env(max_cycles=None).max_cycles is None
    env = module.raw_env(max_cycles=3)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    truncated = False
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        truncated |= trunc
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert truncated and max(env.decisions.values()) == 3
    par, _, _ = _random_parallel_game(module, module.raw_env.game_class.info.default_seats, 0, max_cycles=3)
    assert max(par.decisions.values()) == 3


@pytest.mark.parametrize("name", ENV_MODULES)
def test_registered_with_pettingzoo(name: str) -> None:
    info = MODULES[name].raw_env.game_class.info
    env = pettingzoo.make("aec", registry_id(name), num_players=info.max_seats)
    env.reset(seed=0)
    assert env.unwrapped.game.num_seats == info.max_seats and env.unwrapped.max_cycles == MAX_CYCLES[name]
    par = pettingzoo.make("parallel", registry_id(name), max_cycles=7)
    par.reset(seed=0)
    assert par.max_cycles == 7


@pytest.mark.parametrize("name", ENV_MODULES)
def test_round_trips_between_the_apis(name: str) -> None:
    module = MODULES[name]
    for env in (parallel_to_aec(module.parallel_env()), module.env()):
        env.reset(seed=2)
        for _agent in env.agent_iter(60):
            obs, _, term, trunc, _ = env.last()
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(legal[0]) if len(legal) else 0)
    par = aec_to_parallel(module.env())
    obs, _ = par.reset(seed=2)
    assert set(obs) == set(par.possible_agents)


def _same_step(reference: tuple[Any, ...], native: tuple[Any, ...]) -> None:
    """Two results of ``reset`` or ``step`` are equal: the same dicts in the same order, the same
    arrays (values, dtype and whether they can be written)."""
    assert len(reference) == len(native)
    for ours, theirs in zip(reference, native, strict=True):
        assert list(ours) == list(theirs)
        for agent, value in ours.items():
            other = theirs[agent]
            if isinstance(value, dict):
                assert list(value) == list(other)
                for key, entry in value.items():
                    if isinstance(entry, np.ndarray):
                        assert entry.dtype == other[key].dtype and np.array_equal(entry, other[key])
                        assert entry.flags.writeable == other[key].flags.writeable, key
                    else:
                        assert entry == other[key]
            else:
                assert value == other and type(value) is type(other)


@pytest.mark.skipif(not native_available(), reason="the native core is not built")
@pytest.mark.parametrize(("name", "seats"), EXTREMES, ids=IDS)
def test_the_native_core_steps_the_parallel_env_as_the_reference_does(name: str, seats: int) -> None:
    """The native core's one-call step (``NativeGame.parallel_step``) gives every step the
    Python path's result, with the Python path taking over now and then: a numpy action, an
    illegal action that ends the game, a short cap."""
    module = MODULES[name]
    for seed in range(4):
        cap: int | str = 4 if seed == 2 else "default"
        envs = [
            module.parallel_env(num_players=seats, core=core, max_cycles=cap) for core in ("python", "native")
        ]
        reference, native = envs
        core_step, results = native._core_step, []
        assert core_step is not None and reference._core_step is None

        def counted(*args: Any, core_step: Any = core_step, results: list[Any] = results) -> Any:
            results.append(core_step(*args))
            return results[-1]

        native._core_step = counted
        outs = [env.reset(seed=seed) for env in envs]
        rng = np.random.default_rng(seed)
        for step in range(100_000):
            _same_step(*outs)
            if not reference.agents:
                break
            assert reference.due() == native.due()
            actions: dict[str, Any] = {}
            for agent in reference.agents:
                legal = np.flatnonzero(outs[0][0][agent]["action_mask"])
                if len(legal):
                    actions[agent] = int(rng.choice(legal))
            if step % 5 == 3:  # a numpy integer: the Python path's
                agent = next(iter(reference.due()))
                actions[agent] = np.int64(actions[agent])
            if seed == 3 and step == 6:  # an illegal action ends the game
                actions[next(iter(reference.due()))] = 10**6
            outs = [env.step(dict(actions)) for env in envs]
            assert reference.decisions == native.decisions and reference.num_cycles == native.num_cycles
            assert reference.game.to_json(reference.game_state) == native.game.to_json(native.game_state)
        assert not reference.agents and not native.agents
        # the core's step answered most steps itself
        assert sum(result.__class__ is tuple for result in results) >= len(results) // 2 > 0
