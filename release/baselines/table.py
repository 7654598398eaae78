"""The baselines' table and their publishing: every finished row summed up, the full-protocol
rows copied with their policies (see :mod:`tablezoo.release.baselines`).

Numpy, the evaluation layer and (for the plots) matplotlib: no trainer, no torch.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.evaluation.aggregate import aggregate
from tablezoo.evaluation.protocol import GAMES_PER_CELL, PANELS, SEATS
from tablezoo.evaluation.results import join_seat_counts
from tablezoo.games.core import ConfigError
from tablezoo.release.baselines.rows import ALGORITHMS, GAMES, MIN_SEEDS, TABLE_SEATS


def budget_label(budget: int) -> str:
    """1000000 -> ``1M``, 100000 -> ``100k``: how published files name a budget."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if budget >= size and budget % size == 0:
            return f"{budget // size}{unit}"
    return str(budget)


def published_name(baseline: dict[str, Any]) -> str:
    """``batched_ppo-heckmeck-2p-1M-seed0``: a published row's file name, without its suffix."""
    b = baseline
    return f"{b['algorithm']}-{b['game']}-{b['seats']}p-{budget_label(b['budget'])}-seed{b['seed']}"


def finished_rows(out: Path, results: Path | None = None) -> list[dict[str, Any]]:
    """Every finished row's result: those under ``out``, and those published in ``results``
    (``<name>-seed<S>.json``) that ``out`` does not hold (a row is one algorithm, game, seat count,
    budget and seed)."""
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    paths = sorted(results.glob("*-seed*.json")) if results is not None else []
    for path in [*paths, *sorted(out.glob("*/*/*/seed*/result.json"))]:  # out's last: it wins
        result = json.loads(path.read_text())
        b = result.get("baseline")
        if b is not None:
            rows[(b["algorithm"], b["game"], b["seats"], b["budget"], b["seed"])] = result
    return list(rows.values())


def published_rows(results: Path) -> list[dict[str, Any]]:
    """The rows published in ``results`` (``<name>-seed<S>.json``)."""
    rows = [json.loads(path.read_text()) for path in sorted(results.glob("*-seed*.json"))]
    return [row for row in rows if row.get("baseline") is not None]


def full_protocol(result: dict[str, Any]) -> bool:
    """Whether a row was scored against the protocol's whole panel at its games a cell."""
    cells = result["cells"]
    game = result["baseline"]["game"]
    return all(c["games"] == GAMES_PER_CELL for c in cells) and sorted(
        c["opponent"] for c in cells
    ) == sorted(PANELS[game])


def joined_runs(rows: list[dict[str, Any]]) -> dict[tuple[str, str, int], list[list[dict[str, Any]]]]:
    """Per algorithm, game and budget, each training seed's full-protocol rows at every one of
    the table's seat counts (in order of seat count), seeds that lack one left out: the parts
    of one protocol result a seed (:func:`~tablezoo.evaluation.results.join_seat_counts`)."""
    by_seed: dict[tuple[str, str, int, int], dict[int, dict[str, Any]]] = {}
    for result in rows:
        if full_protocol(result):
            b = result["baseline"]
            by_seed.setdefault((b["algorithm"], b["game"], b["budget"], b["seed"]), {})[b["seats"]] = result
    joined: dict[tuple[str, str, int], list[list[dict[str, Any]]]] = {}
    for (algorithm, game, budget, _seed), parts in sorted(by_seed.items()):
        if tuple(sorted(parts)) == TABLE_SEATS[game]:
            joined.setdefault((algorithm, game, budget), []).append([parts[n] for n in sorted(parts)])
    return joined


def joined_label(game: str) -> str:
    """``2/4/7``: the table's seat counts of ``game``, as a joined row's seats."""
    return "/".join(map(str, TABLE_SEATS[game]))


