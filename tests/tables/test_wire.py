"""The site's JSON on its own: reading, writing and refusing (no server)."""

from __future__ import annotations

import numpy as np
import pytest

from tablezoo.tables.wire import ApiError, dumps, json_object, loads


def test_dumps_is_compact_and_takes_numpy() -> None:
    assert dumps({"a": np.int64(3), "b": np.arange(2), "c": np.float32(0.5)}) == '{"a":3,"b":[0,1],"c":0.5}'
    with pytest.raises(TypeError, match="set is not JSON"):
        dumps({1, 2})


def test_deep_json_is_a_clear_value_error() -> None:
    assert loads(b"[[1]]") == [[1]]
    with pytest.raises(ValueError, match="nested too deeply"):
        loads("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"not json", "the body must be a JSON object"),
        (b"[1, 2]", "the body must be a JSON object"),
        (b"[" * 100_000, "the body must be a JSON object (the JSON is nested too deeply)"),
    ],
)
def test_a_body_must_be_a_json_object(body: bytes, message: str) -> None:
    with pytest.raises(ApiError) as refused:
        json_object(body)
    assert (refused.value.status, refused.value.message) == (400, message)


def test_a_json_object_body_is_read() -> None:
    assert json_object(b'{"game": "diamant"}') == {"game": "diamant"}
