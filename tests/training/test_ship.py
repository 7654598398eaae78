"""`tablezoo ship`'s steps one by one: its settings, the network it selects, the card written from data.

The whole command on a real run (tournaments and all) is tested in test_expert.py and test_reproduce.py.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from tablezoo.bots.net import PolicyValueNet
from tablezoo.commands import build_parser
from tablezoo.games import make
from tablezoo.games.core import ConfigError
from tablezoo.release import ship
from tablezoo.release.ship import ShipConfig, Strength


def test_the_command_line_gives_the_settings_defaults_and_all() -> None:
    args = build_parser().parse_args(["ship", "runs/expert-court"])
    settings = {f.name: getattr(args, f.name) for f in fields(ShipConfig)}
    assert ShipConfig(**settings) == ShipConfig(Path("runs/expert-court"))
    args = build_parser().parse_args(["ship", "r", "--round", "4", "--average", "2", "--jobs", "1"])
    assert (args.round, args.average, args.jobs, args.func) == (4, 2, 1, ship.cmd_ship)


def test_the_recorded_command_names_what_is_not_the_default_but_the_jobs() -> None:
    config = ShipConfig(Path("runs/x"), games=3, jobs=1, search=0, round=0)
    assert config.command() == "python -m tablezoo.release.ship runs/x --games 3 --search 0 --round 0"
    assert ShipConfig(Path("runs/x")).command() == "python -m tablezoo.release.ship runs/x"
    assert config.row_games == 3 and ShipConfig(Path(), target_games=5).row_games == 5


def fake_run(folder: Path, rounds: int) -> Path:
    """A run folder with a config, a log of ``rounds`` rounds and a small network per round."""
    (folder / "config.json").write_text(json.dumps({"game": "diamant"}))
    (folder / "log.jsonl").write_text("".join(json.dumps({"iteration": k}) + "\n" for k in range(rounds)))
    for k in range(rounds):
        PolicyValueNet.initial(make("diamant"), (4,), seed=k).save(folder / f"net-{k}.npz")
    return folder


def test_select_takes_the_last_round_a_named_one_or_a_mean(tmp_path: Path) -> None:
    run = fake_run(tmp_path, 3)
    last = ship.select(ShipConfig(run))
    assert (last.net_file, len(last.log), last.averaged) == (run / "net.npz", 3, None)
    one = ship.select(ShipConfig(run, round=1))
    assert (one.net_file, [e["iteration"] for e in one.log]) == (run / "net-1.npz", [0, 1])
    mean = ship.select(ShipConfig(run, round=2, average=2))
    assert (mean.net_file, mean.averaged) == (run / "net-1-to-2-mean.npz", (1, 2))
    saved = PolicyValueNet.load(mean.net_file)
    one_net, two_net = (PolicyValueNet.load(run / f"net-{k}.npz") for k in (1, 2))
    for s, a, b in zip(saved.weights, one_net.weights, two_net.weights, strict=True):
        assert s == pytest.approx((a + b) / 2)
    with pytest.raises(ConfigError, match=r"--round: the run has rounds 0 to 2, not 3"):
        ship.select(ShipConfig(run, round=3))
    with pytest.raises(ConfigError, match=r"--average: 1 to 2 rounds \(0 to 1 were played\), not 3"):
        ship.select(ShipConfig(run, round=1, average=3))


def row(seats: int, agent: str, against: str, share: float) -> dict[str, object]:
    return {
        "seats": seats,
        "agent": agent,
        "against": against,
        "games": 10,
        "win_share": share,
        "interval": [share - 0.1, share + 0.1],
        "fair_share": round(1 / seats, 4),
    }


def test_the_strength_section_is_written_from_the_measured_data() -> None:
    strength = Strength(
        rows=[],
        every=[row(2, "agent", "heuristic", 0.7), row(3, "agent", "heuristic", 0.3)],
        aims=[(row(2, "agent", "solver", 0.5), 0.55), (row(2, "agent:search=8", "solver", 0.8), 0.55)],
        latency=[(2, 1.234, 56.78)],
        opening=(1.0, 1.2),
    )
    text = ship.strength_section("heckmeck", ShipConfig(Path(), search=8, seed=3), strength)
    lines = text.splitlines()
    assert "| 2 | `agent` | heuristic | 10 | 0.700 [0.600, 0.800] | above 0.500 |" in lines
    assert (
        "| 3 | `agent` | heuristic | 10 | 0.300 [0.200, 0.400] | not clearly above or below 0.333 |" in lines
    )
    missed = "| 2 | `agent` | solver | 10 | 0.500 [0.400, 0.600] | not clearly above or below 0.500 |"
    assert missed + " 0.550: not met (short by 0.150) |" in lines
    assert "| 2 | `agent:search=8` | solver | 10 | 0.800 [0.700, 0.900] | above 0.500 | 0.550: met |" in lines
    assert "| 2 | 1.23 | 56.8 |" in lines and "| seats | `agent` | `agent:search=8` |" in lines
    assert "tournament\nseed 3." in text and "## Opening turn" in text
    none = Strength([], [], [], [], None)
    assert "## Opening turn" not in ship.strength_section("diamant", ShipConfig(Path()), none)


def test_the_training_section_is_written_from_the_run(tmp_path: Path) -> None:
    log = [
        {"iteration": k, "player": "p", "decisions": 5, "buffer": 9, "policy_loss": 0.5, "value_loss": 0.25,
         "play_seconds": 1800, "fit_seconds": 0, "against_heuristic": {"3p": [0.4, 0.3, 0.5]}}
        for k in range(2)
    ]  # fmt: skip
    config = {"game": "diamant", "teacher": "heuristic", "teacher_games": 6, "teacher_rounds": 1,
              "simulations": 4, "seats": [3, 4], "workers": 2}  # fmt: skip
    selection = ship.Selection(config, log, tmp_path / "net.npz", averaged=(0, 1))
    net = PolicyValueNet.initial(make("diamant"), (4,))
    text = ship.training_section(selection, net, "LINE")
    assert text.startswith("## How it was trained\n\n- Expert iteration")
    assert "- Shipped: the mean of the weights of rounds 0 to 1 (weight averaging, `--average 2`)" in text
    assert "2 rounds, 10 recorded decisions, 1.00 hours of play and training on\n  2 self-play" in text
    assert "- Reproduce (from a clean clone, after `make`): LINE" in text
    assert "| 1 | p | 5 | 9 | 0.500 | 0.250 | 1800 | heuristic: 3p 0.40 |" in text.splitlines()
    card = ship.card_text("diamant", text, "STRENGTH")
    assert card.startswith("# Diamant: shipped agent, every seat count (3 to 8)")
    assert card.index("## How it was trained") < card.index("STRENGTH")


def test_a_games_name_measures_its_shipped_agent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tablezoo ship GAME``: the shipped network and the card's training section stay, the
    strength section and the .json are measured anew (here with tiny tournaments), naming the
    command; a run's --round or --average, or a game with no agent, is refused."""
    from tablezoo.bots import registry

    for suffix in (".npz", ".md", ".json"):
        (tmp_path / f"court{suffix}").write_bytes((registry.AGENTS_DIR / f"court{suffix}").read_bytes())
    monkeypatch.setattr(ship, "AGENTS_DIR", tmp_path)
    monkeypatch.setattr(ship, "move_times", lambda *args: 1.0)
    old = (tmp_path / "court.md").read_text()
    network = (tmp_path / "court.npz").read_bytes()
    args = build_parser().parse_args(["ship", "court", "--games", "4", "--search", "0", "--jobs", "1"])
    args.func(args)
    card = (tmp_path / "court.md").read_text()
    training = old[old.index("## How it was trained") : old.index("## How strong it is")]
    assert training in card and (tmp_path / "court.npz").read_bytes() == network
    assert card.endswith(old[old.index(ship.LEAGUE_MARK) :])  # the strength league's section kept
    assert "Measured by `python -m tablezoo.release.ship court --games 4 --search 0`." in card
    rows = json.loads((tmp_path / "court.json").read_text())
    assert {r["games"] for r in rows} == {4} and len(rows) == 4  # seats 2 to 5 (the targets are among them)
    with pytest.raises(ConfigError, match="--round and --average"):
        ship.remeasure("court", ShipConfig(Path("court"), round=3))
    with pytest.raises(ConfigError, match="no agent is shipped for 'sechs'"):
        ship.remeasure("sechs", ShipConfig(Path("sechs")))


