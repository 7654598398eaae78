"""PPO on Ray RLlib: multi-agent self-play on a laptop or a cluster (``tablezoo train --backend rllib``).

:mod:`~tablezoo.training.rllib.backend` runs it, with ``tablezoo train``'s settings
(:mod:`tablezoo.training.ppo.config`) and the backend's own
(:mod:`~tablezoo.training.rllib.config`, which imports neither torch nor Ray), and the same
evaluations and run folder as the stable-baselines3 backend.
"""
