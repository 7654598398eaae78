"""Moved to :mod:`tablezoo.evaluation.protocol` and its neighbours (results, compare, aggregate,
provenance, cli): this name stays for code written against 0.6 and warns.

Import from :mod:`tablezoo.evaluation.protocol` instead.
"""

from __future__ import annotations

import warnings

from tablezoo.evaluation.aggregate import (
    aggregate as aggregate,
)
from tablezoo.evaluation.aggregate import (
    check_together as check_together,
)
from tablezoo.evaluation.aggregate import (
    plot_profile as plot_profile,
)
from tablezoo.evaluation.aggregate import (
    profile_taus as profile_taus,
)
from tablezoo.evaluation.cli import (
    add_benchmark_parser as add_benchmark_parser,
)
from tablezoo.evaluation.cli import (
    cmd_benchmark as cmd_benchmark,
)
from tablezoo.evaluation.cli import (
    format_aggregate as format_aggregate,
)
from tablezoo.evaluation.cli import (
    format_comparison as format_comparison,
)
from tablezoo.evaluation.cli import (
    format_result as format_result,
)
from tablezoo.evaluation.compare import (
    compare as compare,
)
from tablezoo.evaluation.compare import (
    compare_results as compare_results,
)
from tablezoo.evaluation.protocol import (
    FORMAT as FORMAT,
)
from tablezoo.evaluation.protocol import (
    GAMES_PER_CELL as GAMES_PER_CELL,
)
from tablezoo.evaluation.protocol import (
    MIN_GAP as MIN_GAP,
)
from tablezoo.evaluation.protocol import (
    PANELS as PANELS,
)
from tablezoo.evaluation.protocol import (
    PROTOCOL as PROTOCOL,
)
from tablezoo.evaluation.protocol import (
    REFERENCES as REFERENCES,
)
from tablezoo.evaluation.protocol import (
    SEATS as SEATS,
)
from tablezoo.evaluation.protocol import (
    SEED_BASE as SEED_BASE,
)
from tablezoo.evaluation.protocol import (
    Cell as Cell,
)
from tablezoo.evaluation.protocol import (
    Ends as Ends,
)
from tablezoo.evaluation.protocol import (
    Job as Job,
)
from tablezoo.evaluation.protocol import (
    cell_seeds as cell_seeds,
)
from tablezoo.evaluation.protocol import (
    check_counts as check_counts,
)
from tablezoo.evaluation.protocol import (
    checksum as checksum,
)
from tablezoo.evaluation.protocol import (
    evaluate as evaluate,
)
from tablezoo.evaluation.protocol import (
    normalised as normalised,
)
from tablezoo.evaluation.protocol import (
    play_cell as play_cell,
)
from tablezoo.evaluation.protocol import (
    play_cells as play_cells,
)
from tablezoo.evaluation.protocol import (
    references as references,
)
from tablezoo.evaluation.protocol import (
    rounded as rounded,
)
from tablezoo.evaluation.protocol import (
    run_protocol as run_protocol,
)
from tablezoo.evaluation.provenance import (
    LIBRARIES as LIBRARIES,
)
from tablezoo.evaluation.provenance import (
    environment as environment,
)
from tablezoo.evaluation.provenance import (
    git_state as git_state,
)
from tablezoo.evaluation.provenance import (
    policy_hash as policy_hash,
)
from tablezoo.evaluation.provenance import (
    policy_record as policy_record,
)
from tablezoo.evaluation.provenance import (
    reading_of as reading_of,
)
from tablezoo.evaluation.results import (
    FIGURES as FIGURES,
)
from tablezoo.evaluation.results import (
    join_seat_counts as join_seat_counts,
)
from tablezoo.evaluation.results import (
    rescore as rescore,
)
from tablezoo.evaluation.stats import (
    mean_interval as mean_interval,
)
from tablezoo.evaluation.stats import (
    t_quantile as t_quantile,
)
from tablezoo.evaluation.stats import (
    wilson as wilson,
)

warnings.warn(
    "tablezoo.training.benchmark moved to tablezoo.evaluation.protocol; import from there",
    DeprecationWarning,
    stacklevel=2,
)
