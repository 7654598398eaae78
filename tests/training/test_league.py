"""League rounds: the network's own games against the league, and the policy-gradient fit on them."""

from __future__ import annotations

import itertools
import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tablezoo.bots.net import PolicyValueNet, masked_softmax
from tablezoo.commands import build_parser
from tablezoo.games import make
from tablezoo.games.core import ConfigError
from tablezoo.training.expert.config import ExpertConfig
from tablezoo.training.expert.league import Episodes, LeagueGame, advantages, improve, play_league
from tablezoo.training.expert.run import run_expert


@pytest.fixture(scope="module")
def net_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("net") / "net.npz"
    PolicyValueNet.initial(make("sechs_nimmt", 3), (16,), seed=2).save(path)
    return str(path)


def test_advantages_run_from_the_value_heads_estimates_to_the_final_share() -> None:
    values = np.array([0.5, 0.25, 0.75], np.float32)
    # lambda 1: the final share less each estimate; lambda 0: one step of the estimates
    assert np.allclose(advantages(values, 1.0, lam=1.0), [0.5, 0.75, 0.25])
    assert np.allclose(advantages(values, 1.0, lam=0.0), [-0.25, 0.5, 0.25])
    assert np.allclose(
        advantages(values, 0.0, lam=0.5), [-0.25 + 0.5 * (0.5 + 0.5 * -0.75), 0.5 - 0.375, -0.75]
    )


def test_a_league_game_records_the_networks_moves_only(net_file: str) -> None:
    net = PolicyValueNet.load(net_file)
    for seed in range(6):
        games = play_league(
            LeagueGame(
                ExpertConfig(game="sechs_nimmt", league=["heuristic", "self"]),
                seats=3,
                net=net_file,
                seed=seed,
            )
        )
        assert len(games) >= 10  # at least one seat of ten cards
        assert (games.seats == 3).all()
        assert games.legal[np.arange(len(games)), games.action].all()
        assert set(np.unique(games.share)) <= {0.0, 1 / 3, 0.5, 1.0}
        # each move's log-probability is the playing network's, over the legal moves
        logits, _ = net.forward(games.obs.astype(np.float32))
        for row in range(0, len(games), 7):
            legal = np.flatnonzero(games.legal[row])
            p = masked_softmax(logits[row], legal)
            assert np.isclose(np.log(p[list(legal).index(games.action[row])]), games.logp[row], atol=1e-4)
    # a league of the network alone plays every seat; without 'self', the network plays one seat
    alone = play_league(
        LeagueGame(ExpertConfig(game="sechs_nimmt", league=["self"]), seats=3, net=net_file, seed=0)
    )
    assert set(alone.seat.tolist()) == {0, 1, 2} and alone.share.max() > 0
    for seed in range(4):
        assert (
            len(
                set(
                    play_league(
                        LeagueGame(
                            ExpertConfig(game="sechs_nimmt", league=["random"]),
                            seats=4,
                            net=net_file,
                            seed=seed,
                        )
                    ).seat.tolist()
                )
            )
            == 1
        )
    counts = {
        len(
            set(
                play_league(
                    LeagueGame(
                        ExpertConfig(game="sechs_nimmt", league=["random", "self"]),
                        seats=4,
                        net=net_file,
                        seed=s,
                    )
                ).seat.tolist()
            )
        )
        for s in range(12)
    }
    assert len(counts) > 1 and counts <= {1, 2, 3, 4}


def test_the_fit_makes_good_moves_likelier_and_bad_ones_rarer(net_file: str) -> None:
    net = PolicyValueNet.load(net_file)
    games = Episodes.join(
        [
            play_league(
                LeagueGame(
                    ExpertConfig(game="sechs_nimmt", league=["heuristic"]), seats=3, net=net_file, seed=s
                )
            )
            for s in range(8)
        ]
    )
    rng = np.random.default_rng(0)
    good = rng.random(len(games)) < 0.5
    games.advantage = np.where(good, 1.0, -1.0).astype(np.float32)
    config = ExpertConfig(game="sechs_nimmt", epochs=3, league_learning_rate=1e-2)
    new, stats = improve(net, games, config, seed=0)
    assert {"policy_loss", "value_loss", "entropy", "kl", "epochs", "share_over_fair"} <= set(stats)

    def logp(n: PolicyValueNet) -> np.ndarray:
        logits, _ = n.forward(games.obs.astype(np.float32))
        rows = [np.log(masked_softmax(logits[i], np.flatnonzero(games.legal[i]))) for i in range(len(games))]
        return np.array(
            [r[list(np.flatnonzero(games.legal[i])).index(games.action[i])] for i, r in enumerate(rows)]
        )

    change = logp(new) - logp(net)
    assert change[good].mean() > 0 > change[~good].mean()
    same, _ = improve(
        net, games, ExpertConfig(game="sechs_nimmt", epochs=1, league_learning_rate=0.0), seed=0
    )
    x = games.obs[:5].astype(np.float32)
    for a, b in zip(same.forward(x), net.forward(x), strict=True):
        assert np.allclose(a, b, atol=1e-6)


