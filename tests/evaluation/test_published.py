"""The published rows stand alone: every seed result has its policy file (its SHA-256 the one the
result records), no result file holds a path of the machine that made it, every figure rescores
from the stored outcomes, every aggregate sums its seeds up to the figures it states, and two
published rows compare with ``--versus`` in any order of their files."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tablezoo.commands import main
from tablezoo.evaluation.aggregate import aggregate
from tablezoo.evaluation.results import join_seat_counts, rescore

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
PUBLISHED = RESULTS / "protocol"
MACHINE_PATH = re.compile(r"(^|[\s=:'\"])/(?:[\w.-]+/)+[\w.-]*")
"""An absolute path with a folder in it (``/work/...``, ``/home/...``)."""


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def _results(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.rglob("*.json")) if "cells" in _json(p) and "policy" in _json(p)]


RESULT_FILES = _results(RESULTS)
SEED_RESULTS = sorted(PUBLISHED.glob("*-seed*.json"))


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def test_the_published_results_are_there() -> None:
    assert len(SEED_RESULTS) >= 87 and len(RESULT_FILES) >= 97


@pytest.mark.parametrize("path", SEED_RESULTS, ids=[p.stem for p in SEED_RESULTS])
def test_every_published_seed_result_has_its_policy_file(path: Path) -> None:
    policy = _json(path)["policy"]
    given = PUBLISHED / policy["given"]
    assert policy["given"].startswith("policies/") and given.is_file(), f"{path.name}: no policy file"
    assert hashlib.sha256(given.read_bytes()).hexdigest() == policy["sha256"]


def test_no_result_file_holds_a_machine_path() -> None:
    found = {
        str(path.relative_to(RESULTS)): hits
        for path in sorted(RESULTS.rglob("*.json"))
        if (hits := [s for s in _strings(_json(path)) if MACHINE_PATH.search(s)])
    }
    assert not found, found
    for path in RESULT_FILES:  # a policy is a path under the result's folder, or a name
        record = _json(path)["policy"]
        for given in [*(record["given"] if isinstance(record["given"], list) else [record["given"]])]:
            assert "/" not in given or (path.parent / given).is_file(), (path, given)


@pytest.mark.parametrize("path", RESULT_FILES, ids=[str(p.relative_to(RESULTS)) for p in RESULT_FILES])
def test_every_published_figure_rescores(path: Path) -> None:
    _, differences = rescore(_json(path))
    assert differences == []


AGGREGATES = sorted(PUBLISHED.glob("aggregate-*.json"))


@pytest.mark.parametrize("path", AGGREGATES, ids=[p.stem for p in AGGREGATES])
def test_every_published_aggregate_sums_its_seeds_up_again(path: Path) -> None:
    pytest.importorskip("rliable")
    stored = _json(path)
    row = path.stem.removeprefix("aggregate-")
    if "-all-" in row:
        seats = sorted({int(c.split("@")[1]) for c in stored["cells"]})
        runs = [
            join_seat_counts(
                [_json(PUBLISHED / f"{row.replace('-all-', f'-{n}p-')}-seed{s}.json") for n in seats]
            )
            for s in stored["training_seeds"]
        ]
    else:
        runs = [_json(PUBLISHED / f"{row}-seed{s}.json") for s in stored["training_seeds"]]
    again = aggregate(runs)
    assert (again["iqm"], again["iqm_95ci"], again["mean"]) == (
        stored["iqm"],
        stored["iqm_95ci"],
        stored["mean"],
    )


def test_versus_of_two_published_rows_is_the_same_in_any_file_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Today's main refused these rows as 'given training seed(s) twice', and answered 0.667 with the
    files in another order: it checked only the first file of each list."""
    pytest.importorskip("rliable")
    ten = [str(PUBLISHED / f"batched_ppo-diamant-3p-10M-seed{s}.json") for s in (0, 1, 2)]
    one = [str(PUBLISHED / f"batched_ppo-diamant-3p-1M-seed{s}.json") for s in (0, 1, 2)]
    answers = []
    for a, b in ((ten, one), (ten[::-1], [one[1], one[2], one[0]]), ([ten[1], ten[0], ten[2]], one[::-1])):
        main(["benchmark", "diamant", "--aggregate", *a, "--versus", *b, "--json"])
        out = json.loads(capsys.readouterr().out)
        assert out["versus"]["paired_by"] == "seed" and out["training_seeds"] == [0, 1, 2]
        assert [p["training_seeds"] for p in out["versus"]["pairs"]] == [[0, 0], [1, 1], [2, 2]]
        answers.append({k: v for k, v in out.items() if k != "command"})
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["training_budgets"] == [10_000_000] and answers[0]["versus"]["training_budgets"] == [
        1_000_000
    ]


def test_two_published_rows_of_different_inputs_compare(capsys: pytest.CaptureFixture[str]) -> None:
    """CleanRL's PPO reads the plain observation, the batched PPO the padded one: each side keeps its
    own input (today's main refused them: 'aggregate takes results of one policy input')."""
    pytest.importorskip("rliable")
    cleanrl = [str(PUBLISHED / f"cleanrl_ppo-diamant-3p-1M-seed{s}.json") for s in (0, 1, 2)]
    batched = [str(PUBLISHED / f"batched_ppo-diamant-3p-1M-seed{s}.json") for s in (0, 1, 2)]
    main(["benchmark", "diamant", "--aggregate", *cleanrl, "--versus", *batched, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["input"]["observation"] == "plain" and out["versus"]["input"]["observation"] == "padded"
    assert 0.0 <= out["versus"]["probability_of_improvement"] <= 1.0


def test_aggregation_refuses_different_training_budgets_unless_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Today's main summed 1M and 10M runs up together (IQM 3.625)."""
    pytest.importorskip("rliable")
    mixed = [
        str(PUBLISHED / "batched_ppo-diamant-3p-10M-seed0.json"),
        str(PUBLISHED / "batched_ppo-diamant-3p-1M-seed1.json"),
        str(PUBLISHED / "batched_ppo-diamant-3p-1M-seed2.json"),
    ]
    with pytest.raises(SystemExit, match="training budget"):
        main(["benchmark", "diamant", "--aggregate", *mixed])
    main(["benchmark", "diamant", "--aggregate", *mixed, "--mixed-budgets", "--json"])
    assert json.loads(capsys.readouterr().out)["training_budgets"] == [1_000_000, 10_000_000]


def test_a_profile_covers_the_range_of_the_data() -> None:
    """Diamant's cells score 6 to 7 at 3 seats against random; the thresholds stopped at 1.5."""
    pytest.importorskip("rliable")
    runs = [_json(PUBLISHED / f"maskable_ppo-diamant-3p-1M-seed{s}.json") for s in (0, 1, 2)]
    summary = aggregate(runs, reps=200)
    top = max(max(row) for row in summary["normalised_scores"])
    low = min(min(row) for row in summary["normalised_scores"])
    tau = summary["performance_profile"]["tau"]
    assert top > 1.5 and tau[-1] > top and tau[0] < min(low, 0.0) and 0.0 in tau and 1.0 in tau
    fraction = summary["performance_profile"]["fraction"]
    assert fraction[0] == 1.0 and fraction[-1] == 0.0
