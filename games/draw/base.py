"""Shared SVG primitives of the drawings: a canvas of escaped elements, dice, cards, banners.

Everything a player can name (names, card words) goes through :func:`esc`, so a
drawing never carries markup from its input. A piece the viewing seat may play
now is a ``<g class="piece">`` with ``data-command`` (the game's own command
word), ``tabindex="0"``, ``role="button"`` and an ``aria-label``: the site's
script sends the command on a click, Enter or Space.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

WIDTH = 800
"""Width of every drawing's viewBox; heights follow the content."""
INK = "#1d2330"
MUTED = "#667085"
PAPER = "#fbfaf7"
ACCENT = "#2f6fdb"
GOOD = "#137333"
FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"

PIPS = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}
"""Where the pips of each face sit, as fractions of the die's side."""


def esc(text: Any) -> str:
    """``text`` safe as SVG character data."""
    # plain replaces: a server draws a board per socket per move, and these are several
    # times cheaper than xml.sax.saxutils
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def attr(value: Any) -> str:
    """``value`` as a double-quoted, escaped attribute value."""
    return '"' + esc(value).replace('"', "&quot;") + '"'


def _num(value: float) -> str:
    return f"{value:.6g}"


class Canvas:
    """An SVG drawing built element by element, top to bottom."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.parts: list[str] = []
        self.height = 0.0

    def add(self, markup: str) -> None:
        self.parts.append(markup)

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str = "white",
        stroke: str = INK,
        rx: float = 6,
        width: float = 1.5,
        extra: str = "",
    ) -> None:
        self.parts.append(
            f'<rect x="{x:.6g}" y="{y:.6g}" width="{w:.6g}" height="{h:.6g}" rx="{rx:.6g}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{width:.6g}"{extra}/>'
        )

    def text(
        self,
        x: float,
        y: float,
        text: Any,
        size: float = 16,
        anchor: str = "start",
        fill: str = INK,
        weight: str = "normal",
    ) -> None:
        # the attributes that are the defaults of the drawing (see to_svg) are left out
        self.parts.append(
            f'<text x="{x:.6g}" y="{y:.6g}" font-size="{size:.6g}"'
            + ("" if anchor == "start" else f' text-anchor="{anchor}"')
            + ("" if fill == INK else f' fill="{fill}"')
            + ("" if weight == "normal" else f' font-weight="{weight}"')
            + f">{esc(text)}</text>"
        )

    def circle(self, x: float, y: float, r: float, fill: str = INK, stroke: str = "none") -> None:
        self.parts.append(f'<circle cx="{x:.6g}" cy="{y:.6g}" r="{r:.6g}" fill="{fill}" stroke="{stroke}"/>')

    def open_piece(self, command: str | None, label: str) -> None:
        """Start a group: clickable (a legal move of the viewer) when ``command`` is given."""
        if command:
            self.add(
                f'<g class="piece" data-command={attr(command)} tabindex="0" role="button" '
                f"aria-label={attr(label)}>"
            )
        else:
            self.add(f'<g role="img" aria-label={attr(label)}>')

    def close_piece(self) -> None:
        self.add("</g>")

    def heading(self, y: float, text: str, size: float = 18) -> float:
        """A section title at ``y``; returns the y below it."""
        self.text(16, y + size, text, size=size, weight="bold")
        return y + size + 10

    def to_svg(self) -> str:
        height = max(self.height, 40)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {_num(height)}" '
            f'width="{WIDTH}" height="{_num(height)}" font-family={attr(FONT)} fill="{INK}" role="group" '
            f"aria-label={attr(self.title)}>"
            f"<title>{esc(self.title)}</title>"
            f'<rect x="0" y="0" width="{WIDTH}" height="{_num(height)}" fill="{PAPER}"/>'
            + "".join(self.parts)
            + "</svg>"
        )


def memo(draw_piece: Callable[..., None]) -> Callable[..., None]:
    """Cache the markup a piece-drawing function adds, by its arguments (all hashable).

    A server draws every board once per socket and move, and most pieces (tiles, cards,
    dice) come back at the same place in the same state.
    """

    @functools.lru_cache(maxsize=8192)
    def markup(args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...]) -> str:
        scratch = Canvas("")
        draw_piece(scratch, *args, **dict(kwargs))
        return "".join(scratch.parts)

    @functools.wraps(draw_piece)
    def add(canvas: Canvas, *args: Any, **kwargs: Any) -> None:
        canvas.add(markup(args, tuple(sorted(kwargs.items()))))

    return add


@memo
def die(
    canvas: Canvas,
    x: float,
    y: float,
    face: str,
    size: float = 44,
    command: str | None = None,
    fill: str = "white",
    worm_face: bool = False,
) -> None:
    """One die showing ``face`` ("1".."6", or "W": Heckmeck's worm face), clickable with ``command``."""
    label = ("worm" if face == "W" else f"die showing {face}") + (f": {command}" if command else "")
    canvas.open_piece(command, label)
    stroke = ACCENT if command else INK
    canvas.rect(x, y, size, size, fill=fill, stroke=stroke, rx=size * 0.18, width=3 if command else 1.5)
    if face == "W" or worm_face:
        worm(canvas, x + size / 2, y + size / 2, size * 0.8)
    else:
        for px, py in PIPS.get(int(face), ()):
            canvas.circle(x + px * size, y + py * size, size * 0.09)
    canvas.close_piece()


def worm(canvas: Canvas, cx: float, cy: float, length: float, color: str = "#b5472b") -> None:
    """A small worm: a wavy stroke with an eye."""
    half = length / 2
    amp = length * 0.14
    x0 = cx - half * 0.8
    x1 = cx + half * 0.8
    path = (
        f"M{_num(x0)},{_num(cy)} Q{_num(cx - half * 0.4)},{_num(cy - amp * 2)} {_num(cx)},{_num(cy)} "
        f"T{_num(x1)},{_num(cy)}"
    )
    canvas.add(
        f'<path d="{path}" fill="none" stroke="{color}" stroke-width="{_num(length * 0.16)}" '
        'stroke-linecap="round"/>'
    )
    canvas.circle(x1, cy - length * 0.02, length * 0.04, fill="white")


def names_for(view: dict[str, Any], names: Sequence[str] | None) -> list[str]:
    """The display name of each seat: ``names`` where given, else "seat N"."""
    n = int(view.get("num_seats", 0))
    given = list(names or [])
    return [given[s] if s < len(given) and given[s] else f"seat {s}" for s in range(n)]


def you(view: dict[str, Any], seat: int) -> str:
    """ " (you)" after the viewer's own name."""
    return " (you)" if view.get("seat") == seat else ""


def end_banner(canvas: Canvas, y: float, view: dict[str, Any], names: list[str], unit: str) -> float:
    """The end screen: the winner(s) and every seat's final score, best first. Returns the y below."""
    winners = view.get("winners")
    if winners is None:
        return y
    scores = view.get("scores", [])
    order = sorted(range(len(names)), key=lambda s: -scores[s] if s < len(scores) else 0)
    height = 56 + 26 * len(order)
    canvas.rect(12, y, WIDTH - 24, height, fill="#fff8e1", stroke="#c99a06", rx=10, width=2.5)
    who = " and ".join(names[s] for s in winners) or "no one"
    verb = "wins" if len(winners) == 1 else "share the win"
    canvas.text(WIDTH / 2, y + 34, f"Game over: {who} {verb}", size=24, anchor="middle", weight="bold")
    for i, s in enumerate(order):
        score = scores[s] if s < len(scores) else 0
        mark = "\u2605 " if s in winners else ""
        canvas.text(
            WIDTH / 2,
            y + 62 + 26 * i,
            f"{mark}{names[s]}{you(view, s)}: {score:g} {unit}",
            size=18,
            anchor="middle",
            weight="bold" if s in winners else "normal",
        )
    return y + height + 12


def legal_set(view: dict[str, Any]) -> set[str]:
    """The commands the viewing seat may play now (none when it is not its turn)."""
    return set(view.get("legal") or [])
