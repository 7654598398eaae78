"""Expert iteration end to end on a tiny budget, resuming, and shipping the result as `agent`."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest

from tablezoo.bots import registry
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.search import AgentBot
from tablezoo.commands import build_parser
from tablezoo.games import make
from tablezoo.games.core import ConfigError
from tablezoo.training.expert.config import ExpertConfig
from tablezoo.training.expert.run import Recording, Samples, fit, play_one, run_expert

TINY = dict(
    teacher="heuristic",
    teacher_games=6,
    games=2,
    simulations=4,
    hidden=(16,),
    epochs=1,
    workers=1,
    eval_games=2,
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    return run_expert(ExpertConfig(game="diamant", out=str(out), teacher_rounds=2, rounds=3, **TINY))  # type: ignore[arg-type]


def test_a_run_saves_a_network_per_round_and_a_log(run: Path) -> None:
    log = [json.loads(line) for line in (run / "log.jsonl").open()]
    assert [e["iteration"] for e in log] == [0, 1, 2]
    players = ["teacher heuristic", "teacher heuristic with the network", "search=4"]
    assert [e["player"] for e in log] == players
    assert all(e["decisions"] > 0 and e["new_samples"] >= e["decisions"] for e in log)
    assert set(log[1]["against_heuristic"]) == {"3p", "4p"}
    for name in ("net.npz", "net-0.npz", "net-2.npz", "buffer.npz", "config.json"):
        assert (run / name).exists()
    net = PolicyValueNet.load(run / "net.npz")
    assert net.meta["iteration"] == 2 and net.meta["game"] == "diamant"
    for n in (3, 8):
        net.check_fits(make("diamant", n))


def test_a_run_resumes_after_its_last_round(run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "expert-diamant"
    copy.mkdir()
    for f in run.iterdir():
        copy.joinpath(f.name).write_bytes(f.read_bytes())
    config = ExpertConfig(game="diamant", out=str(tmp_path), teacher_rounds=2, rounds=4, **TINY)  # type: ignore[arg-type]
    run_expert(config)
    log = [json.loads(line) for line in (copy / "log.jsonl").open()]
    assert [e["iteration"] for e in log] == [0, 1, 2, 3]
    assert log[3]["buffer"] == log[2]["buffer"] + log[3]["new_samples"]


def test_gumbel_rounds_learn_from_the_batched_loop_and_measure_calibration(tmp_path: Path) -> None:
    config = ExpertConfig(
        game="sechs_nimmt",
        out=str(tmp_path),
        teacher_rounds=1,
        rounds=3,
        selfplay="gumbel",
        considered=3,
        gumbel_games=3,
        num_players=[2, 3],
        eval_bot="random",
        **(TINY | {"games": 5, "teacher_games": 2}),  # type: ignore[arg-type]
    )
    run = run_expert(config)
    log = [json.loads(line) for line in (run / "log.jsonl").open()]
    assert [e["player"] for e in log[1:]] == ["gumbel simulations=4 considered=3"] * 2
    for e in log[1:]:
        assert (
            0 < e["decisions"] < e["new_samples"]
        )  # the mover's decisions, and value-only rows where cards are dealt
        assert 0 <= e["value_ece"] <= 1 and 0 <= e["value_brier"] <= 1
        assert set(e["against_random"]) == {"2p", "4p"}
    buffer = Samples.load(run / "buffer.npz")
    with_policy = buffer.policy.sum(axis=1) > 0
    np.testing.assert_allclose(buffer.policy[with_policy].astype(np.float32).sum(axis=1), 1.0, atol=1e-2)
    assert not (buffer.policy.astype(np.float32)[~buffer.legal] > 0).any()
    with pytest.raises(ConfigError, match="--selfplay is one of search, gumbel, not 'mcts'"):
        ExpertConfig(game="diamant", selfplay="mcts")
    with pytest.raises(ConfigError, match="no bot 'oracle'"):
        ExpertConfig(game="diamant", eval_bot="oracle")


def test_gumbel_rounds_against_an_opponent_learn_its_games_searched_seat(tmp_path: Path) -> None:
    config = ExpertConfig(
        game="diamant",
        out=str(tmp_path),
        teacher_rounds=1,
        rounds=2,
        selfplay="gumbel",
        considered=2,
        gumbel_games=4,
        gumbel_opponent="heuristic",
        gumbel_opponent_share=1.0,
        num_players=[3],
        eval_bot="random",
        **(TINY | {"games": 4, "teacher_games": 2}),  # type: ignore[arg-type]
    )
    log = [json.loads(line) for line in (run_expert(config) / "log.jsonl").open()]
    assert log[1]["player"] == "gumbel simulations=4 considered=2 against heuristic in 1 of the games"
    assert log[1]["decisions"] > 0
    with pytest.raises(ConfigError, match="add --selfplay gumbel"):
        ExpertConfig(game="diamant", gumbel_opponent="heuristic")
    with pytest.raises(ConfigError, match=r"native bots \(heuristic, search\), not 'oracle'"):
        ExpertConfig(game="diamant", selfplay="gumbel", gumbel_opponent="oracle")


def test_gumbel_rounds_value_their_simulations_as_the_table_search_does(tmp_path: Path) -> None:
    config = ExpertConfig(
        game="sechs_nimmt",
        out=str(tmp_path),
        teacher_rounds=1,
        rounds=2,
        selfplay="gumbel",
        considered=2,
        gumbel_games=2,
        gumbel_leaf="end",
        gumbel_others="likeliest",
        num_players=[2],
        eval_bot="random",
        **(TINY | {"games": 2, "teacher_games": 2}),  # type: ignore[arg-type]
    )
    log = [json.loads(line) for line in (run_expert(config) / "log.jsonl").open()]
    assert log[1]["player"] == "gumbel simulations=4 considered=2 leaf=end others=likeliest"
    assert log[1]["decisions"] > 0
    with pytest.raises(ConfigError, match=r"--gumbel-leaf and --gumbel-others .* add --selfplay gumbel"):
        ExpertConfig(game="sechs_nimmt", gumbel_leaf="end")
    with pytest.raises(ConfigError, match="--gumbel-leaf is one of head, turn, end, not 'root'"):
        ExpertConfig(game="sechs_nimmt", selfplay="gumbel", gumbel_leaf="root")


def test_gumbel_rounds_can_teach_the_evidence_as_the_table_search_weighs_it(tmp_path: Path) -> None:
    config = ExpertConfig(
        game="heckmeck",
        out=str(tmp_path),
        teacher_rounds=1,
        rounds=2,
        selfplay="gumbel",
        considered=2,
        gumbel_games=2,
        gumbel_leaf="turn",
        gumbel_target="evidence",
        gumbel_confidence=0.5,
        num_players=[2],
        eval_bot="random",
        **(TINY | {"games": 2, "teacher_games": 2}),  # type: ignore[arg-type]
    )
    log = [json.loads(line) for line in (run_expert(config) / "log.jsonl").open()]
    assert log[1]["player"] == "gumbel simulations=4 considered=2 leaf=turn target=evidence(0.5)"
    assert log[1]["decisions"] > 0 and np.isfinite(log[1]["policy_loss"])
    with pytest.raises(ConfigError, match="--gumbel-target sets what --selfplay gumbel's games teach"):
        ExpertConfig(game="heckmeck", gumbel_target="evidence")
    with pytest.raises(ConfigError, match="--gumbel-target is one of sigma, evidence, not 'visits'"):
        ExpertConfig(game="heckmeck", selfplay="gumbel", gumbel_target="visits")
    with pytest.raises(ConfigError, match="--gumbel-confidence"):
        ExpertConfig(game="heckmeck", selfplay="gumbel", gumbel_confidence=0)


def test_the_evidence_policy_moves_each_logit_by_its_moves_standard_errors() -> None:
    from tablezoo.training.expert.search_selfplay import evidence_policy

    logits = np.log(np.array([[0.5, 0.3, 0.2, 1.0], [0.25, 0.25, 0.25, 0.25], [1, 1, 1, 1]]))

    def network(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return logits[: len(obs)], np.full(len(obs), 0.5)

    samples = {
        "obs": np.zeros((3, 5), dtype=np.float32),
        # row 0: three legal moves, the third never simulated; row 1: equal evidence; row 2: chance
        "mask": np.array([[1, 1, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0]], dtype=np.int8),
        "visits": np.array([[12, 4, 0, 0], [2, 2, 2, 2], [0, 0, 0, 0]], dtype=np.float32),
        "q": np.array([[0.75, 0.25, 0.6, 0.0], [0.5, 0.5, 0.5, 0.5], [0, 0, 0, 0]], dtype=np.float32),
    }
    policy = evidence_policy(network, samples, confidence=0.25)
    mean = (12 * 0.75 + 4 * 0.25) / 16  # 0.625
    spread = np.sqrt(mean * (1 - mean))
    z = np.log([0.5, 0.3, 0.2]) + 0.25 * (np.array([0.75, 0.25, mean]) - mean) * np.sqrt([12, 4, 0]) / spread
    expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert policy[0, :3] == pytest.approx(expected, rel=1e-5) and policy[0, 3] == 0
    assert policy[1] == pytest.approx([0.25] * 4), "no move better than another: the network's policy"
    assert not policy[2].any(), "a value-only row teaches no move"
    twice = evidence_policy(network, samples, confidence=0.5)
    assert twice[0, 0] > policy[0, 0] > 0.5, "more confidence, more weight on the evidence"
    with pytest.raises(ConfigError, match="confidence is above 0"):
        evidence_policy(network, samples, confidence=0.0)


def test_recorded_games_teach_the_mover_and_value_every_seat() -> None:
    samples = play_one(Recording(ExpertConfig(game="court"), seats=3, player="heuristic", seed=5))
    has_policy = samples.policy.sum(axis=1) > 0
    assert 0 < has_policy.sum() < len(samples)  # the mover's rows only (and not the random seats')
    assert np.allclose(samples.policy[has_policy].astype(np.float32).sum(axis=1), 1, atol=1e-2)
    assert samples.legal[has_policy].any(axis=1).all() and not (samples.policy[~samples.legal] > 0).any()
    assert set(np.unique(samples.value)) <= {0.0, 1 / 3, 0.5, 1.0}
    assert samples.obs.shape[1] == make("court", 3).padded_spec.size


def test_soft_targets_weigh_every_legal_move_by_the_teachers_values() -> None:
    soft = play_one(
        Recording(ExpertConfig(game="heckmeck", soft_targets=0.1), seats=2, player="solver", seed=3)
    )
    hard = play_one(Recording(ExpertConfig(game="heckmeck"), seats=2, player="solver", seed=3))
    assert np.array_equal(soft.obs, hard.obs)  # the same game: the teacher's moves are played
    taught = soft.policy.sum(axis=1) > 0
    assert np.array_equal(taught, hard.policy.sum(axis=1) > 0)
    p, one = soft.policy[taught].astype(np.float64), hard.policy[taught].astype(np.float64)
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-2)
    assert not (p[~soft.legal[taught]] > 0).any()  # illegal moves get nothing
    assert ((p > 0).sum(axis=1) > 1).mean() > 0.3  # near ties share the weight...
    assert (p.argmax(axis=1) == one.argmax(axis=1)).all()  # ...and the teacher's move has the most
    # 6 nimmt!'s search values its cards in heads: every searched card gets a share
    cards = play_one(
        Recording(
            ExpertConfig(game="sechs_nimmt", soft_targets=1.0),
            seats=2,
            player="search:samples=2,extra=2",
            seed=1,
        )
    )
    rows = cards.policy[cards.policy.sum(axis=1) > 0].astype(np.float64)
    assert len(rows) and np.allclose(rows.sum(axis=1), 1.0, atol=1e-2)
    assert ((rows > 0).sum(axis=1) > 1).mean() > 0.5
    # a teacher without action values teaches its move alone
    plain = play_one(
        Recording(ExpertConfig(game="diamant", soft_targets=0.5), seats=3, player="heuristic", seed=2)
    )
    rows = plain.policy[plain.policy.sum(axis=1) > 0]
    assert ((rows == 0) | (rows == 1)).all()
    with pytest.raises(ConfigError, match="--soft-targets is a temperature, 0 or more, not -1"):
        ExpertConfig(game="heckmeck", soft_targets=-1)


def test_imitation_with_the_network_still_learns_the_teachers_moves(tmp_path: Path) -> None:
    """DAgger: the network plays some of the teacher's seats; the targets stay the teacher's moves."""
    game = make("diamant", 4)
    learner = tmp_path / "net.npz"
    PolicyValueNet.initial(game, (8,), seed=3).save(learner)
    plain = [
        play_one(Recording(ExpertConfig(game="diamant"), seats=4, player="heuristic", seed=seed))
        for seed in range(8)
    ]
    mixed = [
        play_one(
            Recording(
                ExpertConfig(game="diamant"), seats=4, player="heuristic", seed=seed, learner=str(learner)
            )
        )
        for seed in range(8)
    ]
    for samples in mixed:
        rows = samples.policy[samples.policy.sum(axis=1) > 0].astype(np.float32)
        assert len(rows) and ((rows == 0) | (rows == 1)).all() and (rows.sum(axis=1) == 1).all()
    # the network's seats play other moves than the teacher would, so some games take another course
    assert any(len(a) != len(b) or (a.obs != b.obs).any() for a, b in zip(plain, mixed, strict=True))


@pytest.mark.parametrize("name", ["sechs_nimmt", "court"])
def test_fitting_copies_every_weight_in_and_out(name: str) -> None:
    """With a learning rate of 0 the trained network is the one it started from, action head included."""
    game = make(name, 3)
    net = PolicyValueNet.initial(game, (16, 8), seed=4)
    assert (net.head is not None) == (name == "sechs_nimmt")
    data = play_one(Recording(ExpertConfig(game=name), seats=3, player="heuristic", seed=1))
    config = ExpertConfig(game=name, epochs=1, learning_rate=0.0)
    same, losses = fit(net, data, config, seed=0)
    assert losses["policy_loss"] > 0 and losses["value_loss"] > 0
    x = data.obs[:5].astype(np.float32)
    for a, b in zip(same.forward(x), net.forward(x), strict=True):
        assert np.allclose(a, b, atol=1e-6)
    learnt, _ = fit(net, data, ExpertConfig(game=name, epochs=2), seed=0)
    assert not np.allclose(learnt.forward(x)[0], net.forward(x)[0])


def test_each_round_plays_the_network_of_the_round_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Played in this process (one worker), a round still reads the network file anew."""
    from tablezoo.training.expert import run as expert

    path = tmp_path / "net.npz"
    PolicyValueNet.initial(make("diamant", 3), (8,), seed=1).save(path)
    loads: list[str] = []
    real = PolicyValueNet.load
    monkeypatch.setattr(PolicyValueNet, "load", lambda p: loads.append(str(p)) or real(p))
    config = ExpertConfig(game="diamant", num_players=[3], **TINY)  # type: ignore[arg-type]
    for _ in range(2):
        expert.generate(config, str(path), 2, seed=0)
    assert loads == [str(path), str(path)]


