"""One game loop and one process pool, for everything that plays games: tournaments, the benchmark
protocol and the trainers that learn from played games (:mod:`tablezoo.training.expert.selfplay`).

* **play a game** (:func:`play_out`): advance the state through chance, ask the mover for a move,
  apply it, until the game ends or :data:`MAX_DECISIONS` decisions have been made (two bots that
  never end a game, possible in To Court the King, would otherwise hang it);
* **share work among processes** (:func:`iter_in_order`, :func:`play_in_order`): a ``spawn`` pool
  that hands the results back in the order of the work items, so that a run is the same on any
  number of processes (every work item carries its own seed);
* **one thread a worker** (:func:`one_thread`): a policy asked about one observation at a time
  gains nothing from a pool of threads, and several processes each starting one thread per core
  oversubscribe the machine (a torch forward pass of a small actor takes 45 µs on one thread and
  about 2 ms on torch's default threads). Every worker of the pool and every scoring loop runs its
  policy on one intra-op thread: torch's (``torch.set_num_threads(1)``, restored after), OpenMP's
  and MKL's by their environment variables in the workers, and ONNX Runtime's by its session
  options (:mod:`tablezoo.evaluation.loaders`). ``--jobs N`` then uses N cores.

Numpy alone: torch is only touched where a caller already imported it.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.games.core import TERMINAL, Game

MAX_DECISIONS = 20_000
"""A game still running after this many decisions is stopped."""

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
"""The environment variables that give each worker process one thread of the math libraries."""

T = TypeVar("T")
R = TypeVar("R")


def play_out(
    game: Game[Any],
    state: Any,
    chance: np.random.Generator,
    act: Callable[[Seat], int],
    max_decisions: int = MAX_DECISIONS,
    check: bool = True,
) -> bool:
    """Play ``state`` on, ``act`` choosing every move, chance drawn from ``chance``; whether it ended.

    A game is stopped after ``max_decisions`` decisions (False). ``check``: let the engine
    check each move (a bot's); a mover that picks among the legal moves may leave it out."""
    for _ in range(max_decisions):
        mover = game.advance(state, chance)
        if mover == TERMINAL:
            return True
        game.apply(state, act(Seat.of(game, state, mover)), check=check)
    return game.advance(state, chance) == TERMINAL


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Within the block, torch (where it is imported) computes on one intra-op thread; its setting is
    restored after. Policies asked one observation at a time are fastest so."""
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    if torch is not None and before != 1:
        torch.set_num_threads(1)
    try:
        yield
    finally:
        if torch is not None and before is not None and before != 1:
            torch.set_num_threads(before)


def single_threaded_worker() -> None:
    """A pool worker's start: one thread for OpenMP, MKL and OpenBLAS (set before any of them loads),
    and for torch if it is already loaded."""
    for name in THREAD_VARIABLES:
        os.environ[name] = "1"
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def iter_in_order(
    play: Callable[[T], R], items: Sequence[T], workers: int, chunksize: int = 1
) -> Iterator[R]:
    """``play`` of every work item, in ``workers`` processes (1: this one), each result as soon as
    it and those before it are done, in the items' order. Each worker computes on one thread
    (:func:`single_threaded_worker`)."""
    if workers == 1:
        yield from map(play, items)
        return
    with mp.get_context("spawn").Pool(workers, initializer=single_threaded_worker) as pool:
        yield from pool.imap(play, items, chunksize=chunksize)


def play_in_order(play: Callable[[T], R], items: Sequence[T], workers: int, chunksize: int = 1) -> list[R]:
    """``play`` of every work item, in ``workers`` processes (1: this one), in the items' order."""
    return list(iter_in_order(play, items, workers, chunksize))
