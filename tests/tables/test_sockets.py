"""What a socket may send, read on its own (no server): the hello, then commands."""

from __future__ import annotations

import json

import pytest

from tablezoo.tables.sockets import MAX_MESSAGE, parse_command, parse_hello
from tablezoo.tables.table import Reply


def test_the_hello_carries_a_well_formed_token() -> None:
    assert parse_hello(json.dumps({"client": "alice-token-0001"})) == "alice-token-0001"
    for text in (None, "not json", "[" * 999 + "]" * 999, json.dumps(["alice-token-0001"]),
                 json.dumps({"client": "short"}), json.dumps({"client": "a b c d e f g h"}),
                 json.dumps({"client": "x" * 65}), json.dumps({"client": 12345678}),
                 json.dumps({"client": "alice-token-0001", "pad": "x" * MAX_MESSAGE})):  # fmt: skip
        assert parse_hello(text) is None, text


def test_a_command_is_its_text_a_bad_message_a_refusal() -> None:
    assert parse_command(json.dumps({"command": "/join Ann"})) == "/join Ann"
    for text, says in [
        (None, f"at most {MAX_MESSAGE} characters"),
        ("x" * (MAX_MESSAGE + 1), f"at most {MAX_MESSAGE} characters"),
        ("not json", "not JSON ("),
        ("[" * 999 + "]" * 999, "not JSON (the JSON is nested too deeply)"),
        (json.dumps({"command": 5}), 'send JSON like {"command": "/help"}'),
    ]:
        refusal = parse_command(text)
        assert isinstance(refusal, Reply) and not refusal.ok and says in refusal.text, text


@pytest.mark.parametrize("text", ['{"command": "play 42"}', '{"command": "", "other": 1}'])
def test_any_command_text_goes_on_to_the_table(text: str) -> None:
    assert parse_command(text) == json.loads(text)["command"]  # the table judges it
