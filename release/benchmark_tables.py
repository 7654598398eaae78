"""The Markdown tables of the benchmarks' result files, as the documentation and the scripts show them.

Each program of ``benchmarks/`` measures and writes its figures to ``benchmarks/results/NAME.json``;
the table made of such a file lives here, in the package, so that the documentation's build
(``docs/hooks/pages.py``: a line ``<!-- table: NAME -->`` of a page becomes :func:`result_table`
of ``NAME``) and the script that printed it after a run (``python benchmarks/NAME.py``) use one
function, and neither loads the other. :data:`TABLES` names them; each takes the result (the
JSON's dict) and returns Markdown. Plain Python: nothing is imported to read a result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tablezoo.games import game_class
from tablezoo.games.core import ConfigError

BATCH_SIZES = (1, 64, 1024, 4096)
"""The batch sizes of ``benchmarks/batched.py``'s self-play rows, in the order its table shows them."""


def throughput_table(result: dict[str, Any]) -> str:
    """The README's table of a run: a row per game, seat count and core; a target missed in bold."""

    def mark(value: str, met: bool | None) -> str:
        return f"**{value}**" if met is False else value

    rows = [
        "| game, seats | core | engine µs | engine ÷ `pig` (÷ `leduc_poker`) | native loop ÷ Python engine "
        "| `observe` ÷ decision | `env()` ÷ connect_four | `raw_env()` ÷ `env()` "
        "| `parallel_env()` ÷ `env()`: own cost (whole loop) | `observe_batch` speed-up at 64 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g in result["games"].values():
        for core, c in g["cores"].items():
            met = c["met"]
            for k, (seats, split) in enumerate(c["seat_counts"].items()):
                main_row = k == 0
                loop = split.get("native_loop_vs_python_engine")
                cells = [
                    f"{g['title']} {seats}",
                    core,
                    f"{split['engine_us']:.2f}",
                    mark(f"{split['engine_vs_pig']:.2f}×", met.get("engine_vs_pig") if main_row else None)
                    + f" ({split['engine_vs_card_game']:.2f}×)",
                    mark(f"{loop:.0f}×", met.get("native_loop") if main_row else None) if loop else "",
                    mark(f"{split['observe_vs_engine']:.2f}", met.get("observe") if main_row else None),
                ]
                if main_row:
                    cells += [
                        mark(f"{c['env_vs_reference_env']:.1f}×", met.get("env")),
                        mark(f"{c['raw_env_vs_env']:.2f}", met.get("raw_env")),
                        _parallel_cell(c, mark),
                        f"{c['observe_batch']['speedup']:.2f}×",
                    ]
                else:
                    cells += [""] * 4
                rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _parallel_cell(c: dict[str, Any], mark: Any) -> str:
    """``parallel_env()`` over ``env()``: by the envs' own costs (the target), then by the whole loops;
    the loops alone in a result written before the own costs were measured."""
    loop = f"{c['parallel_env_vs_env']:.2f}"
    if "parallel_env_own_vs_env_own" not in c:
        return loop
    own = mark(f"{c['parallel_env_own_vs_env_own']:.2f}", c["met"].get("parallel_env"))
    return f"{own} ({loop})"


def _step_call_cell(g: dict[str, Any], mark: Any) -> str:
    """The step call's 2-threads-to-1 ratio at 4,096 games, or "not measured" in a result written
    before it was (the row came with the thread pool's rework)."""
    if "step_call_two_threads_vs_one_at_4096" not in g:
        return "not measured"
    return mark(f"{g['step_call_two_threads_vs_one_at_4096']:.2f}×", g["met"]["step_call_threads"])


def batched_table(result: dict[str, Any]) -> str:
    """The batched env's table of a run: a row per game at its seat count; a target missed in bold."""

    def mark(value: str, met: bool) -> str:
        return value if met else f"**{value}**"

    rows = [
        "| game | `env()` steps/s | DummyVecEnv / SyncVectorEnv (64) | self-play at 1 / 64 / 1,024 / 4,096 "
        "(1 thread) | 1,024 ÷ `env()` | 2 threads ÷ 1 | step call at 4,096: 2 threads ÷ 1 "
        "| learner at 1,024 ÷ DummyVecEnv | MB at 4,096 "
        "| MaskablePPO batched ÷ DummyVecEnv (env share) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g in result["games"].values():
        s, met = g["selfplay_steps_per_s"], g["met"]
        ppo = g.get("maskable_ppo")
        rows.append(
            "| "
            + " | ".join(
                [
                    f"{g['title']} {g['num_players']}",
                    f"{g['python_env_steps_per_s']:,}",
                    f"{g['dummy_vec_env_steps_per_s']:,} / {g['sync_vector_env_steps_per_s']:,}",
                    " / ".join(f"{s[str(n)]['1']:,}" for n in BATCH_SIZES),
                    mark(f"{g['selfplay_1024_vs_python_env']:.0f}×", met["selfplay_vs_env"]),
                    mark(f"{g['two_threads_vs_one_at_1024']:.2f}×", met["threads"]),
                    _step_call_cell(g, mark),
                    f"{g['learner_1024_vs_dummy_vec_env']:.0f}×",
                    mark(f"{g['memory_mb_at_4096']:.0f}", met["memory"]),
                    f"{ppo['speedup']:.2f}× ({ppo['batched_env_share']:.0%})" if ppo else "",
                ]
            )
            + " |"
        )
    return "\n".join(rows)


def scoring_speed_table(result: dict[str, Any]) -> str:
    """The rows as a Markdown table: games per second at each ``--jobs``."""
    lines = [
        f"| policy ({result['game']}, {result['seats']} seats) | against | jobs | games | seconds "
        "| games/s |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['policy']} (`{row['file']}`) | {row['opponent']} | {row['jobs']} | {row['games']} "
            f"| {row['seconds']:.1f} "
            f"| {row['games_per_second']:.1f} |"
        )
    load = result.get("load_average_before")
    if load is not None:
        lines.append("")
        lines.append(
            f"{result['cpus']} cores; load average {load[0]:.1f} before the run, "
            f"{result['load_average_after'][0]:.1f} after "
            f"(torch's default: {result['torch_default_threads']} threads)."
        )
    return "\n".join(lines) + "\n"


def search_budget_rows(rows: list[dict[str, Any]]) -> str:
    """``benchmarks/search_budget.py``'s rows as Markdown: a row per player, seat count and opponent."""
    lines = [
        "| game | seats | player | against | ms a move (most seats) | win share [95% CI] | games |",
        "|---|---:|---|---|---:|---|---:|",
    ]
    for r in rows:
        share = (
            f"{r['win_share']:.3f} [{r['interval'][0]:.3f}, {r['interval'][1]:.3f}]" if "games" in r else "-"
        )
        ms = f"{r['median_ms']:.2f} ({r['ms_seats']} seats)"
        cells = [
            r["game"],
            str(r["seats"]),
            f"`{r['player']}`",
            r["against"],
            ms,
            share,
            str(r.get("games", 0)),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def search_budget_table(result: dict[str, Any]) -> str:
    """The table of ``benchmarks/search_budget.py``'s run (:func:`search_budget_rows` of its rows)."""
    return search_budget_rows(result["rows"])


def gumbel_curves_rows(rows: list[dict[str, Any]]) -> str:
    """The runs as a markdown table, one line per run and checked seat count."""
    lines = [
        "| game | run | against | rounds | decisions | hours (play + fit) | seats "
        "| first | last | best | mean of the last 5 | chosen round |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        for s in [k for k in row if k.endswith("p") and isinstance(row[k], dict)]:
            against = (
                f" (`{row['opponent']}` in {row['opponent_share']:g} of the games)"
                if row.get("opponent")
                else ""
            )
            run = [
                game_class(row["game"]).info.title,
                row["run"] + against,
                row["bot"],
                str(row["rounds"]),
                f"{row['decisions']:,}",
            ]
            c = row[s]
            figures = [
                f"{row['hours']:.2f}",
                s[:-1],
                *(f"{c[k]:.3f}" for k in ("first", "last", "best", "mean_last_5")),
                str(row["chosen_round"]),
            ]
            lines.append("| " + " | ".join(run + figures) + " |")
    return "\n".join(lines) + "\n"


def gumbel_curves_table(result: dict[str, Any]) -> str:
    """The table of ``benchmarks/gumbel_curves.py``'s runs (:func:`gumbel_curves_rows` of its rows)."""
    return gumbel_curves_rows(result["rows"])


def native_bots_table(result: dict[str, Any]) -> str:
    """The run's rows as Markdown: ms per move of each port and its twin, then the head-to-heads."""
    lines = [
        "| game | bot | seats | positions | Python ms | native ms | speed-up | values: speed-up |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    duels = [
        "| game | bot | seats | games | port's win share [95% CI] | same player |",
        "|---|---|---:|---:|---|---|",
    ]
    for r in result["rows"]:
        if "head_to_head" in r:
            d = r["head_to_head"]
            low, high = d["interval"]
            share = f"{d['port_win_share']:.3f} [{low:.3f}, {high:.3f}]"
            duels.append(
                f"| {r['game']} | {r['bot']} | {d['seats']} | {d['games']} | {share} | {d['same_player']} |"
            )
            continue
        act = r["act"]
        values = f"{r['action_values']['speedup']}×" if "action_values" in r else ""
        lines.append(
            f"| {r['game']} | {r['bot']} | {r['seats']} | {r['positions']} | {act['python_ms']:.3f} | "
            f"{act['native_ms']:.4f} | {act['speedup']}× | {values} |"
        )
    return "\n".join(lines) + "\n\n" + "\n".join(duels) if len(duels) > 2 else "\n".join(lines)


def selfplay_rate_table(result: dict[str, Any]) -> str:
    """The run's rows as Markdown: games per hour of each kind on each core."""
    lines = [
        "| game | games of | bot | Python core, games/hour | native core, games/hour | speed-up |",
        "|---|---|---|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['game']} | {r['kind']} | `{r['bot']}` | {r['python']['games_per_hour']:,} | "
            f"{r['native']['games_per_hour']:,} | {r['speedup']}× |"
        )
    return "\n".join(lines)


def search_selfplay_rate_table(result: dict[str, Any]) -> str:
    """The run's rows as Markdown: each row's rate, network rows per decision and ratio."""
    lines = [
        "| game | seats | row | searched decisions/s | network rows per decision | × expert iteration |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for r in result["rows"]:
        rows = r.get("rows_per_decision", "-")
        lines.append(
            f"| {r['game']} | {r['seats']} | {r['row']} | {r['rate']:,} | {rows} | {r.get('speedup', 1.0)} |"
        )
    return "\n".join(lines)


TABLES: dict[str, Callable[[dict[str, Any]], str]] = {
    "throughput": throughput_table,
    "batched": batched_table,
    "scoring_speed": scoring_speed_table,
    "search_budget": search_budget_table,
    "gumbel_curves": gumbel_curves_table,
    "native_bots": native_bots_table,
    "selfplay_rate": selfplay_rate_table,
    "search_selfplay_rate": search_selfplay_rate_table,
}
"""Each benchmark whose results the documentation shows as a table, by name (its script's and its
result file's), and the function that makes the table of a result."""


def result_table(name: str, results: Path) -> str:
    """The table of the benchmark ``name`` of its result file ``results/<name>.json``."""
    if name not in TABLES:
        raise ConfigError(f"no table of a benchmark {name!r}; the tables are: {', '.join(TABLES)}")
    return TABLES[name](json.loads((results / f"{name}.json").read_text()))