def publish(out: Path, results: Path) -> list[str]:
    """Copy every finished full-protocol row under ``out`` into ``results``: its result
    (``<name>.json``, :func:`published_name`) and its trained policy
    (``policies/<name>.pt`` or ``.npz``, a file ``tablezoo benchmark`` plays); then, for each
    row with at least ``MIN_SEEDS`` seeds, the aggregate over them (``aggregate-<row>.json``) and
    its performance profile (``profile-<row>.png``). Returns the names published.

    A published result stands alone: its policy is given as ``policies/<name>.<suffix>``, relative
    to ``results`` (the file its SHA-256 is of), and no path of the machine that made it is kept
    (:func:`~tablezoo.evaluation.results.make_portable`)."""
    from tablezoo.evaluation.aggregate import plot_profile
    from tablezoo.evaluation.results import make_portable

    names = []
    (results / "policies").mkdir(parents=True, exist_ok=True)
    for path in sorted(out.glob("*/*/*/seed*/result.json")):
        result = json.loads(path.read_text())
        if not full_protocol(result):
            continue
        name = published_name(result["baseline"])
        policy = path.parent / result["baseline"]["policy_file"]
        if policy.is_file():
            shutil.copyfile(policy, results / "policies" / f"{name}{policy.suffix}")
            result["policy"]["given"] = f"policies/{name}{policy.suffix}"
        portable = make_portable(result, results)
        (results / f"{name}.json").write_text(json.dumps(portable, indent=1) + "\n")
        names.append(name)
    groups: dict[str, list[dict[str, Any]]] = {}
    published = published_rows(results)  # the aggregates name the published policy files
    for result in published:
        if full_protocol(result):
            groups.setdefault(published_name(result["baseline"]).rsplit("-seed", 1)[0], []).append(result)
    for (algorithm, game, budget), seeds in joined_runs(published).items():
        groups[f"{algorithm}-{game}-all-{budget_label(budget)}"] = [join_seat_counts(p) for p in seeds]
    for row, runs in sorted(groups.items()):
        if len(runs) >= MIN_SEEDS:
            summary = make_portable(aggregate(runs), results)
            (results / f"aggregate-{row}.json").write_text(json.dumps(summary, indent=1) + "\n")
            plot_profile(summary, results / f"profile-{row}.png")
    return names


def table(out: Path, results: Path) -> list[dict[str, Any]]:
    """Sum up every finished row under ``out`` and published in ``results`` (rliable IQM over
    seeds); write the JSON, the markdown table and a learning-curve plot per game into
    ``results``; the table's entries."""
    groups: dict[tuple[str, str, int, int], list[dict[str, Any]]] = {}
    for result in finished_rows(out, results):
        b = result["baseline"]
        groups.setdefault((b["algorithm"], b["game"], b["seats"], b["budget"]), []).append(result)
    entries = []
    for (algorithm, game, seats, budget), runs in groups.items():
        runs.sort(key=lambda r: r["baseline"]["seed"])
        entry: dict[str, Any] = {
            "algorithm": algorithm,
            "game": game,
            "seats": seats,
            "budget": budget,
            "seeds": [r["baseline"]["seed"] for r in runs],
            "decisions": [r["baseline"]["decisions"] for r in runs],
            "train_minutes": [r["baseline"]["train_minutes"] for r in runs],
            "games_per_cell": sorted({c["games"] for r in runs for c in r["cells"]}),
            "panel": sorted({c["opponent"] for r in runs for c in r["cells"]}),
            "win_share": {},
        }
        entry["protocol"] = (
            entry["games_per_cell"] == [GAMES_PER_CELL]
            and entry["panel"] == sorted(PANELS[game])
            and len(runs) >= MIN_SEEDS
        )
        for cell in runs[0]["cells"]:
            shares = [c["win_share"] for r in runs for c in r["cells"] if c["opponent"] == cell["opponent"]]
            entry["win_share"][cell["opponent"]] = round(float(np.mean(shares)), 4)
        try:
            summary = aggregate(runs)
            entry |= {k: summary[k] for k in ("cells", "iqm", "iqm_95ci", "mean", "mean_95ci")}
        except ConfigError as err:  # one seed, no normalised cell, or results of unlike cells
            entry["iqm"], entry["note"] = None, str(err)
            if len(runs) == 1:
                entry["normalised_score"] = runs[0].get("normalised_score")  # that seed's mean
        entry["curves"] = [r["baseline"]["curve"] for r in runs]
        if all("curve_seconds" in r["baseline"] for r in runs):
            entry["curve_seconds"] = [r["baseline"]["curve_seconds"] for r in runs]
        entries.append(entry)
    for (algorithm, game, budget), seeds in joined_runs(finished_rows(out, results)).items():
        entry = {
            "algorithm": algorithm,
            "game": game,
            "seats": joined_label(game),
            "budget": budget,
            "seeds": [parts[0]["baseline"]["seed"] for parts in seeds],
            "decisions": [sum(r["baseline"]["decisions"] for r in parts) for parts in seeds],
            "train_minutes": [sum(r["baseline"]["train_minutes"] for r in parts) for parts in seeds],
            "games_per_cell": [GAMES_PER_CELL],
            "panel": sorted(PANELS[game]),
            "win_share": {},
            "protocol": len(seeds) >= MIN_SEEDS,
            "curves": [],
        }
        try:
            summary = aggregate([join_seat_counts(parts) for parts in seeds])
            entry |= {k: summary[k] for k in ("cells", "iqm", "iqm_95ci", "mean", "mean_95ci")}
        except ConfigError as err:  # one seed
            entry["iqm"], entry["note"] = None, str(err)
        entries.append(entry)
    order = {name: i for i, name in enumerate(ALGORITHMS)}
    entries.sort(
        key=lambda e: (
            GAMES.index(e["game"]),
            isinstance(e["seats"], str),  # a game's joined rows after its seat counts
            e["seats"] if isinstance(e["seats"], int) else 0,
            order[e["algorithm"]],
            e["budget"],
        )
    )
    results.mkdir(parents=True, exist_ok=True)
    (results / "baselines.json").write_text(json.dumps(entries, indent=1) + "\n")
    (results / "baselines.md").write_text(markdown(entries))
    (results / "summary.md").write_text(summary_markdown(entries))
    for game in dict.fromkeys(e["game"] for e in entries):
        curves = [e for e in entries if e["game"] == game and isinstance(e["seats"], int)]
        plot(game, curves, results / f"baselines-{game}.png")
    return entries


