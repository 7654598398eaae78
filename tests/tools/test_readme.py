"""The Python examples of the README and of the documentation (``docs/**/*.md``) run as written.

Every ```` ```python ```` block runs, each in a fresh namespace; a listing that is shown but
not run (a file included whole, a sketch) is fenced ```` ```py ````.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

# the Tianshou example's replay buffer is numba code that takes a minute to compile on a busy machine;
# its hundred steps run it as plain Python (set before numba is first imported)
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
SNIPPETS = [
    (page, i, code)
    for page in PAGES
    for i, code in enumerate(re.findall(r"^```python\n(.*?)^```", page.read_text(), flags=re.S | re.M))
]


@pytest.mark.parametrize(
    "page, code",
    [(page, code) for page, _, code in SNIPPETS],
    ids=[f"{page.relative_to(ROOT)}:{i}" for page, i, _ in SNIPPETS],
)
def test_example_runs(page: Path, code: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(code, str(page), "exec"), {})


def test_readme_and_docs_have_examples() -> None:
    assert sum(page == README for page, _, _ in SNIPPETS) >= 1
    assert len({page for page, _, _ in SNIPPETS}) >= 10
