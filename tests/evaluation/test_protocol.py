"""Scoring any policy (evaluation.policies) and the benchmark protocol (evaluation.protocol)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import AGENTS_DIR, make_bot
from tablezoo.commands import main
from tablezoo.evaluation import protocol, provenance, stats
from tablezoo.evaluation.aggregate import aggregate
from tablezoo.evaluation.compare import compare
from tablezoo.evaluation.policies import FunctionBot, Reading, as_bot
from tablezoo.evaluation.protocol import (
    PANELS,
    SEATS,
    cell_seeds,
    evaluate,
    normalised,
    play_cell,
    run_protocol,
)
from tablezoo.evaluation.stats import mean_interval, wilson
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError

torch = pytest.importorskip("torch")


def positions(game_name: str, seats: int, n: int = 30, seed: int = 0) -> list[Seat]:
    """Seats to decide at, from random play."""
    game = make(game_name, seats)
    rng = np.random.default_rng(seed)
    out: list[Seat] = []
    bot = make_bot("random", game)
    while len(out) < n:
        state = game.initial_state()
        while (mover := game.advance(state, rng)) >= 0 and len(out) < n:
            out.append(Seat(game, game.clone(state), mover))
            game.apply(state, bot.act(Seat(game, state, mover)))
    return out


def same_moves(a: object, b: object, game_name: str = "diamant", seats: int = 4) -> bool:
    game = make(game_name, seats)
    bot_a, bot_b = as_bot(a, game), as_bot(b, game)
    return all(bot_a.act(s) == bot_b.act(s) for s in positions(game_name, seats))


# --------------------------------------------------------------------------- the protocol


def test_protocol_covers_every_game_with_smallest_four_and_largest_seats() -> None:
    for name in GAMES:
        info = game_class(name).info
        assert SEATS[name][0] == info.min_seats and SEATS[name][-1] == info.max_seats
        assert 4 in SEATS[name] or info.max_seats < 4
        assert PANELS[name][:2] == ("random", "heuristic")


def test_seeds_are_fixed_and_shared_by_every_policy() -> None:
    first = cell_seeds("diamant", 4, 10)
    assert np.array_equal(first, cell_seeds("diamant", 4, 10))
    assert np.array_equal(first, cell_seeds("diamant", 4, 1000)[:10])
    assert not np.array_equal(first, cell_seeds("diamant", 5, 10))
    assert not np.array_equal(first, cell_seeds("heckmeck", 4, 10))


def test_policy_takes_every_seat_in_turn_and_credits_ties() -> None:
    game = make("diamant", 3)
    cell = play_cell("heuristic", game, "heuristic", games=30)
    assert cell.games == 30 and len(cell.scores) == 30
    assert all(0 <= c <= 1 for c in cell.credits)
    # three heuristics: the credits of the three seats of a game sum to 1; here one seat a game
    assert abs(cell.win_share - 1 / 3) < 0.3


def test_jobs_do_not_change_the_result() -> None:
    game = make("court", 2)
    one = evaluate("heuristic", game, "random", games=12)
    two = evaluate("heuristic", game, "random", games=12, jobs=2)
    assert one.credits == two.credits and one.scores == two.scores


def test_a_policy_compared_with_itself_differs_by_exactly_nothing() -> None:
    result = compare("heuristic", "heuristic", "diamant", seats=[3], opponents=["random"], games=20)
    assert result["difference"] == 0.0
    assert result["cells"][0]["difference_95ci"] == [0.0, 0.0]


def test_comparison_finds_the_better_policy() -> None:
    result = compare("heuristic", "random", "court", seats=[2], opponents=["random"], games=60)
    low, high = result["difference_95ci"]
    assert 0 < low <= result["difference"] <= high


def test_result_carries_protocol_version_seeds_and_policy_hash(tmp_path: object) -> None:
    result = run_protocol("heuristic", "court", seats=[2], opponents=["random"], games=10)
    assert result["protocol"] == protocol.PROTOCOL and result["complete"] is False
    assert result["seeds"]["base"] == protocol.SEED_BASE and "2" in result["seeds"]["sha256"]
    assert len(result["policy"]["sha256"]) == 64
    cell = result["cells"][0]
    assert cell["games"] == 10 and cell["win_share_95ci"][0] <= cell["win_share"] <= cell["win_share_95ci"][1]
    json.dumps(result)


def test_policy_hash_follows_the_file(tmp_path: object) -> None:
    path = AGENTS_DIR / "diamant.npz"
    assert provenance.policy_hash(path) == provenance.policy_hash(str(path))
    assert provenance.policy_hash(path) != provenance.policy_hash(AGENTS_DIR / "heckmeck.npz")


def test_intervals() -> None:
    low, high = wilson(0.0, 100)
    assert low == 0.0 and 0 < high < 0.05
    low, high = wilson(0.5, 1000)
    assert math.isclose(0.5 - low, high - 0.5, rel_tol=1e-6) and 0.46 < low < 0.47
    # Student's t quantiles from the tables: 2.570582 (5), 2.228139 (10), 2.042272 (30)
    for dof, table in ((5, 2.570582), (10, 2.228139), (30, 2.042272)):
        assert stats.t_quantile(0.975, dof) == pytest.approx(table, abs=3e-3)
    low, high = mean_interval(np.array([1.0, 2.0, 3.0, 4.0]))
    assert low < 2.5 < high and math.isclose(2.5 - low, high - 2.5)


def test_normalised_score_puts_random_at_zero_and_heuristic_at_one() -> None:
    defined = 0
    for game_name, seats_refs in protocol.REFERENCES.items():
        for seats, ends in seats_refs.items():
            fair = 1 / seats
            for opponent, low, high in (
                ("heuristic", ends.random_vs_heuristic, fair),
                ("random", fair, ends.heuristic_vs_random),
            ):
                if high - low < protocol.MIN_GAP:  # heuristic does not beat random here: no scale
                    assert normalised(game_name, seats, opponent, 0.5) is None
                    continue
                defined += 1
                assert normalised(game_name, seats, opponent, low) == pytest.approx(0)
                assert normalised(game_name, seats, opponent, high) == pytest.approx(1)
    assert defined >= 20
    assert normalised("diamant", 4, PANELS["diamant"][2], 0.3) is None


def test_every_protocol_seat_count_has_its_references() -> None:
    for game_name in GAMES:
        assert set(protocol.REFERENCES[game_name]) == set(SEATS[game_name])


def fake_result(scores: list[float], seed: int = 0, games: int = 10) -> dict[str, object]:
    cells = [
        {"opponent": "heuristic", "seats": n, "games": games, "normalised": s}
        for n, s in zip((2, 4, 5), scores, strict=True)
    ]
    policy = {"given": f"seed{seed}", "sha256": f"{seed:064d}", "training_seed": seed}
    return {"protocol": protocol.PROTOCOL, "game": "court", "policy": policy, "cells": cells}


def test_aggregate_over_training_seeds() -> None:
    pytest.importorskip("rliable")
    runs = [fake_result([s, s + 0.1, s + 0.2], k) for k, s in enumerate((0.1, 0.2, 0.3, 0.4, 0.5))]
    result = aggregate(runs, reps=200)
    values = np.array([r["cells"][i]["normalised"] for r in runs for i in range(3)])  # type: ignore[index]
    assert result["runs"] == 5 and result["mean"] == pytest.approx(values.mean(), abs=1e-4)
    assert result["iqm_95ci"][0] <= result["iqm"] <= result["iqm_95ci"][1]


def test_aggregate_refuses_mixed_results() -> None:
    other = {**fake_result([0.1, 0.2, 0.3], 1), "game": "diamant"}
    with pytest.raises(ConfigError, match="one game"):
        aggregate([fake_result([0.1, 0.2, 0.3]), other])


# --------------------------------------------------------------------------- any policy


def test_a_bot_and_a_bot_name_are_themselves() -> None:
    game = make("diamant", 4)
    bot = make_bot("heuristic", game)
    assert as_bot(bot, game) is bot
    assert same_moves("heuristic", make_bot("heuristic", game))


def test_a_callable_is_asked_with_observation_and_mask() -> None:
    seen: list[tuple[int, int]] = []

    def last_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        seen.append((observation.size, mask.size))
        return int(np.flatnonzero(mask)[-1])

    game = make("heckmeck", 3)
    cell = evaluate(last_legal, game, "random", games=3, observation="plain", scaled=False)
    assert cell.games == 3
    assert set(seen) == {(game.observation_spec.size, game.num_actions)}


def test_a_callable_answering_logits_plays_the_best_legal_one() -> None:
    game = make("sechs_nimmt", 4)
    bot = as_bot(lambda o, m: np.arange(game.num_actions, dtype=float), game, None, "plain", False)
    for seat in positions("sechs_nimmt", 4, 10):
        assert bot.act(seat) == int(np.flatnonzero(seat.mask)[-1])


def test_a_torch_module_reads_the_layout_its_first_layer_declares() -> None:
    game = make("diamant", 4)
    for size, padded in ((game.observation_spec.size, False), (game.padded_spec.size, True)):
        net = torch.nn.Sequential(
            torch.nn.Linear(size, 16), torch.nn.Tanh(), torch.nn.Linear(16, game.num_actions)
        )
        bot = as_bot(net, game, scaled=False)
        assert isinstance(bot, FunctionBot)
        assert bot.reading == Reading(
            padded=padded, scaled=False, source="layout: its input size; scaling: caller"
        )
        for seat in positions("diamant", 4, 5):
            logits = net(torch.as_tensor(bot.reading.read(seat)[None])).detach().numpy()[0]
            assert bot.act(seat) == int(np.argmax(np.where(seat.mask > 0, logits, -np.inf)))


def test_a_misfit_is_refused_naming_both_sizes() -> None:
    game = make("diamant", 4)
    net = torch.nn.Sequential(torch.nn.Linear(7, game.num_actions))
    with pytest.raises(
        ConfigError, match=rf"7 entries.*{game.observation_spec.size}.*{game.padded_spec.size}"
    ):
        as_bot(net, game)
    with pytest.raises(ConfigError, match="cannot play"):
        as_bot(42, game)


def test_a_file_policy_that_does_not_exist_is_named() -> None:
    with pytest.raises(ConfigError, match="no policy file"):
        as_bot("runs/nothing/policy.npz", make("diamant", 4))


def test_an_sb3_model_and_its_zip_play_alike(tmp_path: object) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import gymnasium

    import tablezoo.envs  # noqa: F401  (registers the ids)

    env = gymnasium.make("tablezoo/Diamant-v0", num_players=4, scale_observations=True)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32)
    path = tmp_path / "model.zip"  # type: ignore[operator]
    model.save(path)
    bot = as_bot(path, make("diamant", 4))
    assert isinstance(bot, FunctionBot)
    assert bot.reading == Reading(padded=False, scaled=True, source="its observation space")
    assert same_moves(model, str(path))


def test_a_dqn_model_plays_its_greedy_legal_q_value(tmp_path: object) -> None:
    sb3 = pytest.importorskip("stable_baselines3")
    import gymnasium

    import tablezoo.envs  # noqa: F401

    env = gymnasium.make("tablezoo/Heckmeck-v0", num_players=2)
    model = sb3.DQN("MlpPolicy", env, seed=0, learning_starts=0)
    path = tmp_path / "dqn.zip"  # type: ignore[operator]
    model.save(path)
    cell = evaluate(str(path), make("heckmeck", 2), "random", games=4)
    assert cell.games == 4


def test_an_onnx_export_plays_the_agents_moves(tmp_path: object) -> None:
    pytest.importorskip("onnxruntime")
    from tablezoo.release.export import export_policy

    game = make("diamant", 4)
    onnx_path, _ = export_policy(AGENTS_DIR / "diamant.npz", game, tmp_path / "diamant")  # type: ignore[operator]
    assert same_moves(str(onnx_path), "agent")
    padded, _ = export_policy(AGENTS_DIR / "diamant.npz", game, tmp_path / "pad", padded=True)  # type: ignore[operator]
    assert same_moves(str(padded), "agent")


def test_an_rllib_module_checkpoint_plays(tmp_path: object) -> None:
    pytest.importorskip("ray.rllib")
    from tablezoo.training.rllib.backend import MaskedMLPModule
    from tablezoo.wrappers.rllib import RLlibEnv

    game = make("court", 3)
    env = RLlibEnv({"env": "court_v0", "num_players": 3})
    agent = env.possible_agents[0]
    module = MaskedMLPModule(
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={"hidden": [16]},
    )
    module.save_to_path(str(tmp_path))
    bot = as_bot(str(tmp_path), game)
    assert isinstance(bot, FunctionBot) and bot.reading.scaled
    assert evaluate(str(tmp_path), game, "random", games=3).games == 3


# --------------------------------------------------------------------------- the command


def test_command_prints_a_table_or_json(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    out = tmp_path / "r.json"  # type: ignore[operator]
    main(
        [
            "benchmark",
            "court",
            "heuristic",
            "--players",
            "2",
            "--opponents",
            "random",
            "--games",
            "6",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert "win share" in text and "{" not in text
    assert json.loads(out.read_text())["cells"][0]["games"] == 6
    main(
        [
            "benchmark",
            "court",
            "--compare",
            "heuristic",
            "random",
            "--players",
            "2",
            "--opponents",
            "random",
            "--games",
            "6",
            "--json",
        ]
    )
    assert "difference" in json.loads(capsys.readouterr().out)


def test_evaluate_command_takes_a_policy_file_and_names_what_it_takes(
    capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    pytest.importorskip("onnxruntime")
    from tablezoo.release.export import export_policy

    onnx_path, _ = export_policy(AGENTS_DIR / "heckmeck.npz", make("heckmeck", 2), tmp_path / "h")  # type: ignore[operator]
    main(["evaluate", "heckmeck", "--bots", str(onnx_path), "random", "--games", "4"])
    assert "h" in capsys.readouterr().out
    with pytest.raises(SystemExit, match=r"no bot 'nonsense'.*\.onnx"):
        main(["evaluate", "heckmeck", "--bots", "nonsense", "random", "--games", "4"])
