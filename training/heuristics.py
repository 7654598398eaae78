"""Simple rule-of-thumb bots, one family per game: baselines that beat random play.

They read only what their seat may see (its view), like every bot.
"""

from __future__ import annotations

from tablezoo.games.heckmeck import FACE_VALUE, KEEPING, ROLL, STEAL, TAKE, WORM
from tablezoo.training.bots import Seat


class HeckmeckGreedyBot:
    """Keeps worms first, then the face worth most; stops on a claim once the sum or the dice say so.

    Args:
        stop_at: stop as soon as a claim is possible and the sum is at least this.
        min_dice: stop whenever a claim is possible and fewer dice than this are left.
    """

    name = "heuristic"

    def __init__(self, stop_at: int = 27, min_dice: int = 3) -> None:
        self.stop_at = stop_at
        self.min_dice = min_dice

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, seat: Seat) -> int:
        state = seat.public_state()
        legal = seat.legal
        if state.phase == KEEPING:
            if WORM in legal and not state.kept[WORM]:
                return WORM
            # the face whose dice add the most to the sum; ties go to the higher face
            return max(legal, key=lambda f: (state.roll[f] * FACE_VALUE[f], f))
        claims = [a for a in legal if a in (TAKE, STEAL)]
        if claims and (ROLL not in legal or state.total >= self.stop_at or state.left < self.min_dice):
            return max(claims)  # a steal when there is one: it also costs the victim
        return ROLL if ROLL in legal else claims[0]


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
