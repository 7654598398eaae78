"""`tablezoo reproduce`: a shipped network records the commands that train it, and they train it again."""

from __future__ import annotations

import shutil
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from tablezoo.bots import registry
from tablezoo.bots.net import PolicyValueNet
from tablezoo.commands import main
from tablezoo.games.core import ConfigError
from tablezoo.release import reproduce, ship
from tablezoo.training.expert.config import ExpertConfig
from tablezoo.training.expert.run import run_expert

SETTINGS = dict(teacher="heuristic", teacher_games=4, hidden=(16,), epochs=1, workers=1, eval_games=0)


def same_weights(a: PolicyValueNet, b: PolicyValueNet) -> bool:
    return all(
        np.array_equal(x, y) for x, y in zip([*a.weights, *a.biases], [*b.weights, *b.biases], strict=True)
    )


def test_a_shipped_chain_of_runs_is_trained_again_by_one_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    monkeypatch.setattr(ship, "AGENTS_DIR", agents)
    monkeypatch.setattr(registry, "AGENTS_DIR", agents)
    # two runs: imitation from a fresh network, then a league round from the first run's network
    first = run_expert(ExpertConfig(game="diamant", out=str(tmp_path / "a"), rounds=1, **SETTINGS))  # type: ignore[arg-type]
    second = run_expert(
        ExpertConfig(
            game="diamant",
            out=str(tmp_path / "b"),
            init=str(first / "net-0.npz"),
            teacher_rounds=0,
            league_rounds=1,
            league_games=4,
            rounds=1,
            seed=5,
            **SETTINGS,  # type: ignore[arg-type]
        )
    )
    ship.main([str(second), "--games", "2", "--search", "0", "--jobs", "1"])
    shipped = PolicyValueNet.load(agents / "diamant.npz")
    recipe = shipped.meta[reproduce.RECIPE]
    assert [c.split()[:3] for c in recipe] == [["tablezoo", "expert", "diamant"]] * 2 + [
        ["python", "-m", "tablezoo.release.ship"]
    ]
    assert f"--init {first / 'net-0.npz'}" in recipe[1] and recipe[2].endswith("--games 2 --search 0")
    card = (agents / "diamant.md").read_text()
    assert "`tablezoo reproduce diamant` runs `tablezoo expert diamant" in card and "with `--ship`" in card

    # from nothing but the shipped network: the same commands, the same network (the runs above
    # played in one process, the commands play in two: games come back in order all the same)
    shutil.rmtree(tmp_path / "a")
    shutil.rmtree(tmp_path / "b")
    capsys.readouterr()
    main(["reproduce", "diamant", "--dry-run"])
    printed = capsys.readouterr().out.splitlines()
    assert [line for line in printed if line.startswith("$ ")] == [f"$ {c}" for c in recipe[:2]]
    # under each command, every setting its run uses, the defaults it does not name as well
    settings = [f.name for f in fields(ExpertConfig)]
    assert [line.split(" = ")[0].strip() for line in printed if not line.startswith("$ ")] == settings * 2
    assert "    seed = 5" in printed and "    root_noise = 0.25" in printed and "    rounds = 1" in printed
    assert not (tmp_path / "a").exists()
    main(["reproduce", "diamant"])
    assert same_weights(PolicyValueNet.load(second / "net-0.npz"), shipped)
    # it says what the reproduction took: a line per run, and the sum (4 teacher, 4 league games)
    report = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")]
    assert report[0].startswith("| step | rounds | games |")
    assert report[1].startswith(f"| {first} | 1 | 4 |") and report[2].startswith(f"| {second} | 1 | 4 |")
    assert report[3].startswith("| all | 2 | 8 |")
    assert (agents / "diamant.md").read_text() == card  # shipping is left to --ship
    main(["reproduce", "diamant"])  # a finished chain plays no more rounds
    assert len((second / "log.jsonl").read_text().splitlines()) == 1
    main(["reproduce", "diamant", "--ship"])
    assert same_weights(PolicyValueNet.load(agents / "diamant.npz"), shipped)
    assert PolicyValueNet.load(agents / "diamant.npz").meta[reproduce.RECIPE] == recipe
    # a folder that holds a run of other settings is not gone on with
    saved = first / "config.json"
    saved.write_text(saved.read_text().replace('"teacher_games": 4', '"teacher_games": 5'))
    with pytest.raises(ConfigError, match=r"holds a run with other settings \(teacher_games\)"):
        reproduce.reproduce("diamant", agents / "diamant.npz")


