"""The statistics of scoring: intervals of a win share and of a mean, and paired differences.

Numpy and the standard library only. The statistics over training seeds (rliable's interquartile
mean, performance profiles, probability of improvement) are in :mod:`tablezoo.evaluation.aggregate`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval (95% by default) of a ``share`` of ``n`` games (sound at 0 and 1)."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def t_quantile(p: float, dof: int) -> float:
    """Student's t quantile (Cornish-Fisher expansion of the normal one: within 1e-3 from 5 degrees
    of freedom on; the protocol's cells have hundreds)."""
    z = NormalDist().inv_cdf(p)
    v = float(dof)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def mean_interval(values: np.ndarray, normal: bool = False) -> tuple[float, float]:
    """95% interval of the mean of ``values`` (Student's t; the normal one with ``normal``)."""
    n = len(values)
    if n < 2:
        return (float("-inf"), float("inf"))
    quantile = NormalDist().inv_cdf(0.975) if normal else t_quantile(0.975, n - 1)
    half = quantile * float(np.std(values, ddof=1)) / math.sqrt(n)
    centre = float(np.mean(values))
    return centre - half, centre + half


def standard_error(values: np.ndarray) -> float:
    """The standard error of the mean of ``values`` (infinite for fewer than two)."""
    return float(np.std(values, ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.inf


def mean_of_means(means: Sequence[float], errors: Sequence[float]) -> tuple[float, tuple[float, float]]:
    """The mean of independent means (each weighing the same) with its 95% normal interval."""
    mean = float(np.mean(means))
    se = math.sqrt(sum(e * e for e in errors)) / len(means)
    return mean, (mean - 1.96 * se, mean + 1.96 * se)
