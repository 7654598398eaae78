"""The core's copies of numpy's draws, bit for bit against numpy's own Generator.

core.h draws chance from a numpy Generator's bits with numpy's algorithms, so that a seeded
game is the same game on both cores: ``Generator.integers`` (Lemire's method, 32-bit below
2**32, 64-bit above), the interval draw of ``Generator.permutation`` (masked rejection) and
Diamant's draw of a card from ``bit_generator.random_raw()``. The module exposes the three
(``numpy_integers``, ``numpy_permutation``, ``raw_below``); each is compared here with what
numpy draws from a generator of the same seed, over many seeds and ranges, the edges
included, and the two generators must end in the same state (the same bits consumed).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """One run: this module calls the core's functions itself (no game, so no core to choose)."""
    return "native"


def _native() -> Any:
    """The pieces of the core only the tests call (its copies of numpy's draws among them)."""
    from tablezoo.games import _native_testing  # type: ignore[attr-defined]

    return _native_testing


SEEDS = range(40)
HIGHS = [
    1,
    2,
    3,
    6,
    7,
    10,
    104,
    6**8,
    3 * 2**30,  # a 32-bit range whose draws are often rejected
    2**31 + 1,
    2**32 - 1,
    2**32,  # the last 32-bit range: one draw, no rejection
    2**32 + 1,  # the first 64-bit range
    6**13,
    2**63,
    2**63 + 1,  # a 64-bit range whose draws are rejected half the time
    2**64 - 1,
]


def _same_state(a: np.random.Generator, b: np.random.Generator) -> bool:
    return a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize("high", HIGHS)
def test_numpy_integers_draws_what_generator_integers_draws(high: int) -> None:
    native = _native()
    for seed in SEEDS:
        ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(25):
            assert native.numpy_integers(ours, high) == int(numpys.integers(0, high, dtype=np.uint64))
        assert _same_state(ours, numpys)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 66, 104, 1000, 70_000])
def test_numpy_permutation_draws_what_generator_permutation_draws(n: int) -> None:
    native = _native()
    for seed in SEEDS if n < 10_000 else range(3):
        ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(3):
            assert native.numpy_permutation(ours, n) == numpys.permutation(n).tolist()
        assert _same_state(ours, numpys)


def _raw_below(rng: np.random.Generator, total: int) -> int:
    """Diamant's draw (games/diamant.py, sample_chance): raw words at or above the largest
    multiple of ``total`` below 2**64 are drawn again, then the remainder is taken."""
    limit = 2**64 - 2**64 % total
    x = int(rng.bit_generator.random_raw())
    while x >= limit:
        x = int(rng.bit_generator.random_raw())
    return x % total


@pytest.mark.parametrize("total", [1, 2, 3, 5, 35, 2**32, 2**32 + 1, 2**63 + 1, 3 * 2**62, 2**64 - 1])
def test_raw_below_draws_what_diamants_reference_draws(total: int) -> None:
    native = _native()
    for seed in SEEDS:
        ours, reference = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(25):
            assert native.raw_below(ours, total) == _raw_below(reference, total)
        assert _same_state(ours, reference)


def test_the_draws_refuse_empty_ranges_and_other_generators() -> None:
    native = _native()
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="positive"):
        native.numpy_integers(rng, 0)
    with pytest.raises(ValueError, match="positive"):
        native.raw_below(rng, 0)
    with pytest.raises(ValueError, match=r"0\.\.1000000"):
        native.numpy_permutation(rng, -1)
    with pytest.raises(TypeError, match="numpy random Generator"):
        native.numpy_integers(object(), 5)
    with pytest.raises(TypeError):
        native.numpy_integers(rng, 2**64)  # past uint64: refused by the binding, not wrapped
    with pytest.raises(TypeError):
        native.numpy_integers(rng, -1)
