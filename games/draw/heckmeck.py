"""Heckmeck drawn: the grill's tiles with their worms, each seat's stack and top tile, the dice.

A die of the roll is clickable (``keep 3``, ``keep worm``) when keeping that
face is legal; the tile ``take`` would take and the stack top ``steal`` would
steal are clickable too, and so is the Roll button.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablezoo.games.draw.base import (
    ACCENT,
    INK,
    MUTED,
    WIDTH,
    Canvas,
    die,
    end_banner,
    legal_set,
    memo,
    names_for,
    worm,
    you,
)

TILES = range(21, 37)


def tile_worms(tile: int) -> int:
    """Worms printed on a tile (21-24: 1, 25-28: 2, 29-32: 3, 33-36: 4)."""
    return (tile - 17) // 4


@memo
def tile(canvas: Canvas, x: float, y: float, number: int, state: str, command: str | None = None) -> None:
    """One tile: ``state`` is "up" (number and worms), "down" (turned over) or "gone" (an empty place)."""
    w, h = 44, 74
    if state == "gone":
        canvas.rect(x, y, w, h, fill="none", stroke="#d0d5dd", extra=' stroke-dasharray="4 3"')
        return
    label = f"tile {number}, {tile_worms(number)} worms" if state == "up" else f"tile {number}, face down"
    canvas.open_piece(command, label + (f": {command}" if command else ""))
    if state == "down":
        canvas.rect(x, y, w, h, fill="#5b4636", stroke=INK)
        canvas.close_piece()
        return
    canvas.rect(x, y, w, h, fill="#f3e3c3", stroke=ACCENT if command else INK, width=3 if command else 1.5)
    canvas.text(x + w / 2, y + 24, number, size=20, anchor="middle", weight="bold")
    for k in range(tile_worms(number)):
        worm(canvas, x + w / 2, y + 36 + 9 * k, 26)
    canvas.close_piece()


def draw(view: dict[str, Any], names: Sequence[str] | None = None) -> str:
    """The Heckmeck board of ``view`` (``Game.view`` of a seat or of a spectator)."""
    seats = names_for(view, names)
    legal = legal_set(view)
    over = view.get("winners") is not None
    turn = view.get("turn")
    title = "Heckmeck: game over" if over else f"Heckmeck: {seats[int(turn or 0)]}'s turn"
    canvas = Canvas(title)
    y = canvas.heading(4, title)

    # The grill: 16 places, one tile each.
    y += 4
    grill, down = set(view.get("grill", [])), set(view.get("face_down", []))
    take = view.get("take_tile") if "take" in legal else None
    x0 = (WIDTH - 16 * 48) / 2
    for i, t in enumerate(TILES):
        state = "up" if t in grill else "down" if t in down else "gone"
        tile(canvas, x0 + 48 * i, y, t, state, "take" if t == take else None)
    y += 90

    # The seats: name, stack top, tiles and worms.
    steal_from = view.get("steal_from") if "steal" in legal else None
    for s, name in enumerate(seats):
        stack = view.get("stacks", [[]] * len(seats))[s]
        mover = s == turn and not over
        canvas.rect(
            12, y, WIDTH - 24, 84, fill="#eef4ff" if mover else "white", stroke=ACCENT if mover else INK
        )
        canvas.text(28, y + 30, ("\u25b6 " if mover else "") + name + you(view, s), size=18, weight="bold")
        total = sum(tile_worms(t) for t in stack)
        canvas.text(28, y + 58, f"{len(stack)} tiles, {total} worms", size=15, fill=MUTED)
        if stack:
            tile(canvas, WIDTH - 80, y + 5, stack[-1], "up", "steal" if s == steal_from else None)
        else:
            canvas.text(WIDTH - 58, y + 48, "no tile", size=14, anchor="middle", fill=MUTED)
        y += 92

    # The dice of the turn.
    if not over:
        roll, kept = view.get("roll", []), view.get("kept", [])
        y = canvas.heading(
            y + 4, f"Roll (sum kept {view.get('sum', 0)}, {view.get('dice_left', 0)} dice left)"
        )
        for i, face in enumerate(roll):
            word = "keep worm" if face == "W" else f"keep {face}"
            die(canvas, 20 + 54 * i, y, face, command=word if word in legal else None)
        if not roll:
            canvas.text(20, y + 28, "no dice on the table", size=15, fill=MUTED)
        if "roll" in legal:
            canvas.open_piece("roll", "roll the dice left")
            canvas.rect(WIDTH - 140, y, 120, 44, fill="#eef4ff", stroke=ACCENT, width=3)
            canvas.text(WIDTH - 80, y + 29, "Roll", size=20, anchor="middle", weight="bold")
            canvas.close_piece()
        y = canvas.heading(y + 56, "Kept")
        for i, face in enumerate(kept):
            die(canvas, 20 + 54 * i, y, face, fill="#e8e8e8")
        if not kept:
            canvas.text(20, y + 28, "nothing kept yet", size=15, fill=MUTED)
        y += 56
    y = end_banner(canvas, y + 6, view, seats, "worms")
    canvas.height = y + 8
    return canvas.to_svg()
