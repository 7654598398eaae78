"""Every test of this folder runs on both cores (see ``on_each_core`` in tests/conftest.py)."""

import pytest


@pytest.fixture(scope="module", autouse=True)
def core(on_each_core: str) -> str:
    return on_each_core
