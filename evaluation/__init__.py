"""Scoring any policy: tournaments, policy loading, the benchmark protocol, statistics, result files
and comparisons. Imports with numpy alone; torch, ONNX Runtime, stable-baselines3 and Ray are
loaded only when a policy of their kind is loaded.

One module a concern:

- :mod:`~tablezoo.evaluation.play`: the game loop and the process pool (one thread a worker);
- :mod:`~tablezoo.evaluation.tournament`: tournaments of bots with rotated seats and fixed seeds;
- :mod:`~tablezoo.evaluation.reading`, :mod:`~tablezoo.evaluation.policies` and
  :mod:`~tablezoo.evaluation.loaders`: any policy as a bot, and what it reads;
- :mod:`~tablezoo.evaluation.protocol`: the benchmark protocol (its cells, seeds, references);
- :mod:`~tablezoo.evaluation.stats`: intervals; :mod:`~tablezoo.evaluation.aggregate`: rliable over
  training seeds;
- :mod:`~tablezoo.evaluation.provenance`: what a result records of what made it;
- :mod:`~tablezoo.evaluation.results`: result files (read, rescore, join, portable paths);
- :mod:`~tablezoo.evaluation.compare`: paired comparisons, played or stored;
- :mod:`~tablezoo.evaluation.league`: the bots' strength league (OpenSkill ratings);
- :mod:`~tablezoo.evaluation.progress`: the progress bar; :mod:`~tablezoo.evaluation.cli` and
  :mod:`~tablezoo.evaluation.cli_args`: ``tablezoo evaluate`` and ``tablezoo benchmark``.

    from tablezoo.evaluation.protocol import run_protocol

    result = run_protocol("policy.onnx", "diamant", games=100)
"""
