"""The batched env: the same games as the native core stepped one game at a time, whatever
the thread count or batch size; bad input named; the Gymnasium face a VectorEnv."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError, IllegalActionError
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """The batched env runs on the native core alone (it overrides the folder's both-cores fixture)."""
    return "native"


def seat_counts(name: str) -> list[int]:
    info = game_class(name).info
    return sorted({info.min_seats, info.default_seats, info.max_seats})


CASES = [(name, n) for name in GAMES for n in seat_counts(name)]


def _native() -> Any:
    from tablezoo.games import _native  # type: ignore[attr-defined]

    return _native


@pytest.mark.parametrize(("name", "seats"), CASES, ids=[f"{n}-{s}p" for n, s in CASES])
@pytest.mark.parametrize("reward", ["zero_sum", "score"])
def test_the_batch_plays_the_games_of_the_single_game_core(name: str, seats: int, reward: str) -> None:
    from tablezoo.envs.batched import SelfPlayBatch

    n_envs, seed = 5, 11
    batch = SelfPlayBatch(name, n_envs, seats, seed=seed, reward=reward, padded=(reward == "score"))
    game = make(name, seats, core="native")
    streams = [_native().Rng(_native().game_seed(seed, i)) for i in range(n_envs)]
    states = [game.initial_state() for _ in range(n_envs)]
    for i in range(n_envs):
        game.advance(states[i], streams[i])
    scores = [game.scores(s) for s in states]
    obs, infos = batch.reset()
    pick = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        for i, state in enumerate(states):
            mover = game.to_move(state)
            assert infos["to_move"][i] == mover
            expected = game.observe_padded(state, mover) if reward == "score" else game.observe(state, mover)
            assert obs[i].tobytes() == expected.tobytes()
            assert np.flatnonzero(infos["action_mask"][i]).tolist() == game.legal_actions(state)
        actions = np.array([pick.choice(game.legal_actions(s)) for s in states])
        obs, rewards, terminated, truncated, infos = batch.step(actions)
        for i, state in enumerate(states):
            game.apply(state, int(actions[i]))
            game.advance(state, streams[i])
            if reward == "score":
                now = game.scores(state)
                assert rewards[i].tolist() == pytest.approx(
                    [a - b for a, b in zip(now, scores[i], strict=True)]
                )
                scores[i] = now
            over = game.is_terminal(state)
            assert bool(terminated[i]) == over
            assert not truncated[i]
            if over:
                finished += 1
                if reward == "zero_sum":
                    assert rewards[i].tolist() == pytest.approx(game.returns(state))
                states[i] = game.initial_state()
                game.advance(states[i], streams[i])
                scores[i] = game.scores(states[i])
            elif reward == "zero_sum":
                assert not rewards[i].any()
    assert batch.state(0) is not None


@pytest.mark.parametrize("name", list(GAMES))
def test_the_games_do_not_depend_on_threads_or_batch_size(name: str) -> None:
    from tablezoo.envs.batched import SelfPlayBatch

    runs = []
    for n_envs, threads in [(8, 1), (8, 2), (3, 2)]:
        batch = SelfPlayBatch(name, n_envs, seed=5, num_threads=threads)
        obs, infos = batch.reset()
        seen = []
        for _ in range(60):
            actions = infos["action_mask"].argmax(axis=1)  # a deterministic policy
            obs, rewards, terminated, _, infos = batch.step(actions)
            seen.append((obs[:3].copy(), rewards[:3].copy(), terminated[:3].copy()))
        runs.append(seen)
    for other in runs[1:]:
        for (o1, r1, t1), (o2, r2, t2) in zip(runs[0], other, strict=True):
            assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(t1, t2)


def test_bad_input_is_named_and_changes_nothing() -> None:
    from tablezoo.envs.batched import SelfPlayBatch

    batch = SelfPlayBatch("heckmeck", 4, seed=0)
    obs, infos = batch.reset()
    before = obs.copy()
    legal = infos["action_mask"].argmax(axis=1)
    bad = legal.copy()
    bad[2] = 8  # steal: never legal at a keep decision
    with pytest.raises(IllegalActionError, match=r"game 2: action 8 is not legal .* legal moves: keep"):
        batch.step(bad)
    assert np.array_equal(batch.step(legal)[0].shape, before.shape)
    for actions, error in [
        (np.zeros(3, np.int64), ValueError),
        (np.zeros((4, 1), np.int64), ValueError),
        (np.zeros(4, np.float32), TypeError),
        (["a"] * 4, TypeError),
    ]:
        with pytest.raises(error):
            batch.step(actions)
    for kwargs in [{"num_envs": 0}, {"num_threads": 0}, {"reward": "money"}, {"illegal": "ignore"}]:
        with pytest.raises(ConfigError):
            SelfPlayBatch("heckmeck", **{"num_envs": 2, **kwargs})
    with pytest.raises(ConfigError):
        SelfPlayBatch("heckmeck", 2, 9)


def test_an_illegal_action_can_forfeit_its_game() -> None:
    from tablezoo.envs.batched import SelfPlayBatch

    batch = SelfPlayBatch("diamant", 3, 4, seed=0, illegal="forfeit", illegal_reward=-5.0)
    _, infos = batch.reset()
    mover = int(infos["to_move"][1])
    actions = infos["action_mask"].argmax(axis=1)
    actions[1] = 7  # out of range
    _, rewards, terminated, _, infos = batch.step(actions)
    assert terminated.tolist() == [False, True, False]
    assert infos["illegal_move"].tolist() == [False, True, False]
    assert rewards[1, mover] == -5.0 and rewards[1].sum() == -5.0


def test_max_cycles_truncates() -> None:
    from tablezoo.envs.batched import SelfPlayBatch

    batch = SelfPlayBatch("heckmeck", 2, 2, seed=0, max_cycles=3)
    _, infos = batch.reset()
    truncations = 0
    for _ in range(12):
        _, _, terminated, truncated, infos = batch.step(infos["action_mask"].argmax(axis=1))
        truncations += int(truncated.sum())
        assert not terminated.any()
    assert truncations > 0


@pytest.mark.parametrize("name", list(GAMES))
def test_the_vector_env_plays_the_learner_against_bots(name: str) -> None:
    import gymnasium

    from tablezoo.envs.batched import BatchedVectorEnv

    opponents = "heuristic" if make(name, core="native")._native.has_heuristic else "random"
    env = BatchedVectorEnv(name, 6, learner="random", opponents=opponents, seed=3, padded=True)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    obs, _ = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    episodes = 0
    for _ in range(300):
        masks = env.action_masks()
        assert masks.dtype == bool and masks.any(axis=1).all()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        obs, rewards, terminated, _, _ = env.step(actions)
        assert rewards.shape == (6,)
        episodes += int(terminated.sum())
        assert env.observation_space.contains(obs)
    assert episodes > 0
    with pytest.raises(ConfigError):
        BatchedVectorEnv(name, 2, learner=99)
    with pytest.raises(ConfigError):
        BatchedVectorEnv(name, 2, opponents="genius")


def test_one_batch_stepped_from_several_threads_steps_one_call_at_a_time() -> None:
    import threading

    from tablezoo.envs.batched import SelfPlayBatch

    batch = SelfPlayBatch("court", 16, seed=0, num_threads=2, illegal="forfeit")
    _, infos = batch.reset()

    def step() -> None:
        for _ in range(100):
            batch.step(infos["action_mask"].argmax(axis=1))
            batch.state(3)

    threads = [threading.Thread(target=step) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert batch.state(0) is not None