def markdown(entries: list[dict[str, Any]]) -> str:
    """The table in markdown: one line per algorithm, game, seat count and budget."""
    lines = [
        "| game | seats | algorithm | budget | decisions | seeds | games a cell | vs random | vs heuristic "
        "| vs strongest | normalised IQM [95% CI] | protocol | training minutes |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |",
    ]
    for e in entries:
        share = e["win_share"]
        strongest = PANELS[e["game"]][-1] if len(PANELS[e["game"]]) > 2 else ""
        iqm = (
            "n/a"
            if e.get("iqm") is None
            else f"{e['iqm']:.2f} [{e['iqm_95ci'][0]:.2f}, {e['iqm_95ci'][1]:.2f}]"
        )
        cells = [
            e["game"],
            str(e["seats"]),
            e["algorithm"],
            f"{e['budget']:,}",
            f"{round(float(np.mean(e['decisions']))):,}",
            str(len(e["seeds"])),
            "/".join(f"{g:,}" for g in e.get("games_per_cell", [])),
            f"{share['random']:.3f}" if "random" in share else "",
            f"{share['heuristic']:.3f}" if "heuristic" in share else "",
            f"{share[strongest]:.3f}" if strongest in share else "",
            iqm,
            "yes" if e.get("protocol") else "no",
            f"{np.mean(e['train_minutes']):.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


SUMMARY_COLUMNS = [("batched_ppo", 1_000_000), ("batched_ppo", 10_000_000), ("maskable_ppo", 1_000_000)]
SUMMARY_COLUMNS += [("cleanrl_ppo", 1_000_000)]
"""The README's table: the protocol's rows, by algorithm and budget."""


def summary_markdown(entries: list[dict[str, Any]]) -> str:
    """The protocol's rows as one line per game and seat count, one column per algorithm and
    budget of :data:`SUMMARY_COLUMNS`: the normalised IQM over the seeds with its 95% interval,
    or for one seed its mean normalised score (``n/a`` where no cell is normalised), and the
    seeds (fewer than ``MIN_SEEDS``: not yet a protocol row); rows scored otherwise left out,
    columns not run yet marked ``-``. A game's last line (seats ``2/4/7``) is the protocol's
    score over its three seat counts at once, each seed's three policies joined into one result
    (:func:`joined_runs`)."""
    done = {
        (e["game"], e["seats"], e["algorithm"], e["budget"]): e
        for e in entries
        if e["games_per_cell"] == [GAMES_PER_CELL] and e["panel"] == sorted(PANELS[e["game"]])
    }
    head = " | ".join(f"{a} {budget_label(b)}" for a, b in SUMMARY_COLUMNS)
    lines = [f"| game | seats | {head} |", "| --- | ---: |" + " --- |" * len(SUMMARY_COLUMNS)]
    for game in GAMES:
        for seats in (*SEATS[game], joined_label(game)):
            cells = []
            for algorithm, budget in SUMMARY_COLUMNS:
                e = done.get((game, seats, algorithm, budget))
                seeds = len(e["seeds"]) if e is not None else 0
                if e is None:
                    cells.append("-")
                elif e.get("iqm") is not None:
                    low, high = e["iqm_95ci"]
                    cells.append(f"{e['iqm']:.2f} [{low:.2f}, {high:.2f}] ({seeds} seeds)")
                elif e.get("normalised_score") is not None:
                    cells.append(f"{e['normalised_score']:.2f} (1 seed: its mean, no interval)")
                else:
                    cells.append(f"n/a ({seeds} seed{'s' if seeds > 1 else ''})")
            lines.append(f"| {game} | {seats} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(game: str, entries: list[dict[str, Any]], path: Path) -> None:
    """One game's learning curves: win share against the heuristic by decisions, one panel per
    seat count, one line per algorithm and budget (the mean over seeds at each checkpoint; the
    decisions on a log scale where the budgets are ten times apart)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seat_counts = sorted({e["seats"] for e in entries})
    timed = any("curve_seconds" in e for e in entries)
    rows = 2 if timed else 1
    fig, axes = plt.subplots(rows, len(seat_counts), figsize=(6 * len(seat_counts), 4 * rows), squeeze=False)
    if timed:
        for ax, seats in zip(axes[1], seat_counts, strict=True):
            _plot_by_time(
                ax, game, seats, [e for e in entries if e["seats"] == seats and "curve_seconds" in e]
            )
    for ax, seats in zip(axes[0], seat_counts, strict=True):
        for e in (e for e in entries if e["seats"] == seats):
            points = min(len(c) for c in e["curves"])
            if not points:
                continue
            steps = [e["curves"][0][i][0] for i in range(points)]
            shares = [float(np.mean([c[i][1] for c in e["curves"]])) for i in range(points)]
            seeds = len(e["seeds"])
            label = f"{e['algorithm']} ({e['budget']:,}, {seeds} seed{'s' if seeds > 1 else ''})"
            ax.plot(steps, shares, marker="o", markersize=3, label=label)
        budgets = [e["budget"] for e in entries if e["seats"] == seats]
        if max(budgets) >= 10 * min(budgets):
            ax.set_xscale("log")  # budgets ten times apart: each curve gets its share of the width
        _finish(ax, seats, f"{game}, {seats} seats", "learner decisions")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_by_time(ax: Any, game: str, seats: int, entries: list[dict[str, Any]]) -> None:
    """The same curves against the training's own minutes (the mean over seeds at each point)."""
    for e in entries:
        points = min(len(c) for c in e["curves"])
        if not points:
            continue
        minutes = [float(np.mean([t[i] for t in e["curve_seconds"]])) / 60 for i in range(points)]
        shares = [float(np.mean([c[i][1] for c in e["curves"]])) for i in range(points)]
        ax.plot(minutes, shares, marker="o", markersize=3, label=f"{e['algorithm']} ({e['budget']:,})")
    _finish(
        ax, seats, f"{game}, {seats} seats, by training time", "training minutes (play and learn; one core)"
    )


def _finish(ax: Any, seats: int, title: str, xlabel: str) -> None:
    """A panel's fair-share line, title, axes, grid and legend."""
    ax.axhline(1 / seats, color="grey", linestyle="--", linewidth=1, label="fair share")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win share vs heuristic")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
