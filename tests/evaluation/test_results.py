"""Benchmark numbers that are never silently wrong and reproduce from the file: a policy's input is
declared or refused, a result records what made it and recomputes from its outcomes, aggregation
refuses what does not belong together, and progress shows off a terminal too."""

from __future__ import annotations

import importlib.metadata
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.registry import AGENTS_DIR, agent_path
from tablezoo.commands import main
from tablezoo.evaluation import aggregate as aggregating
from tablezoo.evaluation import protocol, provenance, results
from tablezoo.evaluation.aggregate import aggregate
from tablezoo.evaluation.compare import compare
from tablezoo.evaluation.policies import OBSERVATION_ATTR, SCALED_ATTR, as_bot
from tablezoo.evaluation.progress import ProgressBar
from tablezoo.evaluation.protocol import evaluate, run_protocol
from tablezoo.evaluation.results import rescore
from tablezoo.games import make
from tablezoo.games.core import ConfigError

torch = pytest.importorskip("torch")


def scaled_net(game_name: str = "diamant", seats: int = 4, seed: int = 0) -> Any:
    """A net that reads the plain observation scaled into 0..1 and declares nothing."""
    game = make(game_name, seats)
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(game.observation_spec.size, game.num_actions))


# --------------------------------------------------------------------------- the input is declared


def test_a_policy_that_declares_no_scaling_is_refused_naming_the_flags() -> None:
    game = make("diamant", 4)
    with pytest.raises(ConfigError, match=r"scaling.*--scaled or --raw.*tablezoo_scaled"):
        as_bot(scaled_net(), game)
    with pytest.raises(ConfigError, match=r"layout and scaling.*--observation"):
        as_bot(lambda o, m: int(np.flatnonzero(m)[0]), game)


def test_the_scaling_the_caller_gives_is_fed_and_recorded() -> None:
    game = make("diamant", 4)
    net = scaled_net()
    raw, scaled = as_bot(net, game, scaled=False), as_bot(net, game, scaled=True)
    seat = next(iter(_seats(game)))
    assert np.allclose(scaled.reading.read(seat) * game.observation_spec.scale(), raw.reading.read(seat))  # type: ignore[attr-defined]
    result = run_protocol(net, "diamant", [4], ["random"], games=4, scaled=True)
    assert result["policy"]["input"] == {
        "observation": "plain",
        "scaled": True,
        "declared_by": "layout: its input size; scaling: caller",
    }


def test_a_module_declares_its_input_and_a_contradiction_is_refused(tmp_path: Path) -> None:
    game = make("diamant", 4)
    net = scaled_net()
    setattr(net, OBSERVATION_ATTR, "plain")
    setattr(net, SCALED_ATTR, True)
    bot = as_bot(net, game)
    assert bot.reading.scaled and bot.reading.source == "its attributes"  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="contradicts"):
        as_bot(net, game, scaled=False)
    with pytest.raises(ConfigError, match="contradicts"):
        as_bot(net, game, observation="padded")
    torch.save(net, tmp_path / "net.pt")  # the attributes are saved with the module
    assert as_bot(str(tmp_path / "net.pt"), game).reading.scaled  # type: ignore[attr-defined]


def test_an_onnx_export_declares_its_input_in_its_metadata(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime")
    import onnx

    from tablezoo.release.export import export_policy

    game = make("heckmeck", 2)
    path, _ = export_policy(AGENTS_DIR / "heckmeck.npz", game, tmp_path / "h")
    meta = {p.key: p.value for p in onnx.load(str(path)).metadata_props}
    assert meta["tablezoo.observation"] == "plain" and meta["tablezoo.scaled"] == "false"
    bot = as_bot(str(path), game)
    assert bot.reading.source == "its metadata" and not bot.reading.scaled  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="contradicts"):
        as_bot(str(path), game, scaled=True)


def test_a_foreign_onnx_graph_needs_the_flags(tmp_path: Path) -> None:
    pytest.importorskip("onnxscript")
    game = make("diamant", 4)
    path = tmp_path / "foreign.onnx"
    torch.onnx.export(
        scaled_net(),
        (torch.zeros(1, game.observation_spec.size),),
        str(path),
        input_names=["observation"],
        output_names=["logits"],
    )
    with pytest.raises(ConfigError, match="--scaled or --raw"):
        as_bot(str(path), game)
    via_onnx = as_bot(str(path), game, scaled=True)
    via_torch = as_bot(scaled_net(), game, scaled=True)
    assert all(via_onnx.act(s) == via_torch.act(s) for s in _seats(game))


