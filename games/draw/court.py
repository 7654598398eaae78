"""To Court the King drawn: the court's card rows (title, cost, ability, copies left), each
seat's cards, and the active and set-aside dice.

An active die is clickable when it may be set aside (``aside 4``) or chosen for a
card (``die 4``); a card of the court when it may be taken (``take guard``); a
card the viewer holds when its ability may be used (``use maid``).
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
    you,
)

CARDS: dict[str, tuple[str, int, str, str]] = {
    "fool": ("Fool", 0, "anything (one each)", "re-roll one active die"),
    "charlatan": ("Charlatan", 0, "anything; flips a Fool", "+1 die each turn"),
    "farmer": ("Farmer", 1, "a pair", "+1 die each turn"),
    "maid": ("Serving Maid", 1, "only odd dice", "add 1-3 pips to a die"),
    "philosopher": ("Philosopher", 1, "only even dice", "move pips die to die"),
    "laborer": ("Laborer", 1, "total 15 or more", "bring in a 1"),
    "guard": ("Guard", 1, "a triplet", "bring in a 2"),
    "hunter": ("Hunter", 2, "four of a kind", "bring in a 3"),
    "merchant": ("Merchant", 2, "total 20 or more", "re-roll any active dice"),
    "astronomer": ("Astronomer", 2, "two pairs", "copy a set-aside value"),
    "pawnbroker": ("Pawn Broker", 3, "total 30 or more", "bring in a 4"),
    "noblewoman": ("Noblewoman", 3, "a full house", "+1 pip to any dice"),
    "magician": ("Magician", 3, "a straight of 5", "set a die to any value"),
    "knight": ("Knight", 3, "five of a kind", "bring in a 5"),
    "bishop": ("Bishop", 4, "three pairs", "bring in a 6"),
    "alchemist": ("Alchemist", 4, "a straight 1-6", "share pips of 2-3 dice"),
    "nobleman": ("Nobleman", 4, "two triplets", "+2 pips to any dice"),
    "general": ("General", 4, "six of a kind", "+2 dice each turn"),
    "king": ("King", 5, "seven of a kind", "+ Queen; last round"),
    "queen": ("Queen", 5, "comes with the King", "bring in any die"),
}
"""Each card's title, row (0 = the Fool/Charlatan card, 1..5 = rows I..V), cost and ability.

