"""PPO: stable-baselines3's MaskablePPO for one learner seat against bots or earlier selves.

:mod:`~tablezoo.training.ppo.config` is ``tablezoo train``'s settings and run folder (both
backends'), with ``hyperparams.yml`` beside it; :mod:`~tablezoo.training.ppo.sb3` the
stable-baselines3 run; :mod:`~tablezoo.training.ppo.progress` its evaluations and
checkpoints; :mod:`~tablezoo.training.ppo.imitate` behaviour cloning of a teacher bot;
:mod:`~tablezoo.training.ppo.sb3_policy` the action-head policy, and
:mod:`~tablezoo.training.ppo.sb3_batched` and :mod:`~tablezoo.training.ppo.sb3_masks` the
batched env and the action masks as stable-baselines3 ``VecEnv``\\ s.

PPO in plain PyTorch, the trainers of two baselines rows and the package's copies of the two
programs of ``examples/``: :mod:`~tablezoo.training.ppo.cleanrl` (masked PPO over the AEC env)
and :mod:`~tablezoo.training.ppo.batched_selfplay` (self-play on the batched env).
"""
