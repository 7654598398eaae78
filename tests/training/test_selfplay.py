"""The self-play pieces every training method shares, and the typed settings' command line."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np
import pytest

from tablezoo.bots.core import RandomBot
from tablezoo.bots.net import PolicyValueNet
from tablezoo.evaluation.play import play_in_order, play_out
from tablezoo.evaluation.tournament import Standing
from tablezoo.games import make
from tablezoo.games.core import TERMINAL, ConfigError
from tablezoo.games.settings import add_arguments, check_ranges, field_docs, given, setting
from tablezoo.training.expert.config import ExpertConfig
from tablezoo.training.expert.league import Episodes
from tablezoo.training.expert.selfplay import Buffer, column, minibatch_fit, seat_bots, seat_counts


def test_a_game_is_played_to_its_end_or_stopped_at_the_limit() -> None:
    game = make("diamant", 3)
    state, bot = game.initial_state(), RandomBot()
    bot.reset(1)
    assert play_out(game, state, np.random.default_rng(0), bot.act)
    assert game.advance(state, np.random.default_rng(0)) == TERMINAL
    court = make("court", 2)
    long = court.initial_state()
    assert not play_out(court, long, np.random.default_rng(0), bot.act, max_decisions=5)


def test_bots_are_seated_by_name_each_with_its_seed_in_seat_order() -> None:
    game = make("diamant", 3)
    rng, same = np.random.default_rng(4), np.random.default_rng(4)
    bots = seat_bots(game, ["random", None, "heuristic"], rng)
    assert bots[1] is None and isinstance(bots[0], RandomBot) and type(bots[2]).__name__ != "RandomBot"
    same.integers(2**31, size=2)  # one seed for each bot, none for the seat left to the caller
    assert rng.integers(2**31) == same.integers(2**31)
    assert seat_counts([3, 5], 5) == [3, 5, 3, 5, 3]


def test_work_items_come_back_in_order_from_every_process() -> None:
    items = [-5, 3, -1, 4, -2]
    assert play_in_order(abs, items, 2) == play_in_order(abs, items, 1) == [5, 3, 1, 4, 2]


def test_buffers_join_cut_save_and_load_whatever_their_columns(tmp_path: Path) -> None:
    empty = Episodes.empty(7, 5)
    assert len(empty) == 0 and empty.obs.shape == (0, 7) and empty.legal.shape == (0, 5)
    assert [getattr(empty, f.name).dtype for f in fields(empty)][2:] == [
        np.int32, np.float32, np.float32, np.float32, np.int8, np.int8
    ]  # fmt: skip
    rows = Episodes(*(np.arange(3 * np.prod(a.shape[1:] or 1)).reshape(3, *a.shape[1:]).astype(a.dtype)
                      for a in (getattr(empty, f.name) for f in fields(empty))))  # fmt: skip
    both = Episodes.join([rows, empty, rows])
    assert len(both) == 6 and both.tail(2).action.tolist() == [1, 2]
    both.save(tmp_path / "e.npz")
    again = Episodes.load(tmp_path / "e.npz")
    assert all(np.array_equal(getattr(again, f.name), getattr(both, f.name)) for f in fields(both))

    @dataclass
    class Two(Buffer):
        a: np.ndarray = column("", np.float32)
        b: np.ndarray = column("", np.float32)

    np.savez(tmp_path / "old.npz", a=np.zeros(2))
    with pytest.raises(KeyError, match="a saved Two without 'b'"):
        Two.load(tmp_path / "old.npz")


def test_a_fit_reports_its_figures_and_stops_when_told() -> None:
    import torch

    net = PolicyValueNet.initial(make("diamant", 3), (8,), seed=0)
    obs = torch.zeros((10, net.observation_size), dtype=torch.uint8)
    illegal = torch.zeros((10, net.num_actions), dtype=torch.bool)

    def loss(twin: object, idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        _, value = twin(obs[idx], illegal[idx])  # type: ignore[operator]
        return value.square().mean(), {"rows": float(len(idx)), "one": 1.0}

    common = dict(figures=("one", "rows"), batch_size=4, learning_rate=1e-3, seed=0)
    fitted = minibatch_fit(net, 10, loss, epochs=3, **common)  # type: ignore[arg-type]
    assert (fitted.epochs, fitted.means, fitted.last_epoch) == (
        3,
        {"one": 1.0, "rows": 3.3333},
        {"one": 3, "rows": 10},
    )
    stopped = minibatch_fit(net, 10, loss, epochs=3, stop=lambda sums: sums["rows"] == 10, **common)  # type: ignore[arg-type]
    assert stopped.epochs == 1 and stopped.step_size == 1e-3
    falling = minibatch_fit(net, 10, loss, epochs=2, last_step_size=0.1, **common)  # type: ignore[arg-type]
    assert falling.step_size == pytest.approx(1e-4)
    assert list(minibatch_fit(net, 0, loss, epochs=1, **common).means) == ["one", "rows"]  # type: ignore[arg-type]


def test_a_win_counts_its_share_and_a_stopped_game_counts_for_every_seat() -> None:
    s = Standing("a")
    s.record(0, [0, 2], 3, 5.0)
    s.record(1, [0], 3, 1.0)
    s.record(2, None, 4, 2.0)
    assert s.credits == [0.5, 0.0, 0.25] and s.scores == [5.0, 1.0, 2.0] and s.truncated == 1


@dataclass
class Toy:
    """Settings to try the command line on."""

    name: str = setting(positional=True)
    """The name."""
    share: float = setting(0.5, at_least=0, at_most=1)
    """A share of something."""
    sizes: tuple[int, ...] = setting((4, 2))
    """Layer sizes."""
    alpha: float = setting(1.0, above=0)
    """A concentration."""
    label: str = setting("", default_text="the name")
    """A label."""


def test_a_settings_dataclass_makes_its_command_line() -> None:
    assert field_docs(Toy) == {
        "name": "The name.",
        "share": "A share of something.",
        "sizes": "Layer sizes.",
        "alpha": "A concentration.",
        "label": "A label.",
    }
    parser = argparse.ArgumentParser()
    add_arguments(parser, Toy)
    text = parser.format_help()
    assert "A share of something. (default: 0.5)" in text and "(default: 4 2)" in text
    assert "A label. (default: the name)" in text
    args = parser.parse_args(["x", "--sizes", "8", "8", "--share", "0.25"])
    assert given(args, Toy) == {"name": "x", "share": 0.25, "sizes": [8, 8]}
    check_ranges(Toy("x"))
    with pytest.raises(ConfigError, match=r"--share is 0 to 1, not 1.5"):
        check_ranges(Toy("x", share=1.5))
    with pytest.raises(ConfigError, match=r"--alpha is above 0, not 0"):
        check_ranges(Toy("x", alpha=0))


def test_every_setting_of_expert_iteration_says_what_it_is() -> None:
    docs = field_docs(ExpertConfig)
    assert [f.name for f in fields(ExpertConfig) if not docs.get(f.name)] == []
    with pytest.raises(ConfigError, match=r"--random-seats is 0 to 1, not 2"):
        ExpertConfig(game="diamant", random_seats=2)
    with pytest.raises(ConfigError, match=r"--dirichlet-alpha is above 0, not 0"):
        ExpertConfig(game="diamant", dirichlet_alpha=0)
