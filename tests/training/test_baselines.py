"""The baselines (``tablezoo baselines``, :mod:`tablezoo.release.baselines`): every row trains,
scores, resumes and sums up at a tiny budget.

The smoke budget is the package's docstring's: 512 learner decisions, 4 games a curve checkpoint,
4 games a cell against ``random`` alone. A row is skipped only when its library is missing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tablezoo.commands import main as tablezoo
from tablezoo.evaluation.aggregate import aggregate
from tablezoo.evaluation.results import join_seat_counts
from tablezoo.games.native import available
from tablezoo.release import baselines

# Tianshou's replay buffers are numba kernels that take a minute to compile on a busy machine;
# the smoke run's few hundred steps run them as plain Python (set before numba is first imported)
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
torch = pytest.importorskip("torch", reason="the baselines need torch (the train extra)")
pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")

SMOKE = ["--budget", "512", "--curve-games", "4", "--score-games", "4", "--opponents", "random"]
LIBRARIES = {
    "maskable_ppo": "sb3_contrib",
    "rllib_ppo": "ray",
    "tianshou_dqn": "tianshou",
    "cleanrl_ppo": "torch",
    "batched_ppo": "torch",
    "expert": "torch",
}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("baselines")


@pytest.mark.parametrize("row", list(LIBRARIES))
def test_a_row_trains_scores_and_is_skipped_once_finished(
    out: Path, row: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip(LIBRARIES[row], reason=f"the {row} row needs {LIBRARIES[row]}")
    assert set(LIBRARIES) == set(baselines.TRAINERS) == set(baselines.ALGORITHMS)
    command = [
        "baselines",
        "run",
        row,
        "heckmeck",
        "--players",
        "2",
        "--seed",
        "0",
        "--out",
        str(out),
        *SMOKE,
    ]
    tablezoo(command)
    folder = out / row / "heckmeck-2p" / "512" / "seed0"
    result = json.loads((folder / "result.json").read_text())
    assert result["complete"] is False  # 4 games, one opponent, one seat count
    assert result["policy"]["training_seed"] == 0 and result["command"][:6] == ["tablezoo", *command[:5]]
    assert [(c["opponent"], c["seats"], c["games"]) for c in result["cells"]] == [("random", 2, 4)]
    row_info = result["baseline"]
    assert row_info["algorithm"] == row and row_info["decisions"] >= 512 and row_info["resumed"] is False
    # the policy is recorded relative to the row's folder (never a machine path), with its budget
    assert (
        result["policy"]["given"] == row_info["policy_file"]
        and not Path(row_info["policy_file"]).is_absolute()
    )
    assert result["policy"]["training_budget"] == 512
    assert row_info["curve"] and all(0.0 <= share <= 1.0 for _, share in row_info["curve"])
    steps = [step for step, _ in row_info["curve"]]
    assert steps == sorted(steps) and steps[-1] >= 256
    if row == "batched_ppo":  # its training time at each point, for the curves against time
        seconds = row_info["curve_seconds"]
        assert len(seconds) == len(steps) and seconds == sorted(seconds) and seconds[0] >= 0

    from tablezoo.evaluation.protocol import evaluate
    from tablezoo.games import make

    policy = baselines.load_policy(folder / row_info["policy_file"])
    assert evaluate(policy, make("heckmeck", 2), "random", games=2).games == 2  # as_bot reads it

    # `tablezoo benchmark` reproduces the row's cells from its policy file
    capsys.readouterr()
    policy_file = str(folder / row_info["policy_file"])
    tablezoo(
        [
            "benchmark",
            "heckmeck",
            policy_file,
            "--players",
            "2",
            "--opponents",
            "random",
            "--games",
            "4",
            "--json",
        ]
    )
    again = json.loads(capsys.readouterr().out)
    keep = ("opponent", "seats", "games", "win_share", "mean_score")
    assert [{k: c[k] for k in keep} for c in again["cells"]] == [
        {k: c[k] for k in keep} for c in result["cells"]
    ]

    tablezoo(command)
    assert "finished, skipped" in capsys.readouterr().out


def test_the_table_sums_up_the_finished_rows(out: Path, tmp_path: Path) -> None:
    finished = sorted(p.parts[-5] for p in out.glob("*/*/*/seed*/result.json"))
    if not finished:
        pytest.skip("no row ran (every row's library is missing)")
    tablezoo(["baselines", "table", "--out", str(out), "--results", str(tmp_path)])
    entries = json.loads((tmp_path / "baselines.json").read_text())
    assert sorted(e["algorithm"] for e in entries) == finished
    for e in entries:
        assert (e["game"], e["seats"], e["budget"], e["seeds"]) == ("heckmeck", 2, 512, [0])
        assert e["iqm"] is None and "at least 2 runs" in e["note"]  # one seed: no interval
        assert e["protocol"] is False and e["games_per_cell"] == [4] and e["panel"] == ["random"]
    table = (tmp_path / "baselines.md").read_text().splitlines()
    assert len(table) == 2 + len(entries) and all(name in "".join(table) for name in finished)
    assert (tmp_path / "baselines-heckmeck.png").stat().st_size > 0


def test_a_stopped_row_that_cannot_resume_trains_again_from_an_empty_folder(tmp_path: Path) -> None:
    pytest.importorskip("tianshou", reason="the tianshou_dqn row needs tianshou")
    stale = tmp_path / "tianshou_dqn" / "heckmeck-2p" / "512" / "seed0" / "train" / "left-over"
    stale.parent.mkdir(parents=True)
    stale.write_text("from a stopped run")
    tablezoo(
        ["baselines", "run", "tianshou_dqn", "heckmeck", "--players", "2", "--out", str(tmp_path), *SMOKE]
    )
    assert not stale.exists() and (stale.parent / "model.pt").exists()


def test_a_row_stopped_after_training_says_it_resumed_and_counts_the_trainings_own_time(
    tmp_path: Path,
) -> None:
    row = ["baselines", "run", "batched_ppo", "heckmeck", "--players", "2", "--out", str(tmp_path), *SMOKE]
    tablezoo(row)
    folder = tmp_path / "batched_ppo" / "heckmeck-2p" / "512" / "seed0"
    (folder / "result.json").unlink()  # stopped while it was being scored: the training is whole
    tablezoo(row)
    result = json.loads((folder / "result.json").read_text())["baseline"]
    lines = [json.loads(line) for line in (folder / "train" / "metrics.jsonl").read_text().splitlines()]
    logged = sum(line["play_s"] + line["learn_s"] for line in lines) / 60
    assert result["resumed"] is True and result["train_minutes"] == round(logged, 2)


def test_a_batched_row_trains_with_its_games_own_flags_and_records_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert baselines.BATCHED_FLAGS == {("court", 2): ["--max-cycles", "1000", "--cut-reward", "-1"]}
    flags = ["--max-cycles", "2", "--cut-reward", "-1"]  # every training game cut at once
    monkeypatch.setitem(baselines.BATCHED_FLAGS, ("court", 2), flags)
    tablezoo(["baselines", "run", "batched_ppo", "court", "--players", "2", "--out", str(tmp_path), *SMOKE])
    folder = tmp_path / "batched_ppo" / "court-2p" / "512" / "seed0"
    assert json.loads((folder / "result.json").read_text())["baseline"]["trainer_flags"] == flags
    lines = [json.loads(line) for line in (folder / "train" / "metrics.jsonl").read_text().splitlines()]
    assert all(line["cut_games"] > 0 for line in lines)
    tablezoo(["baselines", "run", "batched_ppo", "court", "--players", "4", "--out", str(tmp_path), *SMOKE])
    other = tmp_path / "batched_ppo" / "court-4p" / "512" / "seed0"
    assert "trainer_flags" not in json.loads((other / "result.json").read_text())["baseline"]  # 2 seats only
    lines = [json.loads(line) for line in (other / "train" / "metrics.jsonl").read_text().splitlines()]
    assert not any(line["cut_games"] for line in lines)


def test_the_table_seat_counts_are_the_protocols() -> None:
    from tablezoo.evaluation.protocol import SEATS

    assert {game: SEATS[game] for game in baselines.GAMES} == baselines.TABLE_SEATS


def test_publish_copies_full_protocol_rows_their_policies_and_aggregates(tmp_path: Path) -> None:
    """``publish`` takes the rows scored by the whole protocol (not the smoke rows), names them,
    copies each one's policy, and aggregates rows of three seeds as ``aggregate`` does."""
    shipped = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "protocol"
    out, results = tmp_path / "runs", tmp_path / "published"
    runs = []
    for seed in range(3):
        result = json.loads((shipped / f"batched_ppo-heckmeck-2p-1M-seed{seed}.json").read_text())
        folder = out / "batched_ppo" / "heckmeck-2p" / "1000000" / f"seed{seed}"
        (folder / "train").mkdir(parents=True)
        (folder / "train" / "actor.pt").write_bytes(b"weights %d" % seed)
        (folder / "result.json").write_text(json.dumps(result))
        runs.append(result)
    smoke = json.loads(json.dumps(runs[0]))
    smoke["cells"] = [{**c, "games": 4} for c in smoke["cells"]]
    smoke["baseline"]["seed"] = 7
    (out / "batched_ppo" / "heckmeck-2p" / "1000000" / "seed7").mkdir(parents=True)
    (out / "batched_ppo" / "heckmeck-2p" / "1000000" / "seed7" / "result.json").write_text(json.dumps(smoke))
    names = baselines.publish(out, results)
    assert names == [f"batched_ppo-heckmeck-2p-1M-seed{s}" for s in range(3)]  # not the 4-game row
    assert (results / "policies" / "batched_ppo-heckmeck-2p-1M-seed1.pt").read_bytes() == b"weights 1"
    # the published policy file, not the run folder's path
    published = json.loads((results / "batched_ppo-heckmeck-2p-1M-seed1.json").read_text())
    assert published["policy"]["given"] == "policies/batched_ppo-heckmeck-2p-1M-seed1.pt"
    summary = json.loads((results / "aggregate-batched_ppo-heckmeck-2p-1M.json").read_text())
    assert summary["policies"][1] == "policies/batched_ppo-heckmeck-2p-1M-seed1.pt"
    assert summary["iqm"] == pytest.approx(aggregate(runs)["iqm"])
    assert (results / "profile-batched_ppo-heckmeck-2p-1M.png").stat().st_size > 0
    entries = baselines.table(tmp_path / "empty", results)  # the table reads the published rows too
    assert [(e["game"], e["seats"], e["seeds"]) for e in entries] == [("heckmeck", 2, [0, 1, 2])]
    assert baselines.budget_label(10_000_000) == "10M" and baselines.budget_label(100_000) == "100k"
    summary_lines = (results / "summary.md").read_text().splitlines()
    assert summary_lines[0].startswith("| game | seats | batched_ppo 1M | batched_ppo 10M |")
    assert summary_lines[2].startswith("| heckmeck | 2 | 0.79 [")
    assert summary_lines[2].endswith("| - | - | - |")  # no 10M, MaskablePPO or CleanRL row yet


