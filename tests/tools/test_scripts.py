"""The demo and the benchmarks run end to end, each benchmark as a program (tiny runs: their
figures are not checked here; the JSON they write and the tables they print are)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablezoo.envs import demo
from tablezoo.games.native import available

ROOT = Path(__file__).resolve().parents[2]


def script(name: str, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """``python benchmarks/<name>.py ARGS``, run as a program; it must succeed unless ``ok`` is False."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), *args], capture_output=True, text=True
    )
    assert run.returncode == 0 or not ok, run.stderr
    return run


def test_demo_plays_a_whole_seeded_game(capsys: pytest.CaptureFixture[str]) -> None:
    demo.main(["heckmeck_v0", "--players", "3", "--seed", "7"])
    first = capsys.readouterr().out
    demo.main(["heckmeck_v0", "--players", "3", "--seed", "7"])
    assert capsys.readouterr().out == first
    assert "game over" in first and "winner(s): seat" in first and "player_2: " in first


def test_benchmark_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    args = ["--seconds", "0.05", "--repeats", "1", "--games", "heckmeck_v0", "--table", "--out", str(out)]
    table = script("throughput", *args).stdout
    result = json.loads(out.read_text())
    cores = result["games"]["heckmeck_v0"]["cores"]
    assert set(cores) == {"native", "python"}
    for core, figures in cores.items():
        assert figures["env_steps_per_s"] > 0 and figures["raw_env_steps_per_s"] > 0
        assert figures["observe_batch"]["one_state_us"] > 0
        for split in figures["seat_counts"].values():  # the default seat count and the most seats
            assert split["engine_decisions_per_s"] > 0 and split["engine_vs_pig"] > 0
            assert split["engine_vs_card_game"] > 0
            assert ("native_loop_vs_python_engine" in split) == (core == "native")
        # each env's own cost: its loop's less its driver's on what it handed out
        assert figures["env_driver_us"] > 0 and figures["parallel_driver_us"] > 0
        assert figures["env_own_us"] > 0 and figures["parallel_env_own_us"] > 0
        own_ratio = figures["env_own_us"] / figures["parallel_env_own_us"]
        assert figures["parallel_env_own_vs_env_own"] == pytest.approx(own_ratio, rel=0.05, abs=0.01)
    assert set(cores["native"]["met"]) == {
        "engine_vs_pig",
        "native_loop",
        "observe",
        "env",
        "raw_env",
        "parallel_env",
    }
    assert result["reference"]["env_steps_per_s"] > 0
    assert set(result["reference"]["openspiel"]) == {"pig", "leduc_poker"}
    assert table.count("\n| Heckmeck ") == 4  # two seat counts on each core


def test_batched_benchmark_writes_json(tmp_path: Path) -> None:
    from tablezoo.games.native import available

    if not available():
        pytest.skip("the native core is not built")
    out = tmp_path / "batched.json"
    args = [
        "--seconds",
        "0.02",
        "--repeats",
        "1",
        "--games",
        "diamant",
        "--ppo-steps",
        "512",
        "--table",
        "--out",
        str(out),
    ]
    table = script("batched", *args).stdout
    result = json.loads(out.read_text())
    figures = result["games"]["diamant"]
    assert set(figures["selfplay_steps_per_s"]) == {"1", "64", "1024", "4096"}
    assert figures["python_env_steps_per_s"] > 0 and figures["dummy_vec_env_steps_per_s"] > 0
    assert 0 < figures["memory_mb_at_4096"] < 1000
    assert figures["maskable_ppo"]["batched_steps_per_s"] > 0
    assert "| Diamant 4 |" in table


