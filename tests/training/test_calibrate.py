"""Refitting a network's value head to its own games (tablezoo.training.calibrate)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tablezoo.bots.net import PolicyValueNet
from tablezoo.games import make
from tablezoo.training.expert.calibrate import calibrate, main, own_games, squared_error


def test_own_games_keep_two_seats_a_decision_with_their_outcomes() -> None:
    game = make("diamant", 3)
    net = PolicyValueNet.initial(game, (16,), seed=1)
    observations, shares, numbers = own_games(net, "diamant", 3, 4, seed=2)
    assert observations.dtype == np.uint8 and observations.shape == (len(shares), game.padded_spec.size)
    assert set(numbers.tolist()) == {0, 1, 2, 3} and len(shares) % 2 == 0
    # a win share is a seat's part of the win: 0, or 1/k of a k-way win
    parts = np.array([0.0, 1.0, 1 / 2, 1 / 3])
    assert np.isclose(shares[:, None], parts).any(axis=1).all()


def test_the_refit_changes_the_value_head_alone_and_fits_the_outcomes_better() -> None:
    game = make("diamant", 3)
    net = PolicyValueNet.initial(game, (16,), seed=3)
    refit, report = calibrate(net, "diamant", [3, 4], games=30, seed=4)
    assert report.samples > report.held_out > 0
    assert report.error_after < report.error_before  # an untrained head knows nothing of the outcomes
    assert report.error_after < report.error_constant * 1.05
    observations, shares, _ = own_games(net, "diamant", 4, 3, seed=9)
    x = observations.astype(np.float32)
    assert np.array_equal(refit.forward(x)[0], net.forward(x)[0])  # the policy: the same, bit for bit
    assert not np.allclose(refit.forward(x)[1], net.forward(x)[1])
    assert np.isclose(
        squared_error(refit, observations, shares), np.mean((refit.forward(x)[1] - shares) ** 2)
    )


def test_the_command_writes_the_refitted_network(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    game = make("diamant", 3)
    PolicyValueNet.initial(game, (16,), seed=5).save(tmp_path / "net.npz")
    main(
        [
            str(tmp_path / "net.npz"),
            "diamant",
            "--players",
            "3",
            "--games",
            "10",
            "--out",
            str(tmp_path / "new.npz"),
        ]
    )
    new = PolicyValueNet.load(tmp_path / "new.npz")
    assert new.value_w is not None and "squared error" in capsys.readouterr().out