def test_every_command_passes_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    net = scaled_net()
    torch.save(net, tmp_path / "net.pt")
    small = ["--players", "4", "--opponents", "random", "--games", "4"]
    with pytest.raises(SystemExit, match="--scaled or --raw"):
        main(["benchmark", "diamant", str(tmp_path / "net.pt"), *small])
    with pytest.raises(SystemExit, match="--scaled or --raw"):
        main(["benchmark", "diamant", "--compare", str(tmp_path / "net.pt"), "heuristic", *small])
    with pytest.raises(SystemExit, match="--scaled or --raw"):
        main(["evaluate", "diamant", "--players", "4", "--bots", str(tmp_path / "net.pt"), "random"])
    capsys.readouterr()
    main(
        [
            "benchmark",
            "diamant",
            "--compare",
            str(tmp_path / "net.pt"),
            "heuristic",
            *small,
            "--scaled",
            "--json",
        ]
    )
    result = json.loads(capsys.readouterr().out)
    assert result["policies"][0]["input"]["scaled"] is True
    direct = evaluate(net, make("diamant", 4), "random", games=4, scaled=True)
    assert result["cells"][0]["outcomes"][0]["credit"] == [round(c, 6) for c in direct.credits]
    main(
        [
            "evaluate",
            "diamant",
            "--players",
            "4",
            "--bots",
            str(tmp_path / "net.pt"),
            "random",
            "--scaled",
            "--games",
            "4",
            "--json",
        ]
    )
    assert json.loads(capsys.readouterr().out)["inputs"][str(tmp_path / "net.pt")]["scaled"] is True


def _seats(game: Any, n: int = 12) -> list[Any]:
    from tablezoo.bots.core import Seat
    from tablezoo.bots.registry import make_bot

    rng = np.random.default_rng(0)
    bot, out = make_bot("random", game), []
    while len(out) < n:
        state = game.initial_state()
        while (mover := game.advance(state, rng)) >= 0 and len(out) < n:
            out.append(Seat(game, game.clone(state), mover))
            game.apply(state, bot.act(Seat(game, state, mover)))
    return out


# --------------------------------------------------------------------------- a result reproduces itself


def test_a_result_records_what_made_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    main(
        [
            "benchmark",
            "court",
            "agent",
            "--players",
            "2",
            "--opponents",
            "random",
            "--games",
            "6",
            "--training-seed",
            "3",
            "--out",
            str(out),
        ]
    )
    result = json.loads(out.read_text())
    assert result["format"] == protocol.FORMAT
    assert result["package"] == importlib.metadata.version("tablezoo")
    assert result["command"][:3] == ["tablezoo", "benchmark", "court"]
    assert result["environment"]["python"] and result["environment"]["libraries"]["numpy"] == np.__version__
    assert result["git"] is None or len(result["git"]["commit"]) == 40
    assert result["references"]["ends"]["2"] == protocol.REFERENCES["court"][2]._asdict()
    policy = result["policy"]
    assert policy["training_seed"] == 3 and "shipped agent" in policy["hashed"]
    assert policy["sha256"] != provenance.policy_hash("agent", "heckmeck")
    assert provenance.policy_hash("agent", "court") != provenance.policy_hash("agent:search=8", "court")
    cell = result["cells"][0]
    assert len(cell["outcomes"]["credit"]) == len(cell["outcomes"]["score"]) == 6
    assert agent_path("court").is_file()


def test_a_callable_is_recorded_by_its_explicit_name() -> None:
    def first(o: np.ndarray, m: np.ndarray) -> int:
        return int(np.flatnonzero(m)[0])

    with pytest.raises(ConfigError, match="give it a name"):
        run_protocol(first, "court", [2], ["random"], games=2, observation="plain", scaled=False)
    result = run_protocol(
        first, "court", [2], ["random"], games=2, observation="plain", scaled=False, name="first-legal-v1"
    )
    assert result["policy"]["name"] == "first-legal-v1" and result["policy"]["sha256"] is None
    assert result["policy"]["hashed"].startswith("nothing: a callable")
    from tablezoo.bots.registry import make_bot

    bot = make_bot("heuristic", make("court", 2))
    record = run_protocol(bot, "court", [2], ["random"], games=2)["policy"]
    assert record["sha256"] is None and record["hashed"].startswith("nothing: a bot object")
    net = scaled_net()
    assert run_protocol(net, "diamant", [4], ["random"], games=2, scaled=True)["policy"]["hashed"] == (
        "the weights (state dict)"
    )


def test_rescore_recomputes_every_figure_and_finds_a_changed_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_protocol("heuristic", "diamant", [3], ["random", "heuristic"], games=8)
    again, differences = rescore(result)
    assert differences == [] and again["cells"] == result["cells"]
    tampered = json.loads(json.dumps(result))
    tampered["cells"][1]["win_share"] = 0.999
    tampered["normalised_score"] = 0.5
    _, differences = rescore(tampered)
    assert any("win_share" in d for d in differences) and any("normalised_score" in d for d in differences)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result))
    main(["benchmark", "diamant", "--rescore", str(path)])
    assert "every figure matches" in capsys.readouterr().out
    path.write_text(json.dumps(tampered))
    with pytest.raises(SystemExit, match="differ"):
        main(["benchmark", "diamant", "--rescore", str(path)])
    old = json.loads(json.dumps(result))
    del old["cells"][0]["outcomes"]
    with pytest.raises(ConfigError, match="no per-game outcomes"):
        rescore(old)