def test_a_table_size_can_have_its_own_teacher(monkeypatch: pytest.MonkeyPatch) -> None:
    from tablezoo.training.expert import run as expert

    config = ExpertConfig(game="diamant", num_players=[3, 4], **{**TINY, "teacher_at": ["4=random"]})  # type: ignore[arg-type]
    assert (config.teacher_for(3), config.teacher_for(4)) == ("heuristic", "random")
    assert config.teachers == ["heuristic", "random"]  # what a round's log names as its teachers
    everywhere = ExpertConfig(game="diamant", num_players=[3, 4], teacher_at=["3=search", "4=search"])
    assert everywhere.teachers == ["search"]
    played: list[tuple[int, str]] = []

    def play_one(task: Recording) -> Samples:
        played.append((task.seats, task.player))
        return Samples.empty(1, 1)

    monkeypatch.setattr(expert, "play_one", play_one)
    expert.generate(config, config.teacher, 4, seed=0)
    assert played == [(3, "heuristic"), (4, "random"), (3, "heuristic"), (4, "random")]
    played.clear()  # a network's self-play rounds play the network at every table
    expert.generate(config, "net.npz", 2, seed=0)
    assert played == [(3, "net.npz"), (4, "net.npz")]
    args = build_parser().parse_args(["expert", "diamant", "--teacher-at", "4=random", "5=search"])
    assert args.teacher_at == ["4=random", "5=search"]
    for bad in ("9=random", "four=random", "4="):
        with pytest.raises(ConfigError, match=r"--teacher-at takes SEATS=BOT .*\[3, 4\]"):
            ExpertConfig(game="diamant", num_players=[3, 4], teacher_at=[bad])