def test_a_run_with_league_rounds_logs_them_and_resumes(tmp_path: Path) -> None:
    settings = dict(
        teacher="heuristic",
        teacher_games=4,
        league_games=4,
        hidden=(16,),
        epochs=1,
        workers=1,
        eval_games=2,
        teacher_rounds=1,
        league_rounds=2,
    )
    run = run_expert(ExpertConfig(game="diamant", out=str(tmp_path), rounds=2, **settings))  # type: ignore[arg-type]
    run_expert(ExpertConfig(game="diamant", out=str(tmp_path), rounds=3, **settings))  # type: ignore[arg-type]
    log = [json.loads(line) for line in (run / "log.jsonl").open()]
    assert [e["player"] for e in log] == ["teacher heuristic", *["league of heuristic, self"] * 2]
    assert all(e["decisions"] > 0 and "kl" in e and e["share_over_fair"] for e in log[1:])
    assert PolicyValueNet.load(run / "net.npz").meta["iteration"] == 2


def test_league_settings_out_of_range_are_refused() -> None:
    with pytest.raises(ConfigError, match="no bot 'nobody' for To Court the King"):
        ExpertConfig(game="court", league=["heuristic", "nobody"])
    with pytest.raises(ConfigError, match="--league-rounds and --league-learning-rate are 0 or more"):
        ExpertConfig(game="court", league_rounds=-1)
    args = build_parser().parse_args(
        ["expert", "court", "--league-rounds", "3", "--league", "heuristic", "self"]
    )
    assert (args.league_rounds, args.league) == (3, ["heuristic", "self"])


def test_a_card_says_how_many_league_rounds_were_played() -> None:
    from dataclasses import asdict

    from tablezoo.release.cards import _training_text
    from tablezoo.release.recipe import expert_command

    config = asdict(ExpertConfig(game="court", teacher_rounds=2, league_rounds=10, rounds=12))
    # the run stopped after 5 rounds: 2 of imitation and 3 of the league
    assert (
        expert_command(config, 5) == "tablezoo expert court --teacher-rounds 2 --league-rounds 3 --rounds 5"
    )
    text = _training_text(config, 5)
    assert "then 3 rounds of policy gradient (PPO, 2000 games a round, step size 0.0006)" in text
    assert "`heuristic`, `self`" in text and "network-guided search" not in text
    # with a falling step size the league rounds set its schedule: the command keeps their number
    falling = {**config, "league_learning_rate_end": 1e-4}
    assert expert_command(falling, 5) == (
        "tablezoo expert court --teacher-rounds 2 --league-rounds 10 --league-learning-rate-end 0.0001 "
        "--rounds 5"
    )
    assert (
        "then 3 rounds of policy gradient (PPO, 2000 games a round, step size 0.0006 falling along a "
        "half cosine over 10 rounds to 0.0001, stopped after 3)" in _training_text(falling, 5)
    )


def test_the_league_step_size_falls_along_a_half_cosine() -> None:
    config = ExpertConfig(
        game="court", league_rounds=5, league_learning_rate=4e-4, league_learning_rate_end=1e-4
    )
    sizes = [config.league_step_size(r) for r in range(5)]
    cosine = [1e-4 + 3e-4 * (1 + np.cos(np.pi * r / 4)) / 2 for r in range(5)]
    assert np.allclose(sizes, cosine)
    assert sizes[0] == pytest.approx(4e-4) and sizes[-1] == pytest.approx(1e-4)
    assert sizes[2] == pytest.approx(2.5e-4)  # half way: the mean of both ends
    assert all(a > b for a, b in itertools.pairwise(sizes))
    # unset, the step size stays where it starts
    constant = ExpertConfig(game="court", league_rounds=5, league_learning_rate=3e-4)
    assert {constant.league_step_size(r) for r in range(5)} == {3e-4}
    with pytest.raises(ConfigError, match=r"--league-learning-rate-end \(0.001\) is where the step size"):
        ExpertConfig(game="court", league_learning_rate=4e-4, league_learning_rate_end=1e-3)


