"""OpenSpiel's information-set MCTS plays our bots, through OpenSpiel's own ``evaluate_bots``.

    python examples/openspiel_ismcts.py --game diamant --players 4 --simulations 200 --games 10

Importing :mod:`tablezoo.wrappers.openspiel` registers the four games with OpenSpiel
(``pip install tablezoo[openspiel]``). OpenSpiel's ISMCTS (``open_spiel.python.algorithms.ismcts``,
random rollouts) takes one seat in turn, our bot (``--opponent``: any bot name of
``tablezoo play``, e.g. ``heuristic``, ``search``, ``agent:search=100``) every other seat, wrapped
as OpenSpiel bots (:class:`tablezoo.wrappers.openspiel.TablezooBot`). ISMCTS samples the hidden
cards and choices with the game's ``resample_from_infostate`` (the engine's ``determinize``).
Heckmeck and To Court the King hide nothing, and OpenSpiel's ISMCTS is for imperfect information
only: there its MCTS (the same search over one world, chance sampled) takes the seat.

It prints each game's returns and, at the end, the searcher's win share and time a move.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from tablezoo.bots.registry import make_bot
from tablezoo.wrappers.openspiel import TablezooBot


class Timed(pyspiel.Bot):
    """An OpenSpiel bot that counts its moves and the seconds they took."""

    def __init__(self, bot: pyspiel.Bot) -> None:
        pyspiel.Bot.__init__(self)
        self.bot, self.moves, self.seconds = bot, 0, 0.0

    def restart_at(self, state: pyspiel.State) -> None:
        pass  # OpenSpiel's searches keep nothing between moves

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        self.bot.inform_action(state, player_id, action)

    def step(self, state: pyspiel.State) -> int:
        start = time.perf_counter()
        action = self.bot.step(state)
        self.seconds += time.perf_counter() - start
        self.moves += 1
        return int(action)


def searcher(game: pyspiel.Game, simulations: int, seed: int) -> tuple[str, pyspiel.Bot]:
    """OpenSpiel's ISMCTS (imperfect information) or MCTS (perfect information) with random rollouts."""
    rollouts = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    if game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION:
        bot = ismcts.ISMCTSBot(game, rollouts, 2.0, simulations, random_state=np.random.RandomState(seed))
        return "ismcts", bot
    return "mcts", mcts.MCTSBot(game, 2.0, simulations, rollouts, random_state=np.random.RandomState(seed))


def win_credit(returns: list[float], seat: int) -> float:
    """1 for a sole win, 1/k for a win shared by k seats (all seats 0: shared by all), else 0."""
    winners = [s for s, r in enumerate(returns) if r > 0] or list(range(len(returns)))
    return 1.0 / len(winners) if seat in winners else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="diamant", choices=["heckmeck", "sechs_nimmt", "diamant", "court"])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--opponent", default="heuristic", help="our bot in every other seat")
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--core", default="native", choices=["native", "python"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    game = pyspiel.load_game(f"tablezoo_{args.game}(players={args.players},core={args.core})")
    rng = np.random.RandomState(args.seed)
    wins, total_moves, total_seconds = 0.0, 0, 0.0
    for g in range(args.games):
        seat = g % args.players  # the searcher's seat goes round the table
        kind, search = searcher(game, args.simulations, args.seed + g)
        timed = Timed(search)
        bots: list[pyspiel.Bot] = [
            timed
            if s == seat
            else TablezooBot(make_bot(args.opponent, game.engine), seed=args.seed + 100 * g + s)
            for s in range(args.players)
        ]
        returns = evaluate_bots(game.new_initial_state(), bots, rng)
        wins += win_credit(returns, seat)
        total_moves, total_seconds = total_moves + timed.moves, total_seconds + timed.seconds
        print(f"game {g + 1}: {kind} at seat {seat}, returns {[round(r, 3) for r in returns]}")
    print(
        f"{kind} ({args.simulations} simulations) against {args.opponent}: won {wins:g} of {args.games} "
        f"games; {1000 * total_seconds / max(total_moves, 1):.1f} ms a move over {total_moves} moves"
    )


if __name__ == "__main__":
    main()