def test_a_shipped_agent_refitted_keeps_its_policy_and_records_the_refit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tablezoo ship GAME --refit-value N..``: the shipped network's win-share head is refitted in
    place (its policy bit for bit the same), the refit is recorded in its meta, its card and its
    recipe (which ``tablezoo reproduce --ship`` runs after the ship), and it is measured anew."""
    from tablezoo.bots import registry
    from tablezoo.release.recipe import RECIPE
    from tablezoo.release.refit import VALUE_REFIT

    for suffix in (".npz", ".md", ".json"):
        (tmp_path / f"diamant{suffix}").write_bytes((registry.AGENTS_DIR / f"diamant{suffix}").read_bytes())
    monkeypatch.setattr(ship, "AGENTS_DIR", tmp_path)
    monkeypatch.setattr(ship, "move_times", lambda *args: 1.0)
    before = PolicyValueNet.load(tmp_path / "diamant.npz")
    argv = ["ship", "diamant", "--games", "2", "--search", "0", "--jobs", "1", "--players", "3"]
    args = build_parser().parse_args([*argv, "--refit-value", "3", "--refit-games", "6"])
    args.func(args)
    after = PolicyValueNet.load(tmp_path / "diamant.npz")
    command = (
        "python -m tablezoo.release.ship diamant --games 2 --search 0 --players 3 "
        "--refit-value 3 --refit-games 6"
    )
    assert after.meta["recipe"] == [*before.meta[RECIPE], command]
    refit = after.meta[VALUE_REFIT]
    assert refit["players"] == [3] and refit["games"] == 6 and refit["held_out"] > 0
    game = make("diamant", 3)
    observations = game.pad(
        np.array([game.observe(game.initial_state(), 0), game.observe(game.initial_state(), 1)])
    ).astype(np.float32)
    assert np.array_equal(after.forward(observations)[0], before.forward(observations)[0])
    assert not np.allclose(after.forward(observations)[1], before.forward(observations)[1])
    card = (tmp_path / "diamant.md").read_text()
    assert card.count("- Win-share head refitted to 6 games of the network against itself at 3 seats") == 1
    assert f"then `{command}`," in card and f"Measured by `{command}`." in card
    args.func(build_parser().parse_args([*argv, "--refit-value", "3", "--refit-games", "6"]))
    assert (tmp_path / "diamant.md").read_text().count(
        "- Win-share head refitted"
    ) == 1  # replaced, not added