def test_a_run_can_start_from_another_runs_network(tmp_path: Path) -> None:
    from dataclasses import asdict

    from tablezoo.release.cards import _training_text
    from tablezoo.release.recipe import base_command, expert_command, reproduce_text

    settings = dict(teacher="heuristic", teacher_games=4, hidden=(16,), epochs=1, workers=1, eval_games=0)
    first = run_expert(ExpertConfig(game="diamant", out=str(tmp_path / "a"), rounds=1, **settings))  # type: ignore[arg-type]
    start = first / "net-0.npz"
    config = ExpertConfig(
        game="diamant",
        out=str(tmp_path / "b"),
        init=str(start),
        teacher_rounds=0,
        league_rounds=1,
        league_games=4,
        league_learning_rate=0.0,  # the weights stay as they were: the run started from them
        rounds=1,
        **settings,  # type: ignore[arg-type]
    )
    second = run_expert(config)
    log = [json.loads(line) for line in (second / "log.jsonl").open()]
    assert [e["player"] for e in log] == ["league of heuristic, self"]
    x = np.zeros((1, PolicyValueNet.load(start).observation_size), np.float32)
    for a, b in zip(
        PolicyValueNet.load(second / "net.npz").forward(x), PolicyValueNet.load(start).forward(x), strict=True
    ):
        assert np.allclose(a, b, atol=1e-6)
    # the card names the network it started from and the command that trained that one
    saved = json.loads((second / "config.json").read_text())
    assert base_command(str(start)) == f"tablezoo expert diamant --out {tmp_path / 'a'} " + (
        "--teacher heuristic --teacher-games 4 --rounds 1 --hidden 16 --epochs 1 --eval-games 0"
    )
    command = expert_command(saved, 1)
    assert f"--out {tmp_path / 'b'}" in command and f"--init {start}" in command
    assert "--teacher-rounds 0 --league-rounds 1" in command
    # a third run from the second's network: the card gives the three commands, oldest first
    middle = second / "net-0.npz"
    third = run_expert(replace(config, out=str(tmp_path / "c"), init=str(middle)))
    last = json.loads((third / "config.json").read_text())
    assert reproduce_text(last, 1) == (
        f"`{base_command(str(start))}` (it trains `{start}`), then `{command}` (it trains `{middle}`), "
        f"then `{expert_command(last, 1)}`"
    )
    stray = tmp_path / "stray.npz"
    shutil.copy(start, stray)  # a network with no run folder beside it
    assert reproduce_text({**saved, "init": str(stray)}, 1).endswith(
        f"(from the network `{stray}`, which these runs did not train)"
    )
    text = _training_text(asdict(config), 1)
    assert text.startswith(
        f"- Expert iteration (`tablezoo.training.expert`): starting from the network `{start}`, then "
        "1 round of policy gradient"
    )
    # imitation may be left out only from a saved network, and not from the run's own folder
    with pytest.raises(ConfigError, match="--teacher-rounds is at least 1"):
        ExpertConfig(game="diamant", teacher_rounds=0)
    with pytest.raises(ConfigError, match="--init names a network file"):
        ExpertConfig(game="diamant", init=str(tmp_path / "none.npz"))
    with pytest.raises(ConfigError, match="lies in this run's own folder"):
        ExpertConfig(game="diamant", out=str(tmp_path / "a"), init=str(start))
    # a run of league rounds alone keeps no imitation buffer, and resumes all the same
    assert not (second / "buffer.npz").exists()
    run_expert(replace(config, league_rounds=2, rounds=2))
    assert [json.loads(line)["iteration"] for line in (second / "log.jsonl").open()] == [0, 1]


def test_a_card_groups_the_tables_a_teacher_teaches() -> None:
    from dataclasses import asdict

    from tablezoo.release.cards import _training_text

    config = asdict(
        ExpertConfig(
            game="sechs_nimmt",
            teacher="heuristic",
            teacher_rounds=2,
            teacher_at=["2=search", "3=search", "5=montecarlo"],
        )
    )
    text = _training_text(config, 2)
    assert "; at 2 and 3 seats the teacher is `search`; at 5 seats the teacher is `montecarlo`." in text
    assert "the first with the teacher at its seats" in text
    # from a saved network, the network plays half the teacher's seats from the first round on
    text = _training_text({**config, "init": "runs/x/net-3.npz"}, 2)
    assert "starting from the network `runs/x/net-3.npz`, then imitation" in text
    assert "2 rounds, each with the network at half the teacher's seats" in text
    # where every table has a teacher of its own, the run's --teacher taught nothing and goes unnamed
    everywhere = {**config, "num_players": [2, 3], "teacher_at": ["2=search", "3=montecarlo"]}
    assert _training_text(everywhere, 2).startswith(
        "- Expert iteration (`tablezoo.training.expert`): imitation (1500 games a round, 2 rounds"
    )