# --------------------------------------------------------------------------- aggregation


def runs(
    n: int = 3, games: int = 6, game: str = "court", seats: tuple[int, ...] = (2, 4)
) -> list[dict[str, Any]]:
    """Results of distinct 'training seeds': random and the heuristic under distinct names."""
    policies = ["random", "heuristic", "agent", "heuristic:samples=4"][:n]
    return [
        run_protocol(p, game, list(seats), ["random", "heuristic"], games=games, training_seed=k)
        for k, p in enumerate(policies)
    ]


@pytest.fixture(scope="module")
def court_runs() -> list[dict[str, Any]]:
    pytest.importorskip("rliable")
    return runs()


def test_aggregate_refuses_what_does_not_belong_together(court_runs: list[dict[str, Any]]) -> None:
    a, b, _c = court_runs
    with pytest.raises(ConfigError, match="at least 2 runs"):
        aggregate([a])
    with pytest.raises(ConfigError, match="same result twice"):
        aggregate([a, a, b])
    twin = {
        **json.loads(json.dumps(b)),
        "policy": {**b["policy"], "training_seed": 9, "sha256": a["policy"]["sha256"]},
    }
    with pytest.raises(ConfigError, match="same policy"):
        aggregate([a, twin])
    with pytest.raises(ConfigError, match="training seed"):
        aggregate([a, {**b, "policy": {**b["policy"], "training_seed": 0}}])
    with pytest.raises(ConfigError, match="one game"):
        aggregate([a, {**b, "game": "diamant"}])
    with pytest.raises(ConfigError, match="protocol version"):
        aggregate([a, {**b, "protocol": "tablezoo-benchmark/0"}])
    with pytest.raises(ConfigError, match="seat counts"):
        aggregate([a, {**b, "cells": b["cells"][:2]}])
    fewer = json.loads(json.dumps(b))
    for cell in fewer["cells"]:
        cell["games"] = 5
    with pytest.raises(ConfigError, match="games a cell"):
        aggregate([a, fewer])
    other_input = {**b, "policy": {**b["policy"], "input": {"observation": "plain", "scaled": True}}}
    with pytest.raises(ConfigError, match="policy input"):
        aggregate([a, other_input])


