"""One of OpenSpiel's learning algorithms on one of our games: advantage actor-critic self-play.

    python examples/openspiel_policy_gradient.py --game diamant --players 3 --episodes 2000

Importing :mod:`tablezoo.wrappers.openspiel` registers the four games with OpenSpiel
(``pip install tablezoo[openspiel]``; the PyTorch agents need torch, as the ``train`` extra
installs it). OpenSpiel's ``rl_environment`` runs the game: it samples chance from the game's
``chance_outcomes`` (the engine's exact odds) and gives every seat its observation tensor (the
engine's ``observe``) and legal actions. One OpenSpiel policy-gradient agent
(``open_spiel.python.pytorch.policy_gradient``, ``a2c``) per seat learns in self-play from the
zero-sum end returns; after training, seat 0's agent plays its policy against our ``random`` bot
in the other seats and the example prints its win share.
"""

from __future__ import annotations

import argparse

import pyspiel
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch import policy_gradient

from tablezoo.bots.registry import make_bot
from tablezoo.wrappers.openspiel import TablezooBot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="diamant", choices=["heckmeck", "sechs_nimmt", "diamant", "court"])
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--eval-games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    game = pyspiel.load_game(f"tablezoo_{args.game}(players={args.players})")
    env = rl_environment.Environment(
        game, seed=args.seed, observation_type=rl_environment.ObservationType.OBSERVATION
    )
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [
        policy_gradient.PolicyGradient(
            player,
            size,
            actions,
            loss_str="a2c",
            hidden_layers_sizes=(64,),
            batch_size=16,
            critic_learning_rate=0.01,
            pi_learning_rate=0.003,
            num_critic_before_pi=4,
        )
        for player in range(args.players)
    ]
    for episode in range(args.episodes):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([agents[player].step(step).action])
        for agent in agents:  # every seat sees the end and its return
            agent.step(step)
        if (episode + 1) % max(1, args.episodes // 5) == 0:
            print(f"episode {episode + 1}: returns {[round(r, 3) for r in step.rewards]}")
    print(f"trained {args.episodes} episodes of a2c self-play on {game}")

    credit = 0.0
    for g in range(args.eval_games):
        others = [
            TablezooBot(make_bot("random", game.engine), seed=args.seed + 10 * g + s)
            for s in range(args.players)
        ]
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            if player == 0:  # the agent's policy, no learning
                action = agents[0].step(step, is_evaluation=True).action
            else:  # our bot, on the game's own state
                action = others[player].step(env.get_state)
            step = env.step([action])
        returns = step.rewards
        winners = [s for s, r in enumerate(returns) if r > 0] or list(range(args.players))
        credit += 1.0 / len(winners) if 0 in winners else 0.0
    print(
        f"seat 0's agent against random bots: win share {credit / max(args.eval_games, 1):.3f} "
        f"over {args.eval_games} games (1/{args.players} = {1 / args.players:.3f} is even)"
    )


if __name__ == "__main__":
    main()
