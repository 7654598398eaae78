"""Moved to :mod:`tablezoo.evaluation.cli_args`: this name stays for code written against 0.6 and warns.

Import from :mod:`tablezoo.evaluation.cli_args` instead.
"""

from __future__ import annotations

import warnings

from tablezoo.evaluation.cli_args import (
    game_args as game_args,
)
from tablezoo.evaluation.cli_args import (
    game_of as game_of,
)
from tablezoo.evaluation.cli_args import (
    reading_args as reading_args,
)

warnings.warn(
    "tablezoo.training.cli_args moved to tablezoo.evaluation.cli_args; import from there",
    DeprecationWarning,
    stacklevel=2,
)
