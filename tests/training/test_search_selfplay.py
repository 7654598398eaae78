"""Search self-play in the core (native/src/search/gumbel.h): its samples follow the Gumbel root's
definition, are the same whatever the threads or the way the network is asked, show each seat
only its own view, and a bad answer is refused with nothing applied."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import shipped_agent
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError
from tablezoo.games.native import available
from tablezoo.training.expert.search_selfplay import SAMPLE_FIELDS, SearchSelfPlay, numpy_evaluator

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


def small_net(name: str, seats: int, seed: int = 0) -> PolicyValueNet:
    return PolicyValueNet.initial(make(name, seats, core="native"), (32,), seed=seed, action_head=8)


def loop(name: str, seats: int, **settings: Any) -> SearchSelfPlay:
    base = {"num_games": 6, "seed": 3, "simulations": 8, "considered": 4}
    return SearchSelfPlay(name, seats, **(base | settings))


def play_until_samples(lp: SearchSelfPlay, net: Any, rows: int = 1) -> dict[str, np.ndarray]:
    """Decisions until at least one game has finished (and given ``rows`` samples)."""
    taken: list[dict[str, np.ndarray]] = []
    for _ in range(400):
        taken.append(lp.play(net, 5))
        if sum(len(t["value"]) for t in taken) >= rows:
            return {k: np.concatenate([t[k] for t in taken]) for k in SAMPLE_FIELDS}
    raise AssertionError("no game finished")


@pytest.mark.parametrize("name", list(GAMES))
def test_samples_follow_the_gumbel_root(name: str) -> None:
    seats = game_class(name).info.min_seats
    net = shipped_agent(make(name, seats, core="native"))  # it finishes its games soon
    lp = loop(name, seats, num_games=4, c_visit=50.0, c_scale=0.1)
    everything = play_until_samples(lp, net)
    # where chance was due: value-only rows of the last mover's view
    chance = everything["action"] == -1
    assert not everything["mask"][chance].any() and not everything["policy"][chance].any()
    assert np.isnan(everything["root_value"][chance]).all()
    assert chance.sum() == lp.counts()["chance_values"] or lp.counts()["episodes"] < lp.num_games
    s = {key: value[~chance] for key, value in everything.items()}
    mask, policy = s["mask"], s["policy"]
    assert mask.any(axis=1).all() and (mask.sum(axis=1) >= 2).all(), (
        "a sample is a decision of 2 moves or more"
    )
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, rtol=1e-5)
    assert (policy[~mask] == 0).all() and (s["visits"][~mask] == 0).all()
    assert mask[np.arange(len(mask)), s["action"]].all(), "the move played is legal"
    assert ((s["seat"] >= 0) & (s["seat"] < seats)).all()
    assert ((s["value"] >= 0) & (s["value"] <= 1)).all() and (
        (s["root_value"] >= 0) & (s["root_value"] <= 1)
    ).all()
    # the improved policy is softmax(logit + sigma(completed q)) over the legal moves, where
    # sigma(q) = (c_visit + the most visits) * c_scale * q and an unvisited move's q is v0
    logits, values = net.forward(s["obs"])
    np.testing.assert_allclose(s["root_value"], values, atol=1e-5)
    visits, q = s["visits"], s["q"]
    unvisited = mask & (visits == 0)
    np.testing.assert_allclose(q[unvisited], np.broadcast_to(values[:, None], q.shape)[unvisited], atol=1e-5)
    z = logits + (50.0 + visits.max(axis=1, keepdims=True)) * 0.1 * q
    z = np.where(mask, z, -np.inf)
    expected = np.exp(z - z.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(policy, expected, atol=2e-4)
    # a move is simulated at most once per world of each phase; the move played was simulated
    # in every phase it was in: the most
    played = visits[np.arange(len(visits)), s["action"]]
    assert (played == visits.max(axis=1)).all()
    counts = lp.counts()
    assert counts["decisions"] >= len(mask) and counts["episodes"] >= 1
    # a game's win shares: each finished game shares one win among its seats
    for g in np.unique(s["game"]):
        rows = s["game"] == g
        assert set(np.round(s["value"][rows], 6)) <= {
            round(k, 6) for k in (0.0, 1.0, 1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 6, 1 / 7)
        } | {round(1 / k, 6) for k in range(1, 11)}


@pytest.mark.parametrize("name", list(GAMES))
def test_threads_and_the_network_path_change_nothing(name: str) -> None:
    seats = game_class(name).info.default_seats
    net = small_net(name, seats, seed=1)
    one = loop(name, seats, num_threads=1)
    two = loop(name, seats, num_threads=2)
    a, b = one.play(net, 12), two.play(net, 12)
    for key in SAMPLE_FIELDS:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert one.counts() == two.counts()
    # asked from Python once per wave: the rows the core would have evaluated, answered by numpy
    # (float32 sums in another order: the same moves wherever no two logits nearly tie)
    asked = loop(name, seats)
    rows = asked.requests()
    assert rows.shape == (6, asked.read_size) and rows.dtype == np.float32
    asked.step(numpy_evaluator(net))
    assert asked.counts()["waves"] == 1 and asked.counts()["evaluations"] == 6


@pytest.mark.parametrize("name", list(GAMES))
def test_a_root_is_its_seats_own_view(name: str) -> None:
    seats = game_class(name).info.max_seats
    lp = loop(name, seats, num_games=3)
    game = lp.game
    rows = lp.requests()
    assert len(rows) == 3  # each game waits on its first decision's root
    for i in range(3):
        state = lp.state(i)
        mover = game.to_move(state)
        np.testing.assert_array_equal(rows[i], game.observe_padded(state, mover))
    plain = loop(name, seats, num_games=2, padded=False)
    for i, row in enumerate(plain.requests()):
        state = plain.state(i)
        np.testing.assert_array_equal(row, game.observe(state, game.to_move(state)))


def test_a_bad_answer_changes_nothing() -> None:
    lp = loop("diamant", 3, num_games=4)
    rows = lp.requests()
    n, actions = len(rows), lp.game.num_actions
    good = np.zeros((n, actions), np.float32), np.full(n, 0.5, np.float32)
    bad_answers = [
        ((np.zeros((n + 1, actions)), good[1]), ValueError, "one row of logits per row requested"),
        ((np.zeros((n, actions + 1)), good[1]), ValueError, "logits has shape"),
        ((np.zeros(n), good[1]), ValueError, "logits should have 2 dimensions"),
        ((good[0], np.zeros(n + 2)), ValueError, "one win share per row requested"),
        ((good[0], np.full(n, 1.5)), ValueError, "a win share is a number from 0 to 1"),
        ((good[0], np.full(n, np.nan)), ValueError, "a win share is a number from 0 to 1"),
        ((np.full((n, actions), np.nan), good[1]), ValueError, "logits of legal actions must be finite"),
        (("logits", good[1]), (TypeError, ValueError), "logits"),
        ((good[0], np.zeros((n, 2))), ValueError, "values should have shape"),
        ((None, good[1]), TypeError, "not None"),
    ]
    for (logits, values), error, words in bad_answers:
        with pytest.raises(error, match=words):
            lp.answer(logits, values)
        np.testing.assert_array_equal(lp.requests(), rows)
    assert lp.counts()["waves"] == 0
    # -inf where a move is illegal is an answer (a masked network's), and (rows, 1) values are
    masked = np.where(np.arange(actions) < 0, 0.0, 0.0).astype(np.float32)[None].repeat(n, 0)
    lp.answer(masked, good[1][:, None])
    assert lp.counts()["waves"] == 1


def test_answer_needs_requests_and_a_start() -> None:
    lp = loop("heckmeck", 2, num_games=2)
    core = lp._core
    n = len(lp.requests())
    lp.answer(np.zeros((n, lp.game.num_actions)), np.full(n, 0.5))
    with pytest.raises(RuntimeError, match="answer\\(\\) before requests\\(\\)"):
        lp.answer(np.zeros((n, lp.game.num_actions)), np.full(n, 0.5))
    fresh = type(core)(lp.game._native, num_games=2, seed=0)  # type: ignore[attr-defined]
    for call in (fresh.requests, lambda: fresh.answer(np.zeros((1, 9)), np.zeros(1)), lambda: fresh.state(0)):
        with pytest.raises(RuntimeError, match="before reset"):
            call()
    with pytest.raises(ValueError, match="no game 5"):
        lp.state(5)


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"num_games": 0}, "num_games is 1"),
        ({"simulations": 0}, "simulations are 1..100000|simulations is 1"),
        ({"num_threads": 0}, "num_threads is 1"),
        ({"horizon": -1}, "horizon is 0"),
        ({"c_scale": 0.0}, "c_scale is above 0"),
        ({"c_visit": float("nan")}, "c_visit is 0 or more"),
        ({"considered": 0}, "considered is 1"),
    ],
)
def test_bad_settings_are_named(settings: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        loop("court", 2, **settings)
    with pytest.raises(ValueError, match=words):  # the core's own check, below the Python face
        core_class = type(loop("court", 2)._core)
        core_class(make("court", 2, core="native")._native, **({"num_games": 2, "seed": 0} | settings))


@pytest.mark.parametrize("name", ["num_games", "simulations", "horizon", "num_threads"])
def test_settings_too_large_for_the_core_are_named(name: str) -> None:
    with pytest.raises(ConfigError, match=f"{name} is .* to .*, not {2**40}"):
        loop("court", 2, **{name: 2**40})


def test_settings_given_as_numpy_or_the_wrong_kind() -> None:
    with pytest.raises(ConfigError, match="num_games must be a whole number"):
        loop("court", 2, num_games=np.array([4]))
    with pytest.raises(ConfigError, match="decisions must be a whole number"):
        loop("court", 2).play(small_net("court", 2), decisions=np.array([1]))  # type: ignore[arg-type]
    assert loop("court", 2, num_games=np.int64(2)).num_games == 2
    with pytest.raises(ConfigError, match="the network plays 'heckmeck', not 'court'"):
        loop("court", 2).play(small_net("heckmeck", 2), 1)


def constant_value(net: PolicyValueNet, value: float) -> Any:
    """``net``'s policy with a win-share head that always says ``value``."""

    def evaluate(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, _ = net.forward(obs)
        return logits, np.full(len(obs), value, np.float32)

    return evaluate


@pytest.mark.parametrize("name", list(GAMES))
def test_games_played_out_are_valued_by_their_ends_alone(name: str) -> None:
    # a head that says 0.3 everywhere: a simulation valued by it adds 0.3 to its move's sum, one
    # played out a win share of 0, 1/3, 1/2 or 1 at 2 or 3 seats, so 6 q visits is whole
    seats = game_class(name).info.min_seats
    net = shipped_agent(make(name, seats, core="native"))
    visited = {}
    for leaf in ("head", "end"):
        lp = loop(name, seats, num_games=2, simulations=8, leaf=leaf, others="likeliest")
        s = play_until_samples(lp, constant_value(net, 0.3))
        rows = s["action"] >= 0
        visits, q = s["visits"][rows], s["q"][rows]
        sums = 6 * q[visits > 0] * visits[visits > 0]
        visited[leaf] = np.abs(sums - np.round(sums)) < 1e-3
    assert visited["end"].all(), "a simulation played out is valued at the game's end"
    assert not visited["head"].all(), "the head's 0.3 values the simulations that stop early"


def test_a_turn_is_played_out_before_the_head_values_it() -> None:
    # in Heckmeck a turn is many decisions of one seat: valued at its next decision (head) a
    # simulation asks the network once; at the start of its next turn (turn) it plays its turn out,
    # and the other's; to the game's end (end) far more
    net = shipped_agent(make("heckmeck", 2, core="native"))
    asked = {}
    for leaf in ("head", "turn", "end"):
        lp = loop("heckmeck", 2, num_games=2, leaf=leaf, gumbel=False)
        lp.play(net, 6)
        counts = lp.counts()
        asked[leaf] = counts["questions"] / counts["simulations"]
    assert asked["head"] < asked["turn"] < asked["end"], asked


def test_the_others_play_their_likeliest_moves_or_draws() -> None:
    net = shipped_agent(make("sechs_nimmt", 2, core="native"))
    runs = {
        others: play_until_samples(
            loop("sechs_nimmt", 2, num_games=1, gumbel=False, leaf="end", others=others), net
        )
        for others in ("likeliest", "sample")
    }
    # the game's first decision: the same position, searched in the same worlds
    first = {others: {key: s[key][0] for key in ("obs", "q", "visits")} for others, s in runs.items()}
    np.testing.assert_array_equal(first["likeliest"]["obs"], first["sample"]["obs"])
    np.testing.assert_array_equal(first["likeliest"]["visits"], first["sample"]["visits"])
    assert not np.array_equal(first["likeliest"]["q"], first["sample"]["q"]), "the same worlds, other moves"


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"leaf": "root"}, "leaf is (one of )?head, turn,? (or )?end, not 'root'"),
        ({"others": "best"}, "others is (one of )?sample,? (or )?likeliest, not 'best'"),
    ],
)
def test_a_leaf_or_others_not_known_is_named_with_those_known(settings: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        loop("court", 2, **settings)
    core_class = type(loop("court", 2)._core)
    with pytest.raises(ValueError, match=words):  # the core's own check, below the Python face
        core_class(make("court", 2, core="native")._native, num_games=2, seed=0, **settings)
    with pytest.raises(ValueError, match="leaf is head"):
        core_class(make("court", 2, core="native")._native, num_games=2, seed=0, leaf="head\0x")


def test_a_game_past_the_cap_is_cut_and_its_samples_dropped() -> None:
    net = small_net("court", 2)
    lp = loop("court", 2, num_games=2, max_decisions=10)
    samples = lp.play(net, 30)
    counts = lp.counts()
    assert counts["truncated"] >= 2 and counts["episodes"] == 0 and len(samples["value"]) == 0
    with pytest.raises(ValueError, match="max_decisions is 0"):
        loop("court", 2, max_decisions=-1)


def test_value_only_samples_where_chance_is_due_or_none() -> None:
    net = shipped_agent(make("heckmeck", 2, core="native"))
    with_them = play_until_samples(loop("heckmeck", 2, num_games=2), net)
    rolls = with_them["action"] == -1
    assert rolls.any(), "Heckmeck rolls after every decision to go on"
    game = make("heckmeck", 2, core="native")
    for row in with_them["obs"][rolls][:5]:
        assert row.shape == (game.padded_spec.size,)
    without = play_until_samples(loop("heckmeck", 2, num_games=2, chance_values=False), net)
    assert (without["action"] >= 0).all()


def test_greedy_play_is_the_same_on_every_run() -> None:
    net = small_net("sechs_nimmt", 3)
    a = loop("sechs_nimmt", 3, gumbel=False).play(net, 15)
    b = loop("sechs_nimmt", 3, gumbel=False).play(net, 15)
    for key in SAMPLE_FIELDS:
        np.testing.assert_array_equal(a[key], b[key])
    c = loop("sechs_nimmt", 3, gumbel=True).play(net, 15)
    assert len(c["value"]) == len(a["value"])  # the same games' lengths are not the point: that it plays


STRONGEST = {"heckmeck": "solver", "sechs_nimmt": "search", "diamant": "search", "court": "heuristic"}


@pytest.mark.parametrize("name", list(GAMES))
def test_an_opponent_makes_no_samples_and_its_games_search_one_seat(name: str) -> None:
    seats = game_class(name).info.default_seats
    net = small_net(name, seats, seed=2)
    evaluate = numpy_evaluator(net)
    lp = loop(name, seats, num_games=4, opponent=STRONGEST[name], opponent_games=2)
    assert [lp.searched(i) for i in (2, 3)] == [-1, -1]
    seen: dict[int, set[int]] = {0: set(), 1: set()}
    for _ in range(3000):
        searched = [lp.searched(i) for i in range(4)]
        assert all(0 <= s < seats for s in searched[:2])
        lp.step(evaluate)
        taken = lp.take()
        for i in (0, 1):  # the rows of an opponent's game are the seat searched in the episode that ended
            assert (taken["seat"][taken["game"] == i] == searched[i]).all()
            seen[i] |= set(taken["seat"][taken["game"] == i].tolist())
        if len(seen[0]) > 1 and len(seen[1]) > 1:
            break
    assert lp.counts()["opponent_moves"] > 0
    assert len(seen[0]) > 1 and len(seen[1]) > 1  # the seat searched is drawn anew each episode


def test_opponent_games_are_the_same_on_any_thread_count() -> None:
    net = small_net("diamant", 4, seed=4)
    a = loop("diamant", 4, opponent="search", opponent_games=3, num_threads=1)
    b = loop("diamant", 4, opponent="search", opponent_games=3, num_threads=2)
    one, two = a.play(net, 10), b.play(net, 10)
    for key in SAMPLE_FIELDS:
        np.testing.assert_array_equal(one[key], two[key], err_msg=key)
    assert a.counts() == b.counts() and a.counts()["opponent_moves"] > 0


def test_an_opponent_the_game_has_not_is_named_with_those_it_has() -> None:
    with pytest.raises(ConfigError, match=r"no native bot named 'oracle'.*there are: heuristic, solver"):
        loop("heckmeck", 2, opponent="oracle", opponent_games=1)
    with pytest.raises(ConfigError, match="opponent_games needs an opponent"):
        loop("heckmeck", 2, opponent_games=1)
    with pytest.raises(ConfigError, match="opponent_games is 0 to 6, not 7"):
        loop("heckmeck", 2, opponent="solver", opponent_games=7)
    core_class = type(loop("heckmeck", 2)._core)
    native = make("heckmeck", 2, core="native")._native
    with pytest.raises(ValueError, match=r"no native bot named 'oracle' to be the opponent; there are: heur"):
        core_class(native, num_games=2, seed=0, opponent="oracle", opponent_games=1)
    with pytest.raises(ValueError, match=r"opponent_games is 0\.\.2"):
        core_class(native, num_games=2, seed=0, opponent="solver", opponent_games=3)
    with pytest.raises(ValueError, match="opponent_games needs an opponent"):
        core_class(native, num_games=2, seed=0, opponent_games=1)
