"""DQN: Tianshou's DQN with the action mask, one learner seat against bots (the baselines'
``tianshou_dqn``): :mod:`~tablezoo.training.dqn.masked`."""
