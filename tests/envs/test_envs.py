"""Every environment against PettingZoo's conformance tests and the adapter's promises."""

from __future__ import annotations

import importlib
import inspect
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tablezoo.envs import ENV_MODULES
from tablezoo.games import game_class
from tablezoo.games.core import ConfigError, IllegalActionError
from tests.conftest import config_id, configurations

MODULES = {name: importlib.import_module(f"tablezoo.envs.{name}") for name in ENV_MODULES}


def _game_name(module_name: str) -> str:
    return module_name.rsplit("_v", 1)[0]


CASES = [(m, n, o) for m in ENV_MODULES for n, o in configurations(_game_name(m))]
IDS = [f"{m}-{config_id((n, o))}" for m, n, o in CASES]


@pytest.mark.parametrize(("module", "seats", "options"), CASES, ids=IDS)
def test_api_and_seed(module: str, seats: int, options: dict[str, bool]) -> None:
    mod = MODULES[module]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(mod.env(num_players=seats, **options), num_cycles=300)
        api_test(mod.raw_env(num_players=seats, **options), num_cycles=300)
        seed_test(lambda: mod.env(num_players=seats, **options), num_cycles=300)


def _play(env, seed: int) -> dict[str, float]:
    """Random legal play to the end; the total reward each agent received."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
        env.step(action)
    return totals


@pytest.mark.parametrize("module", ENV_MODULES)
def test_zero_sum_rewards_match_the_winners(module: str) -> None:
    mod = MODULES[module]
    for seed in range(3):
        env = mod.env()
        totals = _play(env, seed)
        raw = env.unwrapped
        expected = raw.game.returns(raw.game_state)
        assert [totals[a] for a in env.possible_agents] == pytest.approx(expected)
        assert sum(totals.values()) == pytest.approx(0.0)


@pytest.mark.parametrize("module", ENV_MODULES)
def test_score_rewards_add_up_to_the_final_scores(module: str) -> None:
    mod = MODULES[module]
    env = mod.env(reward="score")
    totals = _play(env, 5)
    raw = env.unwrapped
    initial = raw.game.scores(raw.game.initial_state())
    final = raw.game.scores(raw.game_state)
    got = [totals[a] for a in env.possible_agents]
    assert got == pytest.approx([f - i for f, i in zip(final, initial, strict=True)])


def _reach_an_illegal_move(env, seed: int = 0, steps: int = 500) -> int | None:
    """Play random legal moves until the agent to move has an in-range illegal action; return it.

    ``None`` when there is none that soon (in Diamant both moves are always legal).
    """
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        mask = env.observe(agent)["action_mask"]
        if not mask.all():
            return int(np.flatnonzero(mask == 0)[0])
        env.step(int(rng.integers(len(mask))))
    return None


@pytest.mark.parametrize("module", ENV_MODULES)
def test_raw_env_refuses_an_illegal_move_and_names_the_legal_ones(module: str) -> None:
    env = MODULES[module].raw_env()
    found = _reach_an_illegal_move(env)
    if found is None:
        env.reset(seed=0)
    before = env.game.to_json(env.game_state)
    for illegal in [found, -1, env.game.num_actions]:
        if illegal is None:
            continue
        with pytest.raises(IllegalActionError, match="legal moves: "):
            env.step(illegal)
        assert env.game.to_json(env.game_state) == before


@pytest.mark.parametrize("module", ENV_MODULES)
def test_env_ends_the_game_on_an_illegal_move(module: str) -> None:
    env = MODULES[module].env()
    illegal = _reach_an_illegal_move(env)
    if illegal is None:
        env.reset(seed=0)
    agent = env.agent_selection
    for out_of_bounds in (-1, env.action_space(agent).n, 1.5, None):
        with pytest.raises(AssertionError, match="not in Discrete"):
            env.step(out_of_bounds)
    if illegal is None:
        pytest.skip("every in-range action is always legal in this game")
    env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0 and env.infos[agent]["illegal_move"]
    assert sum(v for a, v in env.rewards.items() if a != agent) == 0


@pytest.mark.parametrize("module", ENV_MODULES)
def test_env_enforces_order(module: str) -> None:
    env = MODULES[module].env()
    with pytest.raises(AttributeError):
        _ = env.agent_selection
    with pytest.raises(AssertionError):
        env.step(0)
    with pytest.raises(AssertionError):
        env.observe("player_0")


@pytest.mark.parametrize("module", ENV_MODULES)
def test_bad_arguments_name_what_is_allowed(module: str) -> None:
    mod = MODULES[module]
    info = game_class(_game_name(module)).info
    with pytest.raises(ConfigError, match="zero_sum, score"):
        mod.env(reward="points")
    with pytest.raises(ConfigError, match="ansi, human, rgb_array"):
        mod.env(render_mode="rgb")
    with pytest.raises(ConfigError, match=f"{info.min_seats} to {info.max_seats}"):
        mod.env(num_players=info.max_seats + 1)


@pytest.mark.parametrize("module", ENV_MODULES)
def test_ansi_render_is_text(module: str) -> None:
    env = MODULES[module].env(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "seat 0" in text


def test_env_docstrings_follow_the_signature() -> None:
    """The documented keyword arguments are generated: every one the env takes is there, with its default."""
    from tablezoo.envs.aec import ENV_KEYWORDS, TablezooEnv

    taken = set(inspect.signature(TablezooEnv.__init__).parameters) - {"self", "options"}
    assert taken == {"num_players", *ENV_KEYWORDS}
    for name in ENV_MODULES:
        module = importlib.import_module(f"tablezoo.envs.{name}")
        info = module.raw_env.game_class.info
        for doc in (module.raw_env.__doc__, module.env.__doc__):
            assert f"``num_players={info.default_seats}``" in doc
            for option in info.options:
                assert f"``{option.name}={option.default}``" in doc
            for keyword in ENV_KEYWORDS:
                assert f"``{keyword}=" in doc
        assert "``illegal_reward=-1.0``" in module.env.__doc__
        assert "env(num_players" not in (module.__doc__ or ""), "no signature written by hand"


@pytest.mark.parametrize("module", ENV_MODULES)
def test_rgb_array_render_is_a_picture_of_the_public_view(module: str) -> None:
    pytest.importorskip("resvg_py", reason="render_mode='rgb_array' needs the render extra (resvg-py)")
    env = MODULES[module].env(render_mode="rgb_array")
    env.reset(seed=1)
    for _ in range(3):  # a few moves in
        obs, _, _, _, _ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    picture = env.render()
    assert isinstance(picture, np.ndarray) and picture.dtype == np.uint8
    assert picture.ndim == 3 and picture.shape[1:] == (800, 3) and picture.shape[0] > 100
    assert picture.std() > 10 and len(np.unique(picture.reshape(-1, 3), axis=0)) > 20  # not blank


@pytest.mark.parametrize("module", ENV_MODULES)
def test_env_keeps_its_checks_after_reset_and_unwrapped_keeps_none(module: str) -> None:
    """After reset env() runs the env's own checked step: same errors, episode after episode."""
    env = MODULES[module].env()
    for seed in (0, 1):  # a second reset keeps the checks
        env.reset(seed=seed)
        agent = env.agent_selection
        with pytest.raises(AssertionError, match="not in Discrete"):
            env.step(env.action_space(agent).n)
        loop = env.agent_iter()
        next(loop)
        with pytest.raises(AssertionError, match="call step"):
            next(loop)  # no step in between
    illegal = _reach_an_illegal_move(env)
    if illegal is None:
        pytest.skip("every in-range action is always legal in this game")
    with pytest.raises(IllegalActionError, match="legal moves: "):
        env.unwrapped.step(illegal)  # the env under the checks raises, as raw_env does
    assert not any(env.terminations.values())


