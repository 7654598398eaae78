"""Diamant drawn: the path of treasure and hazard cards, the gems left on it, each explorer's
haul and tent, and the go/camp choice.

The two choice tokens (a torch: ``go``, a tent: ``camp``) are clickable when the
viewer is to choose. Other seats' pending choices show only as a lit lantern
("has chosen"); the choices revealed last are shown by each name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablezoo.games.draw.base import (
    ACCENT,
    GOOD,
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

HAZARD_COLOURS = {
    "snake": "#3f7d3a",
    "spider": "#4a4a4a",
    "fire": "#d9480f",
    "rockfall": "#8a6d4f",
    "mummy": "#c9b98f",
}
CARD_W, CARD_H = 58, 80


def gem(canvas: Canvas, x: float, y: float, size: float = 12) -> None:
    """A small cut gem (a diamond shape)."""
    h = size / 2
    canvas.add(
        f'<path d="M{x:.1f},{y - h:.1f} L{x + h:.1f},{y:.1f} L{x:.1f},{y + h:.1f} L{x - h:.1f},{y:.1f} Z" '
        f'fill="#2bb3c0" stroke="#12707a" stroke-width="1"/>'
    )


@memo
def gems(canvas: Canvas, x: float, y: float, count: int, per_line: int = 10) -> None:
    """Up to 20 gems drawn, with the count written after them (0 when there are none)."""
    for k in range(min(count, 20)):
        gem(canvas, x + 13 * (k % per_line), y + 13 * (k // per_line))
    canvas.text(x + 13 * min(count, per_line) + (4 if count else 0), y + 5, count, size=14, weight="bold")


@memo
def path_card(canvas: Canvas, x: float, y: float, card: str) -> None:
    """A card of the path: a treasure (its gems) or a hazard (its name, in its colour)."""
    if card.isdigit():
        canvas.open_piece(None, f"treasure {card}")
        canvas.rect(x, y, CARD_W, CARD_H, fill="#fff3c4", stroke=INK)
        canvas.text(x + CARD_W / 2, y + 34, card, size=24, anchor="middle", weight="bold")
        gem(canvas, x + CARD_W / 2, y + 56, 16)
    else:
        canvas.open_piece(None, f"hazard {card}")
        canvas.rect(x, y, CARD_W, CARD_H, fill=HAZARD_COLOURS.get(card, "#999"), stroke=INK)
        canvas.text(x + CARD_W / 2, y + 38, "\u26a0", size=22, anchor="middle", fill="white")
        canvas.text(x + CARD_W / 2, y + 62, card, size=11, anchor="middle", fill="white", weight="bold")
    canvas.close_piece()


@memo
def choice_token(canvas: Canvas, x: float, y: float, word: str, enabled: bool) -> None:
    label = "go on into the cave" if word == "go" else "camp: go back with your gems"
    canvas.open_piece(word if enabled else None, label)
    canvas.rect(
        x,
        y,
        170,
        64,
        fill="#eef4ff" if enabled else "#f2f2f2",
        stroke=ACCENT if enabled else "#d0d5dd",
        width=3 if enabled else 1,
        rx=12,
    )
    if word == "go":  # a torch
        canvas.add(f'<path d="M{x + 30},{y + 54} L{x + 36},{y + 26} L{x + 42},{y + 54} Z" fill="#8a6d4f"/>')
        canvas.circle(x + 36, y + 20, 9, fill="#f59f00")
    else:  # a tent
        canvas.add(f'<path d="M{x + 16},{y + 54} L{x + 36},{y + 14} L{x + 56},{y + 54} Z" fill="#c2410c"/>')
    canvas.text(x + 110, y + 40, "Go on" if word == "go" else "Camp", size=22, anchor="middle", weight="bold")
    canvas.close_piece()


def draw(view: dict[str, Any], names: Sequence[str] | None = None) -> str:
    """The Diamant board of ``view`` (``Game.view`` of a seat or of a spectator)."""
    seats = names_for(view, names)
    legal = legal_set(view)
    over = view.get("winners") is not None
    turn = view.get("to_move")
    title = "Diamant: game over" if over else f"Diamant: cave {view.get('cave')} of {view.get('caves')}"
    canvas = Canvas(title)
    y = canvas.heading(4, title)

    if not over:
        path = view.get("path") or []
        per_line = 12
        for k, c in enumerate(path):
            path_card(canvas, 16 + (CARD_W + 6) * (k % per_line), y + (CARD_H + 8) * (k // per_line), str(c))
        if not path:
            canvas.text(16, y + 40, "no card turned yet", size=15, fill=MUTED)
        y += (CARD_H + 8) * max(1, -(-len(path) // per_line)) + 4
        canvas.text(16, y + 14, "gems left on the path:", size=15)
        gems(canvas, 190, y + 9, int(view.get("pool", 0)))
        seen = ", ".join(view.get("hazards_seen") or []) or "none"
        canvas.text(WIDTH - 16, y + 14, f"hazards seen: {seen}", size=14, anchor="end", fill=MUTED)
        y += 30

    revealed = view.get("revealed") or []
    chosen = view.get("chosen") or []
    inside = view.get("in_cave") or []
    hauls, banked = view.get("hauls") or [], view.get("banked") or []
    y = canvas.heading(y, "Explorers (gems in hand / in the tent)")
    for s, name in enumerate(seats):
        mover = s == turn and not over
        is_in = s < len(inside) and inside[s]
        canvas.rect(
            12, y, WIDTH - 24, 44, fill="#eef4ff" if mover else "white", stroke=ACCENT if mover else "#d0d5dd"
        )
        canvas.text(24, y + 28, ("\u25b6 " if mover else "") + name + you(view, s), size=16, weight="bold")
        where = "in the cave" if is_in and not over else "in camp"
        canvas.text(250, y + 28, where, size=14, fill=GOOD if is_in else MUTED)
        if s < len(chosen) and chosen[s] and not over:
            canvas.circle(360, y + 22, 8, fill="#f59f00")  # the lantern: has chosen
            canvas.text(374, y + 28, "has chosen", size=13, fill=MUTED)
        elif s < len(revealed) and revealed[s]:
            canvas.text(360, y + 28, f"chose {revealed[s]}", size=13, fill=MUTED)
        canvas.text(480, y + 28, "hand", size=13, fill=MUTED)
        gems(canvas, 520, y + 22, int(hauls[s]) if s < len(hauls) else 0, per_line=5)
        canvas.text(640, y + 28, "tent", size=13, fill=MUTED)
        canvas.text(
            WIDTH - 30, y + 29, banked[s] if s < len(banked) else 0, size=18, anchor="end", weight="bold"
        )
        y += 50

    if not over and ("go" in legal or "camp" in legal):
        y = canvas.heading(y + 4, "Your choice (secret until all have chosen)")
        choice_token(canvas, 16, y, "go", "go" in legal)
        choice_token(canvas, 206, y, "camp", "camp" in legal)
        y += 76
    elif not over and view.get("my_choice"):
        canvas.text(16, y + 22, f"You chose: {view.get('my_choice')}", size=16, weight="bold")
        y += 34
    y = end_banner(canvas, y + 4, view, seats, "gems")
    canvas.height = y + 8
    return canvas.to_svg()