def test_settings_out_of_range_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"2 to 5 players, not \[6\]"):
        ExpertConfig(game="court", num_players=[6])
    with pytest.raises(ConfigError, match="--simulations is at least 1"):
        ExpertConfig(game="court", simulations=0)
    with pytest.raises(ConfigError, match=r"--rounds is at least 1 \(imitation only\), not 0"):
        ExpertConfig(game="court", rounds=0)


def test_ship_writes_the_agent_and_a_card_with_every_seat_count(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tablezoo.release import ship

    monkeypatch.setattr(ship, "AGENTS_DIR", tmp_path)
    monkeypatch.setattr(registry, "AGENTS_DIR", tmp_path)
    ship.main([str(run), "--games", "3", "--search", "2", "--search-games", "2", "--jobs", "1"])
    card = (tmp_path / "diamant.md").read_text()
    for n in range(3, 9):
        assert f"| {n} | `agent` | heuristic | 3 |" in card
    assert "| 4 | `agent:search=2` |" in card and "target |" in card
    expert = re.findall(r"`(tablezoo expert [^`]*)`", card)[0]
    args = build_parser().parse_args(shlex.split(expert)[1:])
    assert args.teacher_games == 6 and args.simulations == 4 and args.hidden == [16]
    assert args.teacher == "heuristic" and args.teacher_rounds == 2
    assert args.rounds == 3  # the rounds the run played, not the ones it was allowed
    assert "2 rounds: the first with the teacher" in card and "then 1 round of self-play" in card
    ship_line = re.findall(r"`(python -m tablezoo.release.ship [^`]*)`", card)[0]
    assert "--games 3 --search 2 --search-games 2" in ship_line and "--jobs" not in ship_line
    results = json.loads((tmp_path / "diamant.json").read_text())
    assert {r["seats"] for r in results} == set(range(3, 9))
    # the shipped agent now sits at every seat count, alone or searching
    assert registry.agent_seats("diamant") == list(range(3, 9))
    for n in (3, 8):
        game = make("diamant", n)
        assert "agent" in registry.bot_names(game)
        bot = registry.make_bot("agent:search=3", game)
        assert isinstance(bot, AgentBot) and bot.simulations == 3
    with pytest.raises(ConfigError, match=r"takes search=0, c_puct=1\.5, horizon=0"):
        registry.make_bot("agent:depth=3", make("diamant", 4))


def test_ship_can_take_an_earlier_round(run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tablezoo.release import ship

    monkeypatch.setattr(ship, "AGENTS_DIR", tmp_path)
    ship.main([str(run), "--round", "0", "--games", "2", "--search", "0", "--jobs", "1"])
    shipped, chosen = PolicyValueNet.load(tmp_path / "diamant.npz"), PolicyValueNet.load(run / "net-0.npz")
    assert all(np.array_equal(a, b) for a, b in zip(shipped.weights, chosen.weights, strict=True))
    assert shipped.meta == {**chosen.meta, "recipe": shipped.meta["recipe"]}
    assert "--rounds 1" in shipped.meta["recipe"][0] and "--round 0" in shipped.meta["recipe"][1]
    card = (tmp_path / "diamant.md").read_text()
    assert "| 0 | teacher heuristic |" in card
    assert not any(line.startswith("| 1 |") for line in card.splitlines())  # no line of round 1
    assert "--rounds 1" in card and "--round 0" in card
    with pytest.raises(SystemExit):
        ship.main([str(run), "--round", "3"])


def test_ship_can_average_the_last_rounds(run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tablezoo.release import ship

    monkeypatch.setattr(ship, "AGENTS_DIR", tmp_path)
    ship.main([str(run), "--round", "2", "--average", "2", "--games", "2", "--search", "0", "--jobs", "1"])
    shipped = PolicyValueNet.load(tmp_path / "diamant.npz")
    one, two = (PolicyValueNet.load(run / f"net-{k}.npz") for k in (1, 2))
    assert all(
        np.allclose(s, (x + y) / 2) for s, x, y in zip(shipped.weights, one.weights, two.weights, strict=True)
    )
    assert shipped.meta["iteration"] == 2 and "--round 2 --average 2" in shipped.meta["recipe"][-1]
    card = (tmp_path / "diamant.md").read_text()
    assert "the mean of the weights of rounds 1 to 2" in card and "| 2 |" in card
    for bad in ("0", "4"):
        with pytest.raises(SystemExit):
            ship.main([str(run), "--round", "2", "--average", bad])


def test_samples_keep_the_latest() -> None:
    parts = [
        Samples(
            np.full((k, 2), k, np.uint8),
            np.ones((k, 3), bool),
            np.zeros((k, 3), np.float16),
            np.full(k, k, np.float32),
        )
        for k in (1, 2, 3)
    ]
    tail = Samples.join(parts).tail(4)
    assert tail.value.tolist() == [2, 3, 3, 3]


def test_samples_round_trip_and_old_files_learn_over_every_move(tmp_path: Path) -> None:
    samples = play_one(Recording(ExpertConfig(game="diamant"), seats=3, player="heuristic", seed=2))
    samples.save(tmp_path / "s.npz")
    again = Samples.load(tmp_path / "s.npz")
    for name in ("obs", "legal", "policy", "value"):
        assert np.array_equal(getattr(again, name), getattr(samples, name))
    np.savez(tmp_path / "old.npz", obs=samples.obs, policy=samples.policy, value=samples.value)
    assert Samples.load(tmp_path / "old.npz").legal.all()


def test_opening_turn_worms_are_exact() -> None:
    from tablezoo.bots.heckmeck import HeckmeckGreedyBot, HeckmeckSolverBot, TurnSolver
    from tablezoo.release.cards import opening_section
    from tablezoo.release.ship import opening_turn_worms

    optimum = TurnSolver(list(range(21, 37)), [], []).before_roll(0, 8, 0)
    assert opening_turn_worms(HeckmeckSolverBot()) == pytest.approx(optimum, abs=1e-12)
    greedy = opening_turn_worms(HeckmeckGreedyBot())
    assert 0.5 < greedy < optimum  # a rule of thumb wins worms, but fewer than the optimum
    section = opening_section(greedy, optimum)
    assert f"| `agent` | {greedy:.3f} |" in section and "not met (short by" in section
    assert "met |" in opening_section(optimum, optimum)


def test_move_times_count_only_positions_with_a_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    from tablezoo.release import ship

    choices: list[int] = []

    class Counting:
        def act(self, seat: object) -> int:
            choices.append(len(seat.legal))  # type: ignore[attr-defined]
            return int(seat.legal[0])  # type: ignore[attr-defined]

    monkeypatch.setattr(ship, "make_bot", lambda name, game: Counting())
    assert ship.move_times("any", "heckmeck", 2, 40, seed=3) >= 0
    assert len(choices) == 40 and min(choices) > 1


def test_commands_and_run_folders_from_before_rounds_were_counted_still_read(tmp_path: Path) -> None:
    """``--iterations K`` and a saved ``iterations`` were the last round's index: ``rounds`` K+1."""
    from tablezoo.release.recipe import expert_command
    from tablezoo.release.reproduce import _check_resumable
    from tablezoo.training.expert.config import parse_expert

    assert parse_expert(["diamant", "--iterations", "3"]).rounds == 4
    assert parse_expert(["diamant", "--rounds", "3"]).rounds == 3
    with pytest.raises(ConfigError, match=r"--iterations K is --rounds K\+1: give one of them"):
        parse_expert(["diamant", "--iterations", "3", "--rounds", "4"])
    # a config.json of that time: iterations, and none of the settings the code fixed then
    new = ("random_seats", "dagger_share", "ppo_clip", "gae_lambda", "entropy", "target_kl")
    new += ("league_batch_size", "root_noise", "dirichlet_alpha", "last_step_size", "weight_decay")
    old = {k: v for k, v in asdict(ExpertConfig(game="diamant", out=str(tmp_path))).items() if k not in new}
    old = {("iterations" if k == "rounds" else k): (5 if k == "rounds" else v) for k, v in old.items()}
    settings = ExpertConfig.saved(old)
    assert settings["rounds"] == 6 and list(settings).index("rounds") == list(old).index("iterations")
    config = ExpertConfig(**settings)
    assert (config.root_noise, config.dirichlet_alpha, config.random_seats, config.dagger_share) == (
        0.25, 0.3, 0.25, 0.5
    )  # fmt: skip
    assert (config.weight_decay, config.last_step_size, config.ppo_clip, config.league_batch_size) == (
        1e-5, 0.1, 0.2, 2048
    )  # fmt: skip
    assert expert_command(old, 3) == f"tablezoo expert diamant --out {tmp_path} --rounds 3"
    config.run_dir.mkdir()
    (config.run_dir / "config.json").write_text(json.dumps(old))
    _check_resumable(replace(config, rounds=9))  # the same run, more rounds
    with pytest.raises(ConfigError, match=r"holds a run with other settings \(root_noise\)"):
        _check_resumable(replace(config, root_noise=0.5))
    with pytest.raises(ConfigError, match=r"settings this version does not have \(bigger\)"):
        ExpertConfig.saved({**old, "bigger": 1})


def test_a_run_saved_with_seats_still_loads_and_warns(tmp_path: Path) -> None:
    """Runs before 0.7 saved their seat counts as ``seats``: read as ``num_players``, with a warning,
    resumed as the same run, and recorded by the command they would be run by now."""
    from tablezoo.release.cards import seat_counts
    from tablezoo.release.recipe import expert_command
    from tablezoo.release.reproduce import _check_resumable

    now = asdict(ExpertConfig(game="diamant", out=str(tmp_path), num_players=[3, 4]))
    old = {("seats" if k == "num_players" else k): v for k, v in now.items()}
    with pytest.warns(DeprecationWarning, match="'seats': read as 'num_players'"):
        settings = ExpertConfig.saved(old)
    assert settings == now and list(settings) == list(now)  # in its place
    config = ExpertConfig(**settings)
    assert config.num_players == [3, 4] == seat_counts(old) == seat_counts(now)
    with pytest.warns(DeprecationWarning, match="ExpertConfig.seats is ExpertConfig.num_players"):
        assert config.seats == [3, 4]
    with pytest.warns(DeprecationWarning):
        assert expert_command(old, 3) == f"tablezoo expert diamant --out {tmp_path} --rounds 3 --players 3 4"
    config.run_dir.mkdir()
    (config.run_dir / "config.json").write_text(json.dumps(old))
    with pytest.warns(DeprecationWarning):
        _check_resumable(config)  # the same run
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(ConfigError, match=r"other settings \(num_players\)"),
    ):
        _check_resumable(replace(config, num_players=[3]))


def test_a_run_resumes_by_its_saved_settings(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tablezoo.commands import main

    copy = tmp_path / "expert-diamant"
    shutil.copytree(run, copy)
    main(["expert", "diamant", "--resume", str(copy), "--rounds", "4", "--workers", "1"])
    log = [json.loads(line) for line in (copy / "log.jsonl").open()]
    assert [e["iteration"] for e in log] == [0, 1, 2, 3] and log[3]["player"] == "search=4"
    saved = json.loads((copy / "config.json").read_text())
    assert saved["rounds"] == 4 and saved["teacher_games"] == 6 and saved["out"] == str(tmp_path)
    with pytest.raises(
        SystemExit, match="--resume goes on with the run's own settings: --games cannot change"
    ):
        main(["expert", "diamant", "--resume", str(copy), "--games", "3"])
    with pytest.raises(SystemExit, match="not a run folder of court"):
        main(["expert", "court", "--resume", str(copy)])


@pytest.mark.parametrize("core", ["python", "native"])
def test_the_search_noise_of_self_play_is_the_runs_setting(core: str) -> None:
    """On either core (the native one searches in the core where it can)."""
    from tablezoo.bots.core import Seat
    from tablezoo.games.native import available
    from tablezoo.training.expert.run import search_choice

    if core == "native" and not available():
        pytest.skip("the native core is not built")
    game = make("diamant", 3, core=core)
    net = PolicyValueNet.initial(game, (8,), seed=1)
    state = game.initial_state()
    at = Seat.of(game, state, game.advance(state, np.random.default_rng(0)))
    assert len(at.legal) == 2  # go on or leave: noise to mix in

    def visits(**settings: float) -> np.ndarray:
        config = ExpertConfig(game="diamant", simulations=8, **settings)  # type: ignore[arg-type]
        return search_choice(config, game, net, np.random.default_rng(3))(at)[1]

    assert np.array_equal(visits(), visits(root_noise=0.25, dirichlet_alpha=0.3))
    assert not np.array_equal(visits(root_noise=1.0), visits(root_noise=1.0, dirichlet_alpha=20.0))
