"""Trainers, a folder per method with its settings beside it (what needs torch or Ray to run).

- :mod:`tablezoo.training.ppo`: MaskablePPO on stable-baselines3 (``tablezoo train``);
- :mod:`tablezoo.training.rllib`: PPO self-play on Ray RLlib (``tablezoo train --backend rllib``);
- :mod:`tablezoo.training.dqn`: Tianshou's DQN with the action mask (a baselines row);
- :mod:`tablezoo.training.expert`: expert iteration, league PPO and Gumbel search self-play
  (``tablezoo expert``);
- :mod:`tablezoo.training.torch_net`: the torch twin of the numpy network.

The settings dataclasses and the flags made from them are :mod:`tablezoo.games.settings`'s (the
old path ``tablezoo.training.settings`` warns and hands them on).

Training imports the layers below it (games, bots, envs, wrappers, evaluation) and never
:mod:`tablezoo.release` or the command line (:mod:`tablezoo.commands`), which import it.
"""