The cost and the ability each fit the card's width (132 of its 148 units) in DejaVu Sans,
the widest of the fonts a browser picks for the drawing; the browser test measures them."""
ROMAN = ("0", "I", "II", "III", "IV", "V")
CARD_W, CARD_H = 148, 74


@memo
def court_card(
    canvas: Canvas,
    x: float,
    y: float,
    kind: str,
    copies: int | None,
    command: str | None,
    used: bool = False,
) -> None:
    """One card: of the court with ``copies`` left, or held (``copies`` None; ``used`` this turn)."""
    title, _, cost, ability = CARDS.get(kind, (kind, 0, "", ""))
    what = f"{title}: costs {cost}; {ability}" + (f"; {copies} left" if copies is not None else "")
    what += "; used this turn" if used else ""
    canvas.open_piece(command, what + (f": {command}" if command else ""))
    empty = copies == 0 or used
    canvas.rect(
        x,
        y,
        CARD_W,
        CARD_H,
        fill="#f2f2f2" if empty else "#fffaf0",
        stroke=ACCENT if command else INK,
        width=3 if command else 1.2,
    )
    canvas.text(x + 8, y + 20, title, size=15, weight="bold", fill=MUTED if empty else INK)
    if copies is not None:
        canvas.text(x + CARD_W - 8, y + 20, f"x{copies}", size=14, anchor="end", fill=MUTED)
    if used:  # on the cost's line: a held card's cost no longer matters
        canvas.text(x + 8, y + 42, "used this turn", size=11.5, fill="#b42318")
    else:
        canvas.text(x + 8, y + 42, cost, size=11.5, fill="#7a4b00")
    canvas.text(x + 8, y + 62, ability, size=11.5, fill=MUTED)
    canvas.close_piece()


def draw(view: dict[str, Any], names: Sequence[str] | None = None) -> str:
    """The To Court the King board of ``view`` (``Game.view`` of a seat or of a spectator)."""
    seats = names_for(view, names)
    legal = legal_set(view)
    over = view.get("winners") is not None
    turn = view.get("turn")
    stage = "final round" if view.get("final_round") else f"round {view.get('round')}"
    whose = "" if over else seats[int(turn or 0)]
    title = "To Court the King: game over" if over else f"To Court the King: {stage}, {whose}'s turn"
    canvas = Canvas(title)
    y = canvas.heading(4, title)

    # The court, row V at the top as on the table.
    supply = view.get("supply") or {}
    for row in range(5, -1, -1):
        kinds = [k for k, c in CARDS.items() if c[1] == row and k in supply]
        if not kinds:
            continue
        canvas.text(16, y + 42, ROMAN[row], size=18, anchor="start", weight="bold", fill=MUTED)
        for i, kind in enumerate(kinds):
            command = f"take {kind}" if f"take {kind}" in legal else None
            court_card(canvas, 48 + (CARD_W + 2) * i, y, kind, supply[kind], command)
        y += CARD_H + 6

    # The seats in this round's order, with their cards.
    y = canvas.heading(y + 6, "Players")
    held = view.get("held") or []
    used = set(view.get("used") or [])
    results = view.get("results") or []
    for s, name in enumerate(seats):
        cards = held[s] if s < len(held) else []
        mover = s == turn and not over
        lines = max(1, -(-len(cards) // 5))
        box = 34 + lines * (CARD_H + 4)
        canvas.rect(
            12,
            y,
            WIDTH - 24,
            box,
            fill="#eef4ff" if mover else "white",
            stroke=ACCENT if mover else "#d0d5dd",
        )
        result = results[s] if s < len(results) else None
        shown = f"   result: {result[0]} x {result[1]}s" if result else ""
        crown = " \u265a King" if view.get("king_holder") == s else ""
        canvas.text(
            24,
            y + 22,
            ("\u25b6 " if mover else "") + name + you(view, s) + crown + shown,
            size=15,
            weight="bold",
        )
        for i, kind in enumerate(cards):
            command = f"use {kind}" if s == view.get("seat") and f"use {kind}" in legal else None
            x = 24 + (CARD_W + 2) * (i % 5)
            cy = y + 30 + (CARD_H + 4) * (i // 5)
            court_card(canvas, x, cy, kind, None, command, used=mover and kind in used)
        if not cards:
            canvas.text(24, y + 48, "no cards yet", size=13, fill=MUTED)
        y += box + 6

    if not over:
        active, aside = view.get("active") or [], view.get("aside") or []
        card = view.get("card")
        y = canvas.heading(y + 4, "Active dice" + (f" (using the {CARDS[card][0]})" if card in CARDS else ""))
        for i, face in enumerate(active):
            command = next((w for w in (f"die {face}", f"aside {face}") if w in legal), None)
            die(canvas, 20 + 52 * (i % 14), y + 52 * (i // 14), face, command=command)
        if not active:
            canvas.text(20, y + 26, "none", size=14, fill=MUTED)
        y += 52 * max(1, -(-len(active) // 14)) + 4
        y = canvas.heading(y, "Set aside")
        for i, face in enumerate(aside):
            die(canvas, 20 + 52 * (i % 14), y + 52 * (i // 14), face, fill="#e8e8e8")
        if not aside:
            canvas.text(20, y + 26, "none", size=14, fill=MUTED)
        y += 52 * max(1, -(-len(aside) // 14)) + 4
    y = end_banner(canvas, y + 4, view, seats, "points (extra dice; King 10)")
    canvas.height = y + 8
    return canvas.to_svg()
