"""Moved to :mod:`tablezoo.evaluation.tournament` (its command to :mod:`tablezoo.evaluation.cli`): this
name stays for code written against 0.6 and warns.

Import from :mod:`tablezoo.evaluation.tournament` instead.
"""

from __future__ import annotations

import warnings

from tablezoo.evaluation.cli import (
    add_evaluate_parser as add_evaluate_parser,
)
from tablezoo.evaluation.cli import (
    cmd_evaluate as cmd_evaluate,
)
from tablezoo.evaluation.play import (
    MAX_DECISIONS as MAX_DECISIONS,
)
from tablezoo.evaluation.play import (
    iter_in_order as iter_in_order,
)
from tablezoo.evaluation.play import (
    play_out as play_out,
)
from tablezoo.evaluation.progress import (
    ProgressBar as ProgressBar,
)
from tablezoo.evaluation.stats import (
    wilson as wilson,
)
from tablezoo.evaluation.tournament import (
    PART_GAMES as PART_GAMES,
)
from tablezoo.evaluation.tournament import (
    Part as Part,
)
from tablezoo.evaluation.tournament import (
    Standing as Standing,
)
from tablezoo.evaluation.tournament import (
    format_table as format_table,
)
from tablezoo.evaluation.tournament import (
    join_parts as join_parts,
)
from tablezoo.evaluation.tournament import (
    lineup as lineup,
)
from tablezoo.evaluation.tournament import (
    named_tournament as named_tournament,
)
from tablezoo.evaluation.tournament import (
    one_against_all as one_against_all,
)
from tablezoo.evaluation.tournament import (
    play_game as play_game,
)
from tablezoo.evaluation.tournament import (
    play_part as play_part,
)
from tablezoo.evaluation.tournament import (
    split_tournament as split_tournament,
)
from tablezoo.evaluation.tournament import (
    tournament as tournament,
)

warnings.warn(
    "tablezoo.training.evaluate moved to tablezoo.evaluation.tournament; import from there",
    DeprecationWarning,
    stacklevel=2,
)