def test_a_network_without_its_commands_is_refused_by_name(tmp_path: Path) -> None:
    run = run_expert(ExpertConfig(game="diamant", out=str(tmp_path), rounds=1, **SETTINGS))  # type: ignore[arg-type]
    path = run / "net-0.npz"
    with pytest.raises(ConfigError, match="records no commands that train it"):
        reproduce.reproduce("diamant", path)
    with pytest.raises(ConfigError, match="a network of 'diamant', not of 'court'"):
        reproduce.reproduce("court", path)
    net = PolicyValueNet.load(path)
    net.meta[reproduce.RECIPE] = ["rm -rf /"]
    net.save(path)
    with pytest.raises(ConfigError, match="only `tablezoo expert ` and"):
        reproduce.reproduce("diamant", path)
    with pytest.raises(SystemExit, match="no network at"):
        main(["reproduce", "diamant", "--agent", str(tmp_path / "none.npz")])


def test_a_run_from_a_shipped_network_goes_on_from_the_commands_it_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    monkeypatch.setattr(ship, "AGENTS_DIR", agents)
    monkeypatch.setattr(registry, "AGENTS_DIR", agents)
    first = run_expert(ExpertConfig(game="diamant", out=str(tmp_path / "a"), rounds=1, **SETTINGS))  # type: ignore[arg-type]
    ship.main([str(first), "--games", "2", "--search", "0", "--jobs", "1"])
    recorded = PolicyValueNet.load(agents / "diamant.npz").meta[reproduce.RECIPE]
    # a league round from the shipped file itself, which the next ship replaces
    league = dict(teacher_rounds=0, league_rounds=1, league_games=4, rounds=1)
    more = dict(init=str(agents / "diamant.npz"), seed=3, **league)
    second = run_expert(ExpertConfig(game="diamant", out=str(tmp_path / "b"), **more, **SETTINGS))  # type: ignore[arg-type]
    ship.main([str(second), "--games", "2", "--search", "0", "--jobs", "1"])
    shipped = PolicyValueNet.load(agents / "diamant.npz")
    recipe = shipped.meta[reproduce.RECIPE]
    assert recipe[0] == recorded[0] and len(recipe) == 3
    assert f"--init {first / 'net-0.npz'}" in recipe[1] and str(agents) not in recipe[1]
    kept = tmp_path / "second.npz"
    shutil.copy(agents / "diamant.npz", kept)

    # a run from the second's network, shipped after the second's ship replaced the file the
    # second started from: that file no longer holds the network the second started from, so the
    # chain ends there, named, and records no commands
    more = dict(init=str(second / "net-0.npz"), seed=4, **league)
    third = run_expert(ExpertConfig(game="diamant", out=str(tmp_path / "c"), **more, **SETTINGS))  # type: ignore[arg-type]
    ship.main([str(third), "--games", "2", "--search", "0", "--jobs", "1"])
    assert reproduce.RECIPE not in PolicyValueNet.load(agents / "diamant.npz").meta
    card = (agents / "diamant.md").read_text().replace("\n  ", " ")
    assert f"(from the network `{agents / 'diamant.npz'}`, which these runs did not train)" in card

    # the second's recorded commands train it again from nothing
    shutil.rmtree(tmp_path / "a")
    shutil.rmtree(tmp_path / "b")
    reproduce.reproduce("diamant", kept)
    assert same_weights(PolicyValueNet.load(second / "net-0.npz"), shipped)
