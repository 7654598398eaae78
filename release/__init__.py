"""What leaves a training run: ONNX exports, shipped agents with their model cards, their recipes.

- :mod:`tablezoo.release.export` (with :mod:`tablezoo.release.onnx_graph`): an agent as ONNX
  with a JSON description, checked with ONNX Runtime (``tablezoo export``);
- :mod:`tablezoo.release.ship` (with :mod:`tablezoo.release.cards`): a network measured and
  shipped as its game's agent with a model card (``tablezoo ship``);
- :mod:`tablezoo.release.recipe` and :mod:`tablezoo.release.reproduce`: the commands a shipped
  network records, run again (``tablezoo reproduce``);
- :mod:`tablezoo.release.baselines`: the published baselines, each row trained by the package's
  trainers and scored by the protocol, summed up and published (``tablezoo baselines``);
- :mod:`tablezoo.release.benchmark_tables`: the Markdown tables of the benchmarks' result files
  that the documentation shows (and the benchmarks' scripts print).

Release imports training and evaluation; only the command line (:mod:`tablezoo.commands`)
imports it (and, outside the package, the documentation's build and the benchmarks' scripts).
"""
