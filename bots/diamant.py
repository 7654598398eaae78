"""Diamant's bots.

| name | bot |
|---|---|
| ``heuristic`` | :class:`DiamantThresholdBot`: to camp once the haul or the hazards seen reach a threshold |

They read only what their seat may see (its view), like every bot.
"""

from __future__ import annotations

from tablezoo.bots.core import Bot, Seat


class DiamantThresholdBot:
    """Returns to camp once its haul reaches ``haul`` gems or ``hazards`` hazard types are out.

    The threshold family of Diamant bots: ``DiamantThresholdBot(haul=10, hazards=2)``.
    """

    name = "heuristic"

    def __init__(self, haul: int = 10, hazards: int = 2) -> None:
        self.haul = haul
        self.hazards = hazards

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, seat: Seat) -> int:
        view = seat.view()
        me = seat.seat
        risky = len(view["hazards_seen"]) >= self.hazards
        rich = view["hauls"][me] + view["pool"] // max(1, sum(view["in_cave"])) >= self.haul
        return seat.game.parse_command("camp" if risky or rich else "go")


BOTS: dict[str, type[Bot]] = {"heuristic": DiamantThresholdBot}
"""This game's bots by name; ``random`` and ``agent`` serve every game (:mod:`tablezoo.bots.registry`)."""
