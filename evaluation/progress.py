"""How far a scoring run is: a bar on a terminal, a log line with the time left elsewhere."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


def _duration(seconds: float) -> str:
    """``1h02m``, ``4m05s`` or ``12s``."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class ProgressBar:
    """How many of a run's games are played, with the time left at the rate so far.

    On a terminal, a bar rewritten in place (``[####....] 150/400 games, 0m42s left``) and
    cleared when the run is done; elsewhere (a log file, a CI job) a line of its own
    (``evaluate: 150/400 games (38%), 1m10s so far, 1m57s left``) at the start, at most once
    every ``every`` seconds, and at the end.
    """

    def __init__(
        self,
        total: int,
        stream: TextIO,
        width: int = 30,
        label: str = "games",
        every: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = total
        """The games the run plays."""
        self.stream = stream
        """Where it is written (standard error, so that standard output stays the result)."""
        self.width = width
        """The bar's characters."""
        self.label = label
        """What a log line starts with."""
        self.every = every
        """Seconds between two log lines at least (not on a terminal)."""
        self.clock = clock
        self.started = clock()
        self.done = 0
        """The games played so far."""
        self.logged_at: float | None = None
        isatty = getattr(stream, "isatty", None)
        self.terminal = bool(isatty and isatty())
        """Whether the stream is a terminal: a bar, else log lines."""

    def left(self, done: int) -> float | None:
        """Seconds left at the rate so far (None before the first game)."""
        if done <= 0:
            return None
        return (self.clock() - self.started) / done * max(0, self.total - done)

    def advance(self, games: int) -> None:
        """``games`` more games are played."""
        self(self.done + games)

    def __call__(self, done: int) -> None:
        """Show ``done`` games played (all of them: clear the bar, or log the last line)."""
        self.done = done
        left = self.left(done)
        eta = "" if left is None else f", {_duration(left)} left"
        if self.terminal:
            filled = self.width * done // max(self.total, 1)
            line = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} games{eta}"
            self.stream.write("\r" + (" " * (len(line) + 8) + "\r" if done >= self.total else line))
            self.stream.flush()
            return
        now = self.clock()
        if done < self.total and self.logged_at is not None and now - self.logged_at < self.every:
            return
        self.logged_at = now
        share = 100 * done // max(self.total, 1)
        spent = _duration(now - self.started)
        tail = f"done in {spent}" if done >= self.total else f"{spent} so far{eta or ', time left unknown'}"
        self.stream.write(f"{self.label}: {done}/{self.total} games ({share}%), {tail}\n")
        self.stream.flush()
