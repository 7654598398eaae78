"""The README's Python examples run as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

# the Tianshou example's replay buffer is numba code that takes a minute to compile on a busy machine;
# its hundred steps run it as plain Python (set before numba is first imported)
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

README = Path(__file__).resolve().parents[2] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


@pytest.mark.parametrize("code", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_readme_example_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(code, str(README), "exec"), {})


def test_readme_has_examples() -> None:
    assert len(SNIPPETS) >= 2