@pytest.mark.parametrize("module", ENV_MODULES)
def test_env_and_raw_env_refuse_calls_before_reset_with_pettingzoos_errors(module: str) -> None:
    for env in (MODULES[module].env(), MODULES[module].raw_env()):
        for call in (lambda e: e.step(0), lambda e: e.last(), lambda e: e.observe("player_0")):
            with pytest.raises(AssertionError, match="reset"):
                call(env)
    env = MODULES[module].env()
    with pytest.raises(AssertionError, match="reset"):
        env.agent_iter()
    with pytest.raises(AttributeError):
        _ = env.num_agents


@pytest.mark.parametrize("module", ENV_MODULES)
def test_env_reads_the_envs_attributes_through_and_keeps_its_own_methods(module: str) -> None:
    """No method is swapped on the instance at reset, and no ``__getattr__`` slows every look-up."""
    from tablezoo.envs.aec import READ_THROUGH

    env = MODULES[module].env(illegal_reward=-3.0)
    env.reset(seed=0)
    raw = env.unwrapped
    assert not hasattr(type(env), "__getattr__")
    assert not {"step", "last", "observe", "agent_iter"} & set(vars(env))
    for name in READ_THROUGH:
        assert getattr(env, name) == getattr(raw, name), name
    assert env.game is raw.game and env.num_agents == raw.num_agents and str(env) == str(raw)
    assert env.legal_actions() == raw.legal_actions() and env.illegal_reward == -3.0
    with pytest.raises(AttributeError):
        env.agents = []  # read only: the env's own


@pytest.mark.parametrize("module", ENV_MODULES)
def test_env_warns_on_a_step_once_every_agent_is_gone(module: str, caplog: pytest.LogCaptureFixture) -> None:
    env = MODULES[module].env()
    _play(env, 0)
    assert not env.agents
    for action in (None, 0):
        caplog.clear()
        env.step(action)  # whatever the action: a warning, and nothing done
        assert "called after all agents are terminated or truncated" in caplog.text
    assert not env.agents


@pytest.mark.parametrize("module", ENV_MODULES)
def test_env_takes_numpy_integers_and_refuses_other_types(module: str) -> None:
    env, raw = MODULES[module].env(), MODULES[module].raw_env()
    env.reset(seed=2)
    raw.reset(seed=2)
    legal = raw.legal_actions()
    for bad in (True, float(legal[0]), str(legal[0])):
        with pytest.raises(AssertionError, match="not in Discrete"):
            env.step(bad)
    env.step(np.int64(legal[0]))
    raw.step(legal[0])
    assert env.unwrapped.game.to_json(env.unwrapped.game_state) == raw.game.to_json(raw.game_state)
    assert env.agent_selection == raw.agent_selection


@pytest.mark.parametrize("module", ENV_MODULES)
def test_masks_are_the_legal_moves_read_only_with_a_small_cache(
    module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shared masks cannot be changed by one holder, and stay right when the cache starts afresh."""
    monkeypatch.setattr("tablezoo.envs.aec.MASK_CACHE_SIZE", 3)
    for obs_type in ("dict", "flat"):
        env = MODULES[module].raw_env(obs_type=obs_type)
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for _ in range(300):
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                break
            mask = obs["action_mask"] if obs_type == "dict" else info["action_mask"]
            assert np.flatnonzero(mask).tolist() == sorted(env.legal_actions())
            assert not mask.flags.writeable and len(env._masks) <= 3
            env.step(int(rng.choice(np.flatnonzero(mask))))