def test_gumbel_curves_sum_up_the_logs(tmp_path: Path) -> None:
    shares = [0.30, 0.40, 0.35]
    log = [
        {
            "iteration": i,
            "games": 10,
            "decisions": 100,
            "play_seconds": 1800.0,
            "fit_seconds": 0.0,
            "value_brier": 0.2,
            "value_ece": 0.1,
            "against_solver": {"2p": [s, s - 0.1, s + 0.1, 0.5], "4p": [s / 2, 0.0, s, 0.25]},
        }
        for i, s in enumerate(shares)
    ]
    (tmp_path / "heckmeck-try.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    (tmp_path / "heckmeck-try.config.json").write_text(json.dumps({"eval_games": 200, "gumbel_scale": 0.1}))
    shipped = {"iteration": -1, "against_solver": {"2p": [0.33, 0.25, 0.4, 0.5]}}
    (tmp_path / "heckmeck-shipped.jsonl").write_text(json.dumps(shipped) + "\n")
    (tmp_path / "notes.jsonl").write_text("{}\n")  # not a run: skipped
    script("gumbel_curves", "--results", str(tmp_path), "--json", str(tmp_path / "rows.json"))
    assert (tmp_path / "curves-heckmeck.png").stat().st_size > 0
    [row] = json.loads((tmp_path / "rows.json").read_text())["rows"]  # the shipped check is no run
    assert (row["run"], row["rounds"], row["decisions"], row["hours"], row["scale"]) == (
        "try",
        3,
        300,
        1.5,
        0.1,
    )
    assert row["2p"]["first"] == 0.30 and row["2p"]["last"] == 0.35 and row["2p"]["best"] == 0.40
    assert row["4p"]["mean_last_5"] == pytest.approx(sum(shares) / 6)
    assert row["chosen_round"] == 2  # three rounds all in one window: a tie, the later wins
    assert (tmp_path / "curves.md").read_text().count("| Heckmeck | try | solver | 3 |") == 2
    assert row["opponent"] is None
    config = {"eval_games": 200, "gumbel_opponent": "solver", "gumbel_opponent_share": 0.5}
    (tmp_path / "heckmeck-try.config.json").write_text(json.dumps(config))
    script("gumbel_curves", "--results", str(tmp_path), "--json", str(tmp_path / "rows.json"))
    [row] = json.loads((tmp_path / "rows.json").read_text())["rows"]
    assert (row["opponent"], row["opponent_share"]) == ("solver", 0.5)
    assert "| try (`solver` in 0.5 of the games) | solver |" in (tmp_path / "curves.md").read_text()
    empty = script(
        "gumbel_curves", "--results", str(tmp_path / "empty"), "--json", str(tmp_path / "none.json"), ok=False
    )
    assert empty.returncode != 0 and not (tmp_path / "none.json").exists()
    # the best smoothed check (five rounds), not the best single one: round 1 alone is lucky
    lucky = [0.2, 0.9, 0.2, 0.2, 0.5, 0.6, 0.5]
    log = [{"iteration": i, "against_solver": {"2p": [s, 0, 1, 0.5]}} for i, s in enumerate(lucky)]
    (tmp_path / "heckmeck-try.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    script("gumbel_curves", "--results", str(tmp_path), "--json", str(tmp_path / "rows.json"))
    [row] = json.loads((tmp_path / "rows.json").read_text())["rows"]
    assert row["chosen_round"] == 3 and row["2p"]["best"] == 0.9


def test_search_budget_times_and_plays_each_player(tmp_path: Path) -> None:
    out = tmp_path / "budget.json"
    small = ["--games", "diamant", "--simulations", "2", "--positions", "3"]  # 3 seats: 2 of the bot
    script("search_budget", *small, "--tournament", "4", "--out", str(out))
    result = json.loads(out.read_text())
    alone, searched = result["rows"]
    assert (alone["player"], searched["player"]) == ("agent", "agent:search=2")
    for row in result["rows"]:
        assert (row["seats"], row["against"], row["ms_seats"], row["games"]) == (3, "search", 8, 4)
        assert row["median_ms"] > 0 and row["interval"][0] <= row["win_share"] <= row["interval"][1]
    script("search_budget", *small, "--max-ms", "0", "--out", str(out))
    over = json.loads(out.read_text())
    assert all("games" not in row for row in over["rows"])  # over the budget: timed, not played


def test_stall_runs_its_cut_arm_and_tables_it(tmp_path: Path) -> None:
    """The stall study's arm that pays a cut game as a loss runs, records its cut games and is tabled."""
    pytest.importorskip("torch")
    from tablezoo.games.native import available

    if not available():
        pytest.skip("the native core is not built")
    tiny = ["--steps", "64", "--num-envs", "8"]  # a tiny run
    args = ["court", "--seats", "2", "--budget", "128", "--eval-games", "4", "--arms", "cut", "budget"]
    script("stall", *args, *tiny, "--out", str(tmp_path))
    result = json.loads((tmp_path / "court-2p-128" / "stall.json").read_text())  # not 1M: its own folder
    cut, budget = result["arms"]["cut"], result["arms"]["budget"]
    assert "--cut-reward -1.0 --max-cycles 1000" in cut["command"] and "--cut-reward" not in budget["command"]
    assert cut["arm"] == "ppo-zero_sum-cut" and cut["cut_games"] >= 0 and cut["decisions"] >= 128
    row = script("stall", "table", "--out", str(tmp_path)).stdout.splitlines()[2]
    assert row.startswith("| court | 2 | 0.500 |") and f"({cut['cut_games']:,})" in row
    refused = script("stall", "court", "--arms", "cuts", "--out", str(tmp_path), ok=False)
    assert refused.returncode == 2 and "invalid choice: 'cuts'" in refused.stderr  # with the choices


def test_scoring_speed_times_a_torch_an_onnx_and_a_numpy_policy_at_one_and_two_jobs(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnxruntime")
    out = tmp_path / "speed.json"
    table = script("scoring_speed", "--cells", "random:8", "--out", str(out)).stdout
    result = json.loads(out.read_text())
    rows = {(row["policy"], row["jobs"]) for row in result["rows"]}
    assert {("torch", 1), ("torch", 2), ("onnx", 1), ("onnx", 2), ("numpy", 1), ("numpy", 2)} <= rows
    assert all(row["games"] == 8 and row["games_per_second"] > 0 for row in result["rows"])
    assert "| torch (`" in table


def test_search_scaling_keeps_its_chunks_and_pairs_its_rows(tmp_path: Path) -> None:
    """Two budgets of a tiny row: each row's credits, its chunks kept (a second run plays nothing
    again), and the table's paired gains, over the network alone and over another searcher."""
    out = tmp_path / "scaling.json"
    args = [
        "--games",
        "heckmeck",
        "--opponents",
        "agent",
        "--simulations",
        "1",
        "4",
        "--games-per-point",
        "4",
    ]
    first = script("search_scaling", *args, "--out", str(out)).stdout
    rows = json.loads(out.read_text())["rows"]
    assert [r["searcher"] for r in rows] == ["agent:search=1", "agent:search=4"]
    assert all(len(r["credits"]) == r["games"] == 4 and 0 <= r["win_share"] <= 1 for r in rows)
    assert rows[0]["changed"] == 0  # one simulation plays the network's move
    chunks = json.loads(out.with_suffix(".chunks.json").read_text())
    assert len(chunks) == 2 and first.count('"searcher"') == 2
    again = script("search_scaling", *args, "--out", str(out), "--markdown").stdout
    assert '"searcher"' not in again  # nothing played again
    assert "; gain " in again and "agent:search=N" in again
    assert again.splitlines()[-1].split("|")[-2].strip() in ("rises", "level", "falls at N=4")
    against = script(
        "search_scaling", "--simulations", "--out", str(out), "--markdown", "--against", "agent:search=1"
    )
    assert "; gain over `agent:search=1` " in against.stdout
    # another seed's games are other games: its rows are played, kept and shown beside the first's
    other = script("search_scaling", *args, "--seed", "3", "--out", str(out), "--markdown").stdout
    assert other.count('"searcher"') == 2
    rows = json.loads(out.read_text())["rows"]
    assert [(r["searcher"], r["seed"]) for r in rows[2:]] == [("agent:search=1", 3), ("agent:search=4", 3)]
    lines = [line for line in other.splitlines() if line.startswith("| heckmeck")]
    assert [line.split("|")[5].strip() for line in lines] == ["0", "3"]


def test_search_scaling_measures_the_thinking_agent_by_its_time(tmp_path: Path) -> None:
    """``--think SECONDS``: a row of the game's thinking agent (6 nimmt!'s plays its games out), in
    a column of its own, its gain over the network alone in the same games."""
    out = tmp_path / "think.json"
    args = ["--games", "sechs_nimmt", "--opponents", "agent", "--games-per-point", "2", "--out", str(out)]
    script("search_scaling", *args, "--simulations", "1", "--think", "0.01")
    rows = json.loads(out.read_text())["rows"]
    assert [r["searcher"] for r in rows] == ["agent:search=1", "agent:think=0.01,leaf=end"]
    table = script("search_scaling", "--simulations", "--out", str(out), "--markdown").stdout
    assert "| N=1 | T=0.01s | curve |" in table and "`agent:think=T,leaf=end`" in table
    assert "; gain " in table
    refused = script("search_scaling", "--simulations", "--think", "0", ok=False)
    assert refused.returncode == 2 and "--think takes seconds above 0" in refused.stderr


def test_turn_values_pairs_the_exact_turn_with_the_network(tmp_path: Path) -> None:
    out = tmp_path / "turn.json"
    script("turn_values", "--games-played", "4", "--out", str(out))
    row = json.loads(out.read_text())
    assert row["games"] == 4 and 0 <= row["turn_solver_win_share"] <= 1 and 0 <= row["agent_win_share"] <= 1
    assert row["paired_gain"] == pytest.approx(row["turn_solver_win_share"] - row["agent_win_share"])


@pytest.mark.skipif(not available(), reason="the native core is not built")
def test_solver_regret_scores_the_networks_moves_and_a_searchers_by_the_solver(tmp_path: Path) -> None:
    out = tmp_path / "regret.json"
    script("solver_regret", "--games-played", "2", "--searcher", "agent:search=1", "--out", str(out))
    (row,) = json.loads(out.read_text())["rows"]
    kinds = row["by_kind"]
    assert row["decisions"] == kinds["keep"]["decisions"] + kinds["roll or stop"]["decisions"] > 0
    assert (
        row["mean_regret"] >= 0
        and 0 <= row["share_above_0.3"] <= row["share_above_0.1"] <= row["share_above_0.0"]
    )
    assert row["regret_per_seat_and_game"] == pytest.approx(
        row["mean_regret"] * row["decisions"] / 4, abs=1e-3
    )
    # one simulation is the network alone: asked on the same positions, it changes nothing
    searched = row["searcher"]
    assert searched["decisions"] == row["decisions"] and searched["changed_in_value"] == 0
    assert searched["worms_a_decision"] == 0 and searched["worms_a_change"] is None


@pytest.mark.skipif(not available(), reason="the native core is not built")
def test_court_turn_regret_scores_the_networks_moves_by_the_turn_played_best(tmp_path: Path) -> None:
    out = tmp_path / "court.json"
    script(
        "court_turn_regret", "--games-played", "1", "--worlds", "2", "--limit", "3000",
        "--searcher", "agent:search=1", "--out", str(out),
    )  # fmt: skip
    (row,) = json.loads(out.read_text())["rows"]
    kinds = row["by_kind"]
    assert row["decisions"] == sum(kinds[k]["decisions"] for k in ("play", "step", "take")) > 0
    assert row["turns_solved"] > 0 and row["turns_skipped"] > 0  # the late turns are too large
    # played best, a turn is worth at least what the network's play of it is worth, and each
    # decision's best move at least the network's
    assert row["turn_regret_mean"] >= 0 and row["mean_regret"] >= 0
    assert 0 <= row["share_above_0.05"] <= row["share_above_0.02"] <= row["share_above_0.005"] <= 1
    searched = row["searcher"]  # one simulation is the network alone: it changes nothing
    assert searched["decisions"] == row["decisions"] and searched["changed_in_value"] == 0
    # the advised network against itself, beside the same games unadvised
    script(
        "court_turn_regret", "--advised-games", "2", "--worlds", "2", "--limit", "3000",
        "--out", str(out),
    )  # fmt: skip
    advised = json.loads(out.read_text())["rows"][1]
    assert advised["advised_games"] == 2 and len(advised["credits"]) == 2
    assert advised["gain"] == pytest.approx(advised["advised_share"] - advised["alone_share"])
    assert advised["turns_solved"] > 0 and 0 <= advised["changed"] <= 1


def test_diamant_models_joins_its_parts_and_pairs_each_model_with_the_network_alone(tmp_path: Path) -> None:
    out = tmp_path / "models.json"
    common = ["--seats", "3", "--simulations", "4", "--models", "network", "earlier", "--out", str(out)]
    script("diamant_models", *common, "--games-played", "2")
    script("diamant_models", *common, "--games-played", "1", "--first", "2")
    rows = {row["model"]: row for row in json.loads(out.read_text())["rows"]}
    assert set(rows) == {"alone", "network", "earlier"}
    for row in rows.values():
        assert row["games"] == 3 and sorted(row["credits"]) == ["0", "1", "2"]
        assert row["paired_gain"] == pytest.approx(row["win_share"] - rows["alone"]["win_share"], abs=1e-3)
    refused = script("diamant_models", "--models", "oracle", ok=False)
    assert refused.returncode == 2 and "invalid choice: 'oracle'" in refused.stderr


def test_search_scaling_pairs_a_row_with_the_longest_of_its_baseline(tmp_path: Path) -> None:
    """Where the baseline has a short row and a long one, the gain is over the long one's games
    (the first of them as many as the row has), whichever comes first in the file."""

    def row(searcher: str, credits: list[float]) -> dict[str, object]:
        share = sum(credits) / len(credits)
        return {"game": "heckmeck", "seats": 2, "opponent": "agent", "seed": 0, "searcher": searcher,
                "games": len(credits), "win_share": share, "win_share_95ci": [share, share],
                "ms_per_move": 1.0, "credits": credits}  # fmt: skip

    rows = [
        row("agent:search=8", [0.0, 1.0]),  # the short row: its 2 games alone would give +0.5
        row("agent:search=8,confidence=1", [1.0, 1.0, 1.0, 0.0]),
        row("agent:search=8", [0.0, 1.0, 1.0, 1.0]),  # the long row: +0.0 over its 4 games
    ]
    out = tmp_path / "rows.json"
    out.write_text(json.dumps({"command": "", "rows": rows}))
    table = script(
        "search_scaling", "--simulations", "--out", str(out), "--markdown", "--against", "agent:search=8"
    )
    assert "gain over `agent:search=8` +0.000 " in table.stdout
    rows[2]["searcher"] = "agent:search=16"  # a curve: 0.75 at 16 simulations, 0.0 [0.0, 0.4] at 32
    rows.append(row("agent:search=32", [0.0, 0.0, 0.0, 0.0]) | {"win_share_95ci": [0.0, 0.4]})
    out.write_text(json.dumps({"command": "", "rows": rows[1:]}))
    curves = script("search_scaling", "--simulations", "--out", str(out), "--markdown").stdout
    assert "| falls at N=32 |" in curves
    # one simulation advised by a bot plays the advised prior: the gains are over the network alone
    rows = [
        row("agent:search=1,advice=solver", [1.0, 1.0, 1.0, 1.0]),
        row("agent:search=1", [0.0, 0.0, 1.0, 1.0]),
        row("agent:search=8,advice=solver", [1.0, 1.0, 0.0, 1.0]),
    ]
    out.write_text(json.dumps({"command": "", "rows": rows}))
    advised = script("search_scaling", "--simulations", "--out", str(out), "--markdown").stdout
    assert "4; gain +0.500 " in advised and "4; gain +0.250 " in advised


def test_search_scaling_draws_curves_from_several_files_whatever_their_order(tmp_path: Path) -> None:
    """``--also`` joins a second file's rows; at a budget a curve shows its row of most games; a
    curve without one simulation starts at its network alone; a setting at one budget is not drawn."""

    def row(searcher: str, credits: list[float], opponent: str = "agent") -> dict[str, object]:
        share = sum(credits) / len(credits)
        return {"game": "heckmeck", "seats": 2, "opponent": opponent, "seed": 0, "searcher": searcher,
                "games": len(credits), "win_share": share, "win_share_95ci": [share, share],
                "ms_per_move": 1.0, "credits": credits}  # fmt: skip

    alone = row("agent:search=1", [0.0, 1.0, 0.0, 1.0])
    short = row("agent:search=8,confidence=1", [1.0, 1.0])
    rows = [
        row("agent:search=8,confidence=1", [1.0, 0.0, 0.0, 1.0]),  # the long row, first in the file
        row("agent:search=32,confidence=1", [1.0, 1.0, 1.0, 0.0]),
        row("agent:search=32,leaf=end", [1.0, 1.0]),  # one budget: the table's only
        row("agent:search=1", [1.0, 0.0], opponent="solver"),
    ]
    out, also = tmp_path / "rows.json", tmp_path / "also.json"
    out.write_text(json.dumps({"command": "", "rows": rows}))
    also.write_text(json.dumps({"command": "", "rows": [short, alone]}))
    shown = ["--simulations", "--out", str(out), "--also", str(also)]
    table = script("search_scaling", *shown, "--markdown").stdout
    assert "0.500 [0.500, 0.500] 1.0 ms, 4; gain +0.000 " in table  # the 4 games at 8, not the 2
    assert "| heckmeck | 2 | solver |" in table
    assert "| solver |" not in script("search_scaling", *shown, "--markdown", "--opponents", "agent").stdout
    fewer = script("search_scaling", *shown, "--markdown", "--min-games", "3").stdout
    assert "agent:search=N,leaf=end" not in fewer and "agent:search=N,confidence=1" in fewer
    figure = tmp_path / "curves.png"
    drawn = script("search_scaling", *shown, "--plot", str(figure), "--target", "0.56").stdout.splitlines()
    assert figure.read_bytes().startswith(b"\x89PNG")
    # one curve: from the network alone (its 4 games, not its short row's), the short row at 8 left
    # for the long one; the setting at one budget and the curve-less panel against the solver not drawn
    assert drawn == [
        "heckmeck, 2 seats, against agent: confidence=1 (seed 0), games at each budget 1: 4, 8: 4, 32: 4"
    ]
    none = script("search_scaling", "--simulations", "--out", str(also), "--plot", str(figure), ok=False)
    assert none.returncode == 2 and "no curve to draw" in none.stderr
    refused = script("search_scaling", *shown, str(ROOT / "pyproject.toml"), "--markdown", ok=False)
    assert refused.returncode == 2 and "pyproject.toml: not a results file of this script" in refused.stderr


def test_value_capacity_sets_the_head_beside_a_refit_and_a_value_network(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "capacity.json"
    args = ["--games", "heckmeck", "--fit-games", "20", "--test-games", "5", "--width", "8", "--epochs", "2"]
    script("value_capacity", *args, "--out", str(out))
    (row,) = json.loads(out.read_text())["rows"]
    assert (row["game"], row["seats"], row["fit_games"], row["test_games"]) == ("heckmeck", 2, 20, 5)
    assert set(row["squared_error"]) == {"constant", "shipped", "refit", "network"}
    errors = row["squared_error"]
    assert all(0 <= e <= 1 for e in errors.values()) and errors["constant"] <= 0.25
    assert row["fit_samples"] > row["test_samples"] > 0 and 1 <= row["best_epoch"] <= 2
    refused = script("value_capacity", "--epochs", "0", ok=False)
    assert refused.returncode == 2 and "1 or more" in refused.stderr


def test_search_changes_values_each_changed_move_afresh(tmp_path: Path) -> None:
    out = tmp_path / "changes.json"
    common = ["--games", "sechs_nimmt", "--games-played", "2", "--playouts", "3", "--out", str(out)]
    script("search_changes", *common, "--searcher", "agent:search=8")
    script("search_changes", *common, "--searcher", "agent:search=1")  # the network alone: no change
    first = json.loads(out.read_text())["rows"][0]["changes"]
    script("search_changes", *common, "--searcher", "agent:search=8")  # played again: replaces its row
    rows = {row["searcher"]: row for row in json.loads(out.read_text())["rows"]}
    assert set(rows) == {"agent:search=8", "agent:search=1"}
    assert rows["agent:search=1"]["changes"] == [] and rows["agent:search=1"]["decisions"] > 0
    changes = rows["agent:search=8"]["changes"]
    assert changes == first, "the same seed plays the same games and playouts"
    assert changes, "8 simulations change some of 6 nimmt!'s moves (a third of them, measured)"
    for change in changes:
        assert change["game"] in (0, 1)
        for key in ("fresh_network", "fresh_choice"):  # a mean of 3 win shares, each 0, 1/2 or 1
            assert change[key] * 6 == pytest.approx(round(change[key] * 6), abs=1e-3)
    table = script("search_changes", "--out", str(out), "--markdown").stdout
    alone = rows["agent:search=1"]["decisions"]
    assert f"| 6 nimmt! | 2 | `agent:search=1` | 2 | 0 | {alone} | 0.0% (0) | - |" in table
    (line,) = [line for line in table.splitlines() if f"({len(changes)}) |" in line]
    a_game = float(line.split("|")[-2].split("[")[0])  # the gains summed a game, over the 2 games
    assert a_game == pytest.approx(sum(c["fresh_choice"] - c["fresh_network"] for c in changes) / 2, abs=2e-3)


def test_search_changes_judges_the_rollouts_best_move_on_other_playouts(tmp_path: Path) -> None:
    out = tmp_path / "rooms.json"
    args = ["--games", "heckmeck", "--rollouts", "--every", "4", "--moves", "3", "--games-played", "1"]
    script("search_changes", *args, "--playouts", "4", "--out", str(out))
    (row,) = json.loads(out.read_text())["rows"]
    assert (row["searcher"], row["every"]) == ("rollouts, 3 moves", 4)
    assert len(row["changes"]) == row["decisions"] // 4 > 0
    for sample in row["changes"]:
        assert 2 <= sample["moves"] <= 3 and sample["switched"] in (0, 0.5, 1)
        # the mean of two differences of means of 4 win shares (each 0, 1/2 or 1): a multiple of 1/16
        assert -1 <= sample["gain"] <= 1 and sample["gain"] * 16 == pytest.approx(
            round(sample["gain"] * 16), abs=2e-3
        )
    table = script("search_changes", "--out", str(out), "--markdown").stdout
    assert f"({len(row['changes'])} sampled) |" in table
    refused = script("search_changes", "--rollouts", "--moves", "1", ok=False)
    assert refused.returncode == 2 and "--moves 2 or more" in refused.stderr


@pytest.mark.skipif(not available(), reason="the native core is not built")
def test_gumbel_targets_measures_how_far_the_loops_target_leans(tmp_path: Path) -> None:
    out = tmp_path / "targets.json"
    args = ["--games", "heckmeck", "--simulations", "8", "--considered", "4", "--leaf", "turn"]
    script(
        "gumbel_targets",
        *args,
        "--scales",
        "0.001",
        "1",
        "--confidences",
        "0.25",
        "--decisions",
        "30",
        "--out",
        str(out),
    )
    near, near_evidence, far, far_evidence = json.loads(out.read_text())["rows"]
    assert [r["target"] for r in (near, near_evidence, far, far_evidence)] == ["sigma", "evidence"] * 2
    assert (near["scale"], far["scale"], near["decisions"], far["decisions"]) == (0.001, 1.0, 30, 30)
    assert 0 <= near["kl"] < 0.01 < far["kl"], "a tiny c_scale keeps the target at the network's policy"
    assert near["changed"] == 0 and 0 <= far["changed"] <= 1
    assert near["target_entropy"] == pytest.approx(near["prior_entropy"], abs=0.01)
    assert far_evidence["confidence"] == 0.25 and far_evidence["prior_entropy"] == far["prior_entropy"]
    assert 0 <= far_evidence["kl"] < far["kl"], (
        "the evidence weighed by its errors leans less than sigma at 1"
    )
    table = script("gumbel_targets", "--out", str(out), "--markdown").stdout
    assert "| Heckmeck | 2 | 8 (4) | turn, likeliest | 0.001 | sigma | 30 | 0.000 |" in table
    assert "| Heckmeck | 2 | 8 (4) | turn, likeliest | 1 | evidence, confidence 0.25 | 30 |" in table
    refused = script("gumbel_targets", "--scales", "0", ok=False)
    assert refused.returncode == 2 and "above 0" in refused.stderr
