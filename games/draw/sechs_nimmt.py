"""6 nimmt! drawn: the four rows of cards (number and bull heads), the seats, the trick, your hand.

A card of the hand is clickable (``play 42``) when it may be played; a row is
clickable (``row 2``) when the viewer must take one; a card of the draft table
(``logic``) is clickable (``pick 7``).
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
    end_banner,
    legal_set,
    memo,
    names_for,
    you,
)
from tablezoo.games.sechs_nimmt import HEADS

HEAD_COLOURS = {1: "#ffffff", 2: "#cfe3ff", 3: "#ffe9a8", 5: "#ffc9c0", 7: "#e3c8ff"}
CARD_W, CARD_H = 54, 76


@memo
def card(
    canvas: Canvas, x: float, y: float, number: int, command: str | None = None, chosen: bool = False
) -> None:
    """One card: its number in the middle, its bull heads along the top."""
    heads = HEADS[number]
    canvas.open_piece(
        command,
        f"card {number}, {heads} bull head{'s' if heads > 1 else ''}" + (f": {command}" if command else ""),
    )
    stroke = ACCENT if command or chosen else INK
    canvas.rect(
        x, y, CARD_W, CARD_H, fill=HEAD_COLOURS[heads], stroke=stroke, width=3 if command or chosen else 1.5
    )
    for k in range(heads):
        # a bull head: a face with two horns
        hx = x + CARD_W / 2 + (k - (heads - 1) / 2) * 7
        canvas.add(
            f'<path d="M{hx - 3:.1f},{y + 9:.1f} l-2,-4 M{hx + 3:.1f},{y + 9:.1f} l2,-4" '
            f'stroke="#6b2d5c" stroke-width="1.3" fill="none"/>'
        )
        canvas.circle(hx, y + 12, 3, fill="#6b2d5c")
    canvas.text(x + CARD_W / 2, y + 50, number, size=24, anchor="middle", weight="bold")
    canvas.close_piece()


def draw(view: dict[str, Any], names: Sequence[str] | None = None) -> str:
    """The 6 nimmt! board of ``view`` (``Game.view`` of a seat or of a spectator)."""
    seats = names_for(view, names)
    legal = legal_set(view)
    over = view.get("winners") is not None
    turn = view.get("turn")
    phase = view.get("phase")
    if over:
        title = "6 nimmt!: game over"
    elif phase == "row" and turn is not None:
        title = f"6 nimmt!: {seats[turn]} takes a row"
    elif phase == "draft" and turn is not None:
        title = f"6 nimmt!: {seats[turn]} picks a card"
    else:
        title = f"6 nimmt!: round {view.get('round')}, trick {view.get('trick_number')}"
    canvas = Canvas(title)
    y = canvas.heading(4, title)

    rows = view.get("rows") or []
    for i in range(4):
        row = rows[i] if i < len(rows) else []
        command = f"row {i + 1}" if f"row {i + 1}" in legal else None
        heads = sum(HEADS[c] for c in row)
        canvas.open_piece(
            command, f"row {i + 1}: {len(row)} cards, {heads} heads" + (f": {command}" if command else "")
        )
        canvas.rect(
            12,
            y,
            WIDTH - 24,
            CARD_H + 12,
            fill="#eef4ff" if command else "white",
            stroke=ACCENT if command else "#d0d5dd",
            width=3 if command else 1,
        )
        canvas.text(24, y + 36, f"row {i + 1}", size=16, weight="bold")
        canvas.text(24, y + 58, f"{heads} heads", size=13, fill=MUTED)
        for k, c in enumerate(row):
            card(canvas, 110 + (CARD_W + 6) * k, y + 6, c)
        for k in range(len(row), 6):  # the sixth place takes the row
            canvas.rect(
                110 + (CARD_W + 6) * k,
                y + 6,
                CARD_W,
                CARD_H,
                fill="none",
                stroke="#b42318" if k == 5 else "#d0d5dd",
                extra=' stroke-dasharray="4 3"',
            )
        canvas.close_piece()
        y += CARD_H + 20

    # The seats: heads so far, and the card each has chosen or revealed for the trick.
    y = canvas.heading(y + 4, "Players (bull heads: total before this round / this round)")
    trick = view.get("trick") or []
    chosen = view.get("has_chosen") or []
    totals, rounds = view.get("heads_total") or [], view.get("heads_round") or []
    for s, name in enumerate(seats):
        col, line = s % 2, s // 2
        x, yy = 12 + col * (WIDTH / 2 - 6), y + line * 44
        mover = s == turn and not over
        canvas.rect(
            x,
            yy,
            WIDTH / 2 - 18,
            38,
            fill="#eef4ff" if mover else "white",
            stroke=ACCENT if mover else "#d0d5dd",
        )
        total = totals[s] if s < len(totals) else 0
        now = rounds[s] if s < len(rounds) else 0
        canvas.text(
            x + 10, yy + 25, ("\u25b6 " if mover else "") + name + you(view, s), size=15, weight="bold"
        )
        note = f"{total} / {now}"
        if s < len(trick) and trick[s]:
            note += f"   plays {trick[s]}"
        elif s < len(chosen) and chosen[s]:
            note += "   has chosen"
        canvas.text(x + WIDTH / 2 - 30, yy + 25, note, size=14, anchor="end", fill=MUTED)
    y += 44 * ((len(seats) + 1) // 2) + 6

    pool = view.get("pool")
    if pool:
        y = canvas.heading(y, "Draft table")
        y = _cards(canvas, y, pool, legal, "pick")
    hand = view.get("hand")
    if hand is not None and not over:
        choice = view.get("choice")
        y = canvas.heading(y, "Your hand" + (f" (you chose {choice})" if choice else ""))
        y = _cards(canvas, y, hand, legal, "play", choice)
    y = end_banner(canvas, y + 4, view, seats, "bull heads")
    canvas.height = y + 8
    return canvas.to_svg()


def _cards(
    canvas: Canvas, y: float, cards: list[int], legal: set[str], verb: str, chosen: int | None = None
) -> float:
    per_line = (WIDTH - 24) // (CARD_W + 6)
    for k, c in enumerate(cards):
        x = 16 + (CARD_W + 6) * (k % per_line)
        command = f"{verb} {c}" if f"{verb} {c}" in legal else None
        card(canvas, x, y + (CARD_H + 8) * (k // per_line), c, command, chosen=c == chosen)
    lines = max(1, -(-len(cards) // per_line))
    return y + (CARD_H + 8) * lines + 8