def test_aggregate_says_what_it_used_and_compares_policies(
    court_runs: list[dict[str, Any]], tmp_path: Path
) -> None:
    versus = [court_runs[2], runs(4, seats=(2, 4))[3]]  # training seeds 2 and 3: paired by position
    summary = aggregate(court_runs[:2], reps=100, versus=versus, pair="position")
    assert summary["runs"] == 2 and summary["training_seeds"] == [0, 1] and summary["games_per_cell"] == 6
    profile = summary["performance_profile"]
    assert len(profile["tau"]) == len(profile["fraction"]) == len(profile["fraction_95ci"])
    assert all(a >= b for a, b in zip(profile["fraction"], profile["fraction"][1:], strict=False))
    p = summary["versus"]["probability_of_improvement"]
    low, high = summary["versus"]["probability_of_improvement_95ci"]
    assert 0 <= low <= p <= high <= 1
    png = aggregating.plot_profile(summary, tmp_path / "profile.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_the_aggregate_command_refuses_the_same_file_twice(
    court_runs: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for k, result in enumerate(court_runs):
        paths.append(tmp_path / f"seed{k}.json")
        paths[-1].write_text(json.dumps(result))
    with pytest.raises(SystemExit, match="same file twice"):
        main(["benchmark", "court", "--aggregate", str(paths[0]), str(paths[0])])
    main(["benchmark", "court", "--aggregate", *map(str, paths), "--plot", str(tmp_path / "p.png")])
    text = capsys.readouterr().out
    assert "3 runs (training seeds 0, 1, 2)" in text and (tmp_path / "p.png").exists()
    with pytest.raises(SystemExit, match="--scaled"):
        main(["benchmark", "court", "--aggregate", *map(str, paths), "--scaled"])
    with pytest.raises(SystemExit, match="is a result of 'court', not of 'heckmeck'"):
        main(["benchmark", "heckmeck", "--aggregate", *map(str, paths)])
    with pytest.raises(SystemExit, match="is a result of 'court', not of 'diamant'"):
        main(["benchmark", "diamant", "--rescore", str(paths[0])])
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(SystemExit, match="not a result of `tablezoo benchmark"):
        main(["benchmark", "court", "--join", str(tmp_path / "list.json")])


def test_one_seeds_results_at_each_seat_count_join_into_one_protocol_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("rliable")
    monkeypatch.setattr(results, "GAMES_PER_CELL", 6)  # the protocol, but 6 games a cell
    monkeypatch.setattr(protocol, "GAMES_PER_CELL", 6)

    def parts(policy: str, seed: int) -> list[dict[str, Any]]:
        return [run_protocol(policy, "court", [n], games=6, training_seed=seed) for n in (5, 2, 4)]

    zero, one = parts("heuristic", 0), parts("random", 1)
    joined = results.join_seat_counts(zero, command=["tablezoo", "benchmark"])
    assert joined["seat_counts"] == [2, 4, 5] and joined["complete"] is True
    assert joined["cells"] == [
        c for n in (2, 4, 5) for r in zero if r["seat_counts"] == [n] for c in r["cells"]
    ]
    assert sorted(joined["policy"]["by_seats"]) == ["2", "4", "5"] and joined["policy"]["training_seed"] == 0
    assert [j["seat_counts"] for j in joined["joined"]] == [[2], [4], [5]] and joined["command"][
        0
    ] == "tablezoo"
    assert set(joined["seeds"]["sha256"]) == set(joined["references"]["ends"]) == {"2", "4", "5"}
    again, differences = rescore(joined)
    assert differences == [] and again["normalised_score"] == joined["normalised_score"]
    summary = aggregate([joined, results.join_seat_counts(one)], reps=50)
    assert summary["runs"] == 2 and len(summary["cells"]) == 6  # both opponents at the three seat counts

    with pytest.raises(ConfigError, match=r"seat count.*more than once"):
        results.join_seat_counts([zero[0], zero[0]])
    with pytest.raises(ConfigError, match="training seed"):
        results.join_seat_counts([zero[0], one[1]])
    with pytest.raises(ConfigError, match="one game"):
        results.join_seat_counts([zero[0], {**zero[1], "game": "diamant"}])
    fewer = json.loads(json.dumps(zero[1]))
    for cell in fewer["cells"]:
        cell["games"] = 5
    with pytest.raises(ConfigError, match="games a cell"):
        results.join_seat_counts([zero[0], fewer])
    assert results.join_seat_counts(zero[:2])["complete"] is False  # not every seat count

    paths = []
    for k, result in enumerate(zero):
        paths.append(tmp_path / f"part{k}.json")
        paths[-1].write_text(json.dumps(result))
    out = tmp_path / "joined.json"
    main(["benchmark", "court", "--join", *map(str, paths), "--out", str(out)])
    assert "heuristic + " not in capsys.readouterr().out  # one name, the parts' own
    written = json.loads(out.read_text())
    assert written["cells"] == joined["cells"] and written["command"][:3] == [
        "tablezoo",
        "benchmark",
        "court",
    ]


# --------------------------------------------------------------------------- progress


def test_progress_is_logged_when_not_on_a_terminal() -> None:
    now = [0.0]
    stream = io.StringIO()
    bar = ProgressBar(100, stream, label="benchmark court", every=10, clock=lambda: now[0])
    for done in range(0, 101, 10):
        bar(done)
        now[0] += 4.0
    lines = stream.getvalue().splitlines()
    assert lines[0] == "benchmark court: 0/100 games (0%), 0s so far, time left unknown"
    assert lines[1] == "benchmark court: 30/100 games (30%), 12s so far, 28s left"
    assert lines[-1] == "benchmark court: 100/100 games (100%), done in 40s"
    assert len(lines) == 5  # at most one every 10 s, and the last


def test_progress_is_a_bar_with_the_time_left_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    clock = iter(range(100))
    stream = Terminal()
    bar = ProgressBar(10, stream, clock=lambda: float(next(clock)))
    bar(5)
    assert (
        "\r[###############...............] 5/10 games, " in stream.getvalue() and "left" in stream.getvalue()
    )


def test_the_benchmark_command_logs_progress_to_a_file(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tablezoo",
            "benchmark",
            "court",
            "heuristic",
            "--players",
            "2",
            "--opponents",
            "random",
            "--games",
            "4",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "benchmark court: 0/4 games (0%)" in done.stderr
    assert "benchmark court: 4/4 games (100%), done" in done.stderr


def test_compare_keeps_the_settings(tmp_path: Path) -> None:
    net = scaled_net()
    with pytest.raises(ConfigError, match="--scaled or --raw"):
        compare(net, "heuristic", "diamant", [4], ["random"], games=2)
    result = compare(net, "heuristic", "diamant", [4], ["random"], games=4, scaled=True, names=("net", None))
    alone = evaluate(net, make("diamant", 4), "random", games=4, scaled=True)
    assert result["cells"][0]["win_share"][0] == round(alone.win_share, 4)