def test_a_seeds_rows_at_every_seat_count_make_one_protocol_score(tmp_path: Path) -> None:
    """The published 1M Diamant rows at 3, 4 and 8 seats, three seeds: the table and ``publish``
    join each seed's three into one protocol result and sum the seeds up over all nine cells."""
    shipped = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "protocol"
    results = tmp_path / "published"
    results.mkdir()
    parts = {}
    for seats in (3, 4, 8):
        for seed in range(3):
            name = f"batched_ppo-diamant-{seats}p-1M-seed{seed}.json"
            if seats == 8 and seed == 2:
                continue  # seed 2 lacks a seat count: left out of the joined row
            parts[seats, seed] = json.loads((shipped / name).read_text())
            (results / name).write_text(json.dumps(parts[seats, seed]))
    entries = baselines.table(tmp_path / "empty", results)
    joined = [e for e in entries if e["seats"] == "3/4/8"]
    assert [(e["algorithm"], e["seeds"], e["protocol"]) for e in joined] == [("batched_ppo", [0, 1], False)]
    expected = aggregate([join_seat_counts([parts[n, seed] for n in (3, 4, 8)]) for seed in (0, 1)])
    assert joined[0]["iqm"] == expected["iqm"] and len(joined[0]["cells"]) == len(expected["cells"]) > 3
    assert entries[-1] is joined[0]  # after the game's seat counts
    line = next(
        x for x in (results / "summary.md").read_text().splitlines() if x.startswith("| diamant | 3/4/8 |")
    )
    assert line.startswith(f"| diamant | 3/4/8 | {expected['iqm']:.2f} [") and "(2 seeds)" in line
    (results / "batched_ppo-diamant-8p-1M-seed2.json").write_text(
        (shipped / "batched_ppo-diamant-8p-1M-seed2.json").read_text()
    )
    baselines.publish(tmp_path / "empty", results)
    summary = json.loads((results / "aggregate-batched_ppo-diamant-all-1M.json").read_text())
    assert summary["runs"] == 3 and summary["training_seeds"] == [0, 1, 2] and len(summary["cells"]) > 3
    assert (results / "profile-batched_ppo-diamant-all-1M.png").stat().st_size > 0
