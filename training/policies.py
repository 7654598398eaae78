"""Moved to :mod:`tablezoo.evaluation.policies`: this name stays for code written against 0.6 and warns.

Import from :mod:`tablezoo.evaluation.policies` instead.
"""

from __future__ import annotations

import warnings

from tablezoo.evaluation.loaders import SB3_ALGORITHMS as SB3_ALGORITHMS
from tablezoo.evaluation.policies import FLAGS as FLAGS
from tablezoo.evaluation.policies import OBSERVATION_ATTR as OBSERVATION_ATTR
from tablezoo.evaluation.policies import SCALED_ATTR as SCALED_ATTR
from tablezoo.evaluation.policies import Decide as Decide
from tablezoo.evaluation.policies import FunctionBot as FunctionBot
from tablezoo.evaluation.policies import ImportSpec as ImportSpec
from tablezoo.evaluation.policies import Layout as Layout
from tablezoo.evaluation.policies import Reading as Reading
from tablezoo.evaluation.policies import as_bot as as_bot
from tablezoo.evaluation.policies import import_spec as import_spec
from tablezoo.evaluation.policies import policy_name as policy_name

warnings.warn(
    "tablezoo.training.policies moved to tablezoo.evaluation.policies; import from there",
    DeprecationWarning,
    stacklevel=2,
)
