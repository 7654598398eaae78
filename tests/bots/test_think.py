"""The Gumbel root (:func:`tablezoo.bots.search.think`, ``agent:search=N`` and ``agent:think=SECONDS``).

Known answers first: positions whose best move is known exactly, scored by exhaustive expectimax
over the engine's own chance odds: where only the searching seat decides until the value is
settled (the rest of a Heckmeck turn; a last Diamant cave with one explorer left; the King's
claimer's turn, the last of To Court the King's final round), and the last two
cards of a 6 nimmt! round, where the other seat's hidden hand is every pair it may hold and its
choices are random. Given that
exact value as its leaf, the search must choose a best move once it has enough simulations,
on either core's states. Then what the root promises: one simulation is the network's own
move, a time budget stops it, and it reads nothing its seat cannot see.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from typing import Any

import numpy as np
import pytest

import tablezoo.bots.search as search_module
from tablezoo.bots.core import Seat
from tablezoo.bots.native import NativeAgentBot
from tablezoo.bots.net import PolicyValueNet, win_share
from tablezoo.bots.registry import make_bot, shipped_agent
from tablezoo.bots.search import CONFIDENCE, SPREADS, THINK_SIMULATIONS, AgentBot, NetworkEvaluator, think
from tablezoo.games import make
from tablezoo.games.core import CHANCE, TERMINAL, ConfigError, Game
from tablezoo.games.heckmeck import ROLL, worms


@pytest.fixture(scope="module")
def on_each_core() -> str:
    """This module chooses each test's cores itself (``core``), once each."""
    return "chosen by each test"


class TooLargeError(Exception):
    """A position whose tree is larger than its :class:`Expectimax`'s budget."""


class Expectimax:
    """The exact value of a position for ``seat`` while only ``seat`` decides: chance by the
    engine's odds, the seat's best move, ``settled(x)`` where the value is known (a value in
    0..1); an evaluator of :func:`~tablezoo.bots.search.think` (uniform priors)."""

    def __init__(
        self, game: Game[Any], seat: int, settled: Any, others_uniform: bool = False, budget: int = 0
    ) -> None:
        self.game, self.seat, self.settled = game, seat, settled
        self.others_uniform = others_uniform  # the other seats choose among their moves at random
        self.budget = budget  # positions solved at most (0: no limit), else TooLargeError
        self.known: dict[tuple[int, bytes], float] = {}

    def of(self, x: Any) -> float:
        """The value of ``x`` (each position, by what the seat sees and who moves, solved once; where
        others decide, by the whole state, hidden cards and all)."""
        key = (
            self.game.to_move(x),
            self.game.to_json(x) if self.others_uniform else self.game.observe(x, self.seat).tobytes(),
        )
        if key not in self.known:
            if self.budget and len(self.known) >= self.budget:
                raise TooLargeError
            self.known[key] = self._value(x)
        return self.known[key]

    def _value(self, x: Any) -> float:
        game = self.game
        done = self.settled(x)
        if done is not None:
            return float(done)
        mover = game.to_move(x)
        if mover == CHANCE:
            total = 0.0
            for outcome, p in game.chance_outcomes(x):
                y = game.clone(x)
                game.apply_chance(y, outcome)
                total += p * self.of(y)
            return total
        values = [self.action_value(x, a) for a in game.legal_actions(x)]
        if mover != self.seat:
            assert self.others_uniform, "only the searching seat decides here"
            return sum(values) / len(values)
        return max(values)

    def action_value(self, x: Any, action: int) -> float:
        y = self.game.clone(x)
        self.game.apply(y, action)
        return self.of(y)

    def evaluate_batch(self, game: Game[Any], requests: Any) -> list[tuple[np.ndarray, float]]:
        return [(np.zeros(game.num_actions), self.of(x)) for x, _, _ in requests]


def positions(game: Game[Any], wanted: Any, games: int, seed: int, played_by: str = "") -> list[Any]:
    """Decisions with more than one legal move where ``wanted(state, seat)``, from seeded games of
    random moves (or of the bot ``played_by`` at every seat)."""
    rng = np.random.default_rng(seed)
    bot = make_bot(played_by, game) if played_by else None
    found = []
    for _ in range(games):
        x = game.initial_state()
        while (mover := game.advance(x, rng)) != TERMINAL:
            legal = game.legal_actions(x)
            if len(legal) > 1 and wanted(x, mover):
                found.append(game.clone(x))
            game.apply(x, bot.act(Seat.of(game, x, mover)) if bot else legal[int(rng.integers(len(legal)))])
    return found


def heckmeck_turn(game: Game[Any], root: Any, seat: int) -> Expectimax:
    """The rest of ``seat``'s Heckmeck turn from ``root``: the worms it wins or loses by the turn's
    end (scaled from -4..4 into 0..1), as the exact turn solver values it."""
    before = sum(worms(t) for t in root.stacks[seat])

    def settled(x: Any) -> float | None:
        if game.to_move(x) in (seat, CHANCE) and x.turn == seat:
            return None
        return (sum(worms(t) for t in x.stacks[seat]) - before + 4) / 8

    return Expectimax(game, seat, settled)


def diamant_last_cave(game: Game[Any], seat: int) -> Expectimax:
    """A last Diamant cave with ``seat`` the one explorer left: its win share at the end."""
    return Expectimax(game, seat, lambda x: win_share(game, x, seat) if game.to_move(x) == TERMINAL else None)


def court_last_turn(game: Game[Any], seat: int) -> Expectimax:
    """The King's claimer's turn, the last of the final round of To Court the King: whether it
    equals or beats the best result (its win share at the end)."""
    ended = lambda x: win_share(game, x, seat) if game.to_move(x) == TERMINAL else None  # noqa: E731
    return Expectimax(game, seat, ended, budget=3_000)


def claimer_last(game: Game[Any]) -> Any:
    # three active dice at most: the rest of the turn is short enough to solve exactly in a test
    return lambda x, seat: x.final and seat == x.claimer and sum(x.active) <= 3


def alone_in_last_cave(game: Game[Any]) -> Any:
    # three hazard types seen: the rest of the cave is short enough to solve exactly in a test
    return lambda x, seat: (
        x.cave == 5 and sum(x.inside) == 1 and sum(x.seen) >= 3 and x.hauls[seat] + x.pool > 0
    )


def sechs_nimmt_round(game: Game[Any], root: Any, seat: int) -> Expectimax:
    """The rest of a 6 nimmt! round from ``root``, the other seat choosing its cards and rows at
    random: the bullheads the other seat takes in it less those ``seat`` takes (scaled into 0..1)."""
    before = list(root.round_heads)

    def settled(x: Any) -> float | None:
        if x.round == root.round and game.to_move(x) != TERMINAL:
            return None
        heads = [t - b for t, b in zip(x.history[root.round - 1], before, strict=True)]
        return 0.5 + (heads[1 - seat] - heads[seat]) / 160

    return Expectimax(game, seat, settled, others_uniform=True)


def last_two_cards(game: Game[Any]) -> Any:
    return lambda x, seat: x.phase == "choose" and len(x.hands[seat]) == 2


def exact_over_hidden_hands(
    game: Game[Any], x: Any, seat: int, oracle: Expectimax, sample: int = 0
) -> dict[int, float]:
    """Each move's exact value to ``seat``, averaged over every hand the other seat may hold (each
    pair of the cards ``seat`` has not seen, as ``determinize`` draws them) and its card chosen
    from it at random, where it chose already; with ``sample``, over that many of the hands only
    (every k-th), a quick look."""
    other = 1 - seat
    record = json.loads(game.to_json(x))
    seen = {*x.hands[seat], *(c for row in x.rows for c in row), *(c for pile in x.piles for c in pile)}
    unseen = [c for c in range(1, game.deck + 1) if c not in seen]
    totals = dict.fromkeys(game.legal_actions(x), 0.0)
    worlds = 0
    hands = list(itertools.combinations(unseen, len(x.hands[other])))
    for pair in hands[:: max(1, len(hands) // sample)] if sample else hands:
        for chosen in pair if x.chosen[other] else (0,):
            record["state"]["hands"][other], record["state"]["chosen"][other] = list(pair), chosen
            y = game.from_json(json.dumps(record))
            for a in totals:
                totals[a] += oracle.action_value(y, a)
            worlds += 1
    return {a: v / worlds for a, v in totals.items()}


@pytest.mark.parametrize("core", ["python", "native"])
def test_think_finds_the_best_card_of_a_six_nimmt_round_solved_exactly(core: str) -> None:
    """The last two cards of a 6 nimmt! round at 2 seats, the other seat's hand hidden and its choices
    random: the exact value of each card averages every hand it may hold. Given the exact value of
    the rest of the round in each drawn world as its leaf, the root chooses the better card and
    its means come within 0.08 of the exact values."""
    game = make("sechs_nimmt", 2, core=core)
    found = positions(game, last_two_cards(game), games=40, seed=5)
    rng = np.random.default_rng(1)
    checked = 0
    for x in found:
        seat = game.to_move(x)
        oracle = sechs_nimmt_round(game, x, seat)
        glance = exact_over_hidden_hands(game, x, seat, oracle, sample=60)
        if abs(max(glance.values()) - min(glance.values())) < 0.03:
            continue  # both cards alike, to the precision 400 simulations give
        values = exact_over_hidden_hands(game, x, seat, oracle)
        root = think(Seat.of(game, x, seat), oracle, 400, rng, horizon=0, leaf="head")
        assert values[root.move] == max(values.values()), (values, root)
        exact_q = np.array([values[a] for a in root.legal])
        assert np.all(np.abs(root.q - exact_q) < 0.08), (root.q, exact_q)
        checked += 1
        if checked == 3:
            break
    assert checked == 3, f"too few positions with a better card: {checked}"


@pytest.mark.parametrize("core", ["python", "native"])
@pytest.mark.parametrize(
    ("name", "seats", "exact", "wanted", "played_by"),
    [
        ("heckmeck", 2, heckmeck_turn, lambda game: lambda x, seat: x.left <= 4, ""),
        ("diamant", 3, lambda game, root, seat: diamant_last_cave(game, seat), alone_in_last_cave, ""),
        # random players seldom reach the King's seven of a kind: the network plays these games
        ("court", 2, lambda game, root, seat: court_last_turn(game, seat), claimer_last, "agent"),
    ],
)
def test_think_finds_the_best_move_of_positions_solved_exactly(
    core: str, name: str, seats: int, exact: Any, wanted: Any, played_by: str
) -> None:
    """With the exact value as its leaf the Gumbel root chooses a best move at enough simulations,
    and its mean values converge to the exact ones (chance drawn by the engine's odds)."""
    game = make(name, seats, core=core)
    found = positions(game, wanted(game), games=80 if not played_by else 6, seed=3, played_by=played_by)
    rng = np.random.default_rng(0)
    checked = 0
    for x in found:
        seat = game.to_move(x)
        oracle = exact(game, x, seat)
        at = Seat.of(game, x, seat)
        try:
            values = {a: oracle.action_value(x, a) for a in at.legal}
        except TooLargeError:
            continue  # too many dice and abilities to solve in a test
        if max(values.values()) - min(values.values()) < 1e-9:
            continue  # every move as good: nothing to find
        checked += 1
        if checked > 8:
            break
        best = max(values.values())
        exact_q = np.array([values[a] for a in at.legal])
        # as it is, with the last phase judging on worlds of its own, with the paired spread, with
        # chance drawn by the turn
        for settings in ({}, {"fresh": 0.5}, {"spread": "paired"}, {"chance": "turn"}):
            root = think(at, oracle, 400, rng, horizon=0, leaf="head", **settings)
            assert values[root.move] >= best - 1e-9, (settings, values, root)
            tried = root.visits > 0
            assert np.all(np.abs(root.q[tried] - exact_q[tried]) < 0.08), (settings, root.q, exact_q)
    assert checked >= 4, f"too few test positions where the move matters: {checked}"


def test_the_native_root_is_the_reference_root() -> None:
    """The core's Gumbel root (``NativeAgentBot.think``) weighs the moves as the Python one does: the
    same considered moves and budget split, the network's logits, a chosen move among the best
    scored; the known-answer test of the core's root with the exact Heckmeck turn solver is in
    ``native/tests/test_core.cc``."""
    game = make("heckmeck", 2, core="native")
    net = shipped_agent(game)
    found = positions(game, lambda x, seat: True, games=4, seed=5)[:10]
    for x in found:
        at = Seat.of(game, x, game.to_move(x))
        native = NativeAgentBot(game, net, 32, seed=1).think(at)
        python = think(at, net, 32, np.random.default_rng(1))
        assert native.legal == python.legal
        np.testing.assert_allclose(native.logits, python.logits, atol=1e-4)
        assert np.array_equal(native.visits > 0, python.visits > 0)
        assert native.simulations == python.simulations
        assert native.score[native.choice] == native.score.max()


def test_the_native_root_judges_on_fresh_worlds_as_the_reference_root() -> None:
    """With ``fresh`` both cores split the budget alike: the last phase's share, the moves weighed in
    each phase, and the two moves judged on the last phase's worlds alone."""
    game = make("court", 2, core="native")
    net = shipped_agent(game)
    found = positions(game, lambda x, seat: len(game.legal_actions(x)) > 2, games=3, seed=6)[:8]
    for x in found:
        at = Seat.of(game, x, game.to_move(x))
        native = NativeAgentBot(game, net, 64, seed=2, fresh=0.4).think(at)
        python = think(at, net, 64, np.random.default_rng(2), fresh=0.4)
        assert native.simulations == python.simulations == 64
        assert sorted(native.visits) == sorted(python.visits)
        for root in (native, python):  # the two judged last, on the last phase's worlds alone
            first, second = np.sort(root.visits)[::-1][:2]
            assert first == second >= round(0.4 * 64) // 2 and root.visits[root.choice] == first


class CoinFlips:
    """An evaluator whose every value is a fair coin's flip, whatever the move: no move is better, and
    a search that finds one is fooled by its own luck. Uniform priors."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def evaluate_batch(self, game: Game[Any], requests: Any) -> list[tuple[np.ndarray, float]]:
        return [(np.zeros(game.num_actions), float(self.rng.integers(2))) for _ in requests]


def test_fresh_worlds_value_the_judged_moves_without_the_winners_curse() -> None:
    """Where every move is worth 0.5, the halving keeps the luckiest moves, and their mean values
    over every world they had are above 0.5 (the winner's curse); judged on the last phase's worlds
    alone (``fresh``), the two moves left are valued at 0.5, up to the noise of those worlds."""
    game = make("heckmeck", 2, core="python")
    found = positions(game, lambda x, seat: len(game.legal_actions(x)) >= 4, games=30, seed=2)[:120]
    assert len(found) == 120
    means = {}
    for fresh in (0.0, 0.5):
        rng, coins = np.random.default_rng(3), CoinFlips(4)
        judged = []
        for x in found:
            root = think(
                Seat.of(game, x, game.to_move(x)), coins, 64, rng, horizon=0, leaf="head", fresh=fresh
            )
            judged.extend(root.q[np.argsort(-root.visits, kind="stable")[:2]])  # the last phase's two
        means[fresh] = float(np.mean(judged))
    # 240 moves judged on at least 16 worlds each: a standard error of about 0.008
    assert abs(means[0.5] - 0.5) < 0.025, means
    assert means[0.0] > 0.53, means


def implied_spread(root: Any) -> float:
    """The spread a root's scores were reckoned with: ``confidence · q · sqrt(visits) / spread`` is a
    score less its logit (no Gumbel noise, no bias)."""
    tried = (root.visits > 0) & np.isfinite(root.score) & (root.q > 0)
    i = int(np.flatnonzero(tried)[0])
    return float(CONFIDENCE * root.q[i] * np.sqrt(root.visits[i]) / (root.score[i] - root.logits[i]))


@pytest.mark.parametrize("spread", SPREADS)
def test_the_spread_is_that_of_the_values_the_search_ran(monkeypatch: Any, spread: str) -> None:
    """As every world's values (recorded here as the search runs them) give it: ``spread=paired``,
    the standard deviation of each simulated value about the mean of its world's values, ``m - 1``
    degrees of freedom a world of ``m`` moves; ``pooled``, of each value about its move's mean,
    ``n - 1`` degrees of freedom a move of ``n`` worlds (unbiased however few: a move of one world
    adds none, where the mean of each move's own variance took it for certain)."""

    game = make("heckmeck", 2, core="python")
    net = shipped_agent(game)
    calls: list[tuple[int, float]] = []
    lookahead, drive = search_module._lookahead, search_module._drive

    def recorded_lookahead(game: Any, seat: int, x: Any, move: int, *rest: Any) -> Any:
        calls.append((move, float("nan")))
        return lookahead(game, seat, x, move, *rest)

    def recorded_drive(*args: Any) -> float:
        v = drive(*args)
        calls[-1] = (calls[-1][0], v)
        return v

    monkeypatch.setattr(search_module, "_lookahead", recorded_lookahead)
    monkeypatch.setattr(search_module, "_drive", recorded_drive)
    checked = 0
    for x in positions(game, lambda x, seat: len(game.legal_actions(x)) >= 3, games=3, seed=9)[:6]:
        calls.clear()
        root = think(Seat.of(game, x, game.to_move(x)), net, 48, np.random.default_rng(5), spread=spread)
        worlds: list[list[float]] = [[]]
        seen: set[int] = set()
        by_move: dict[int, list[float]] = {}
        for move, v in calls:  # a world runs each move still weighed once, in the same order
            if move in seen:
                worlds.append([])
                seen.clear()
            seen.add(move)
            worlds[-1].append(v)
            by_move.setdefault(move, []).append(v)
        if spread == "paired":
            within = sum(float(np.sum((np.array(w) - np.mean(w)) ** 2)) for w in worlds)
            degrees = sum(len(w) - 1 for w in worlds)
        else:
            within = sum(float(np.sum((np.array(v) - np.mean(v)) ** 2)) for v in by_move.values())
            degrees = sum(len(v) - 1 for v in by_move.values())
        assert degrees > 0
        expected = max(np.sqrt(within / degrees), 0.05)
        if np.any((root.visits > 0) & (root.q > 0) & np.isfinite(root.score)):
            assert implied_spread(root) == pytest.approx(expected, rel=1e-6)
            checked += 1
    assert checked >= 4


def test_both_cores_reckon_a_narrower_spread_from_paired_worlds() -> None:
    """Two moves simulated on the same worlds share what the world does to both (a lead, the dice of
    the other seat), so in Heckmeck the paired spread is below the pooled one, in either core."""
    game = make("heckmeck", 2, core="native")
    net = shipped_agent(game)
    found = positions(game, lambda x, seat: len(game.legal_actions(x)) >= 2, games=3, seed=10)[:10]
    ratios: dict[str, list[float]] = {"python": [], "native": []}
    for j, x in enumerate(found):
        at = Seat.of(game, x, game.to_move(x))
        for core in ratios:
            spreads = []
            for spread in SPREADS:
                if core == "native":
                    root = NativeAgentBot(game, net, 64, seed=j, leaf="end", spread=spread).think(at)
                else:
                    root = think(at, net, 64, np.random.default_rng(j), leaf="end", spread=spread)
                spreads.append(implied_spread(root))
            ratios[core].append(spreads[1] / spreads[0])
    for core, found_ratios in ratios.items():
        assert np.median(found_ratios) < 0.95, (core, found_ratios)


@pytest.mark.parametrize("core", ["python", "native"])
def test_chance_by_the_turn_rolls_the_same_dice_in_the_same_turn(core: str) -> None:
    """``chance=turn``: whatever the searching seat does in its turn (take a tile now, or roll on and
    bust or claim), the next seat's turn opens on the same roll in every move's simulation of a
    world; drawn from the world's one stream (``world``), it does not."""
    game = make("heckmeck", 2, core=core)
    found = positions(game, lambda x, seat: ROLL in game.legal_actions(x) and x.left >= 3, games=8, seed=4)

    def next_turns_roll(x: Any, move: int, stream: int, chance: str) -> tuple[int, ...]:
        rolls: list[tuple[int, ...]] = []
        spy = Spy(game, rolls)
        walk = search_module._lookahead(
            spy, x.turn, game.clone(x), move, 2, np.random.default_rng(stream), "end", "likeliest", chance
        )
        next(walk)  # every request answered alike: uniform logits, an even value
        with contextlib.suppress(StopIteration):
            while not any(turn != x.turn for turn, _ in rolls):  # until the next seat's first roll
                walk.send((np.zeros(game.num_actions), 0.5))
        return next(roll for turn, roll in rolls if turn != x.turn)

    same = {"world": 0, "turn": 0}
    for i, x in enumerate(found[:12]):
        for chance in same:
            opening = {next_turns_roll(x, move, 1000 + i, chance) for move in game.legal_actions(x)}
            same[chance] += len(opening) == 1
    assert same["turn"] == min(12, len(found)) >= 8
    assert same["world"] < same["turn"]


class Spy:
    """``game`` recording each roll with the seat whose turn rolls it (every other call passed on)."""

    def __init__(self, game: Game[Any], rolls: list[tuple[int, tuple[int, ...]]]) -> None:
        self.game, self.rolls = game, rolls

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def step_chance(self, x: Any, rng: np.random.Generator) -> Any:
        turn = x.turn
        outcome = self.game.step_chance(x, rng)
        self.rolls.append((turn, tuple(np.asarray(outcome).ravel().tolist())))
        return outcome

    def advance(self, x: Any, rng: np.random.Generator) -> int:
        while self.game.to_move(x) == CHANCE:
            self.step_chance(x, rng)
        return self.game.to_move(x)


def test_both_cores_compare_moves_more_sharply_with_chance_by_the_turn() -> None:
    """The dice of the turns after the seat's own drawn alike for every move (``chance=turn``): what
    the next turns do to every move alike cancels from their comparison, so in Heckmeck played out
    the paired spread is narrower than with the world's one stream, in either core."""
    game = make("heckmeck", 2, core="native")
    net = shipped_agent(game)
    found = positions(game, lambda x, seat: len(game.legal_actions(x)) >= 2, games=3, seed=12)[:10]
    ratios: dict[str, list[float]] = {"python": [], "native": []}
    for j, x in enumerate(found):
        at = Seat.of(game, x, game.to_move(x))
        for core in ratios:
            spreads = []
            for chance in ("world", "turn"):
                settings = {"leaf": "end", "spread": "paired", "others": "likeliest", "chance": chance}
                if core == "native":
                    root = NativeAgentBot(game, net, 64, seed=j, **settings).think(at)  # type: ignore[arg-type]
                else:
                    root = think(at, net, 64, np.random.default_rng(j), **settings)  # type: ignore[arg-type]
                spreads.append(implied_spread(root))
            ratios[core].append(spreads[1] / spreads[0])
    for core, found_ratios in ratios.items():
        assert np.median(found_ratios) < 0.95, (core, found_ratios)


def test_the_python_bot_thinks_as_it_plays() -> None:
    """``AgentBot.think`` is the root its ``act`` plays, with the bot's settings, as the native bot's
    ``think`` is; a bot that does not search with the Gumbel root has none to give."""
    game = make("court", 2, core="python")
    net = shipped_agent(game)
    for x in positions(game, lambda x, seat: len(game.legal_actions(x)) > 1, games=2, seed=3)[:6]:
        at = Seat.of(game, x, game.to_move(x))
        root = AgentBot(net, 8, seed=4, leaf="head", others="likeliest", confidence=1.0).think(at)
        reference = think(
            at, net, 8, np.random.default_rng(4), leaf="head", others="likeliest", confidence=1.0
        )
        assert root.legal == reference.legal and root.choice == reference.choice
        np.testing.assert_array_equal(root.q, reference.q)
        assert root.move == AgentBot(net, 8, seed=4, leaf="head", others="likeliest", confidence=1.0).act(at)
    for bot in (AgentBot(net), AgentBot(net, 8, root="puct")):
        with pytest.raises(ValueError, match="thinks with the gumbel root only where it searches"):
            bot.think(at)


@pytest.mark.parametrize("core", ["python", "native"])
@pytest.mark.parametrize("name", ["heckmeck", "court", "diamant", "sechs_nimmt"])
def test_one_simulation_plays_the_networks_move(core: str, name: str) -> None:
    """``search=1`` weighs one move, the network's likeliest: the agent alone, whatever the core."""
    game = make(name, 3, core=core)
    net = shipped_agent(game)
    bot = make_bot("agent:search=1", game)
    bot.reset(seed=2)
    for x in positions(game, lambda x, seat: True, games=2, seed=1)[:20]:
        at = Seat.of(game, x, game.to_move(x))
        assert bot.act(at) == net.act(net.reads(game, at.observation), at.mask)


@pytest.mark.parametrize("core", ["python", "native"])
def test_a_time_budget_stops_the_search_after_the_first_world(core: str) -> None:
    """``think=SECONDS``: a budget that has run out before a second world stops the root after its
    first (every considered move simulated once); the choice is still a considered move."""
    game = make("court", 2, core=core)
    net = shipped_agent(game)
    x = positions(game, lambda x, seat: len(game.legal_actions(x)) >= 4, games=3, seed=2)[0]
    at = Seat.of(game, x, game.to_move(x))
    if core == "native":
        root = NativeAgentBot(game, net, think=1e-9, seed=0).think(at)
    else:
        root = think(at, net, 10_000, np.random.default_rng(0), seconds=1e-9)
    considered = int((root.visits > 0).sum())
    assert root.simulations == considered == min(16, len(at.legal))
    assert root.visits[root.choice] == 1


def timed_and_whole(game: Game[Any], net: Any, at: Seat, budget: int, seed: int) -> tuple[Any, Any]:
    """The root of a search timed at a minute (which never runs out here) and of the same search
    untimed, both of ``budget`` simulations at most, on the same random stream."""
    if game.core == "native":
        return (
            NativeAgentBot(game, net, budget, think=60.0, seed=seed).think(at),
            NativeAgentBot(game, net, budget, seed=seed).think(at),
        )
    return (
        think(at, net, budget, np.random.default_rng(seed), seconds=60.0),
        think(at, net, budget, np.random.default_rng(seed)),
    )


@pytest.mark.parametrize("core", ["python", "native"])
def test_a_timed_search_stops_once_its_choice_is_settled(core: str) -> None:
    """``think=SECONDS`` stops before its budget where the leading move would lead whatever the
    simulations left bring, unless the evidence is off by ``SETTLED`` standard errors
    (``Root.settled``): Diamant's network is sure of most of its moves, and its timed search
    stops early at most decisions, playing the move the whole budget plays. A search of ``N``
    simulations (untimed) always runs them all."""
    game = make("diamant", 3, core=core)
    net = shipped_agent(game)
    stopped = 0
    for j, x in enumerate(positions(game, lambda x, seat: True, games=3, seed=4)[:8]):
        at = Seat.of(game, x, game.to_move(x))
        timed, whole = timed_and_whole(game, net, at, 64, seed=j)
        assert not whole.settled
        assert timed.move == whole.move
        if timed.settled:
            stopped += 1
            assert timed.simulations < whole.simulations
        else:
            assert timed.simulations == whole.simulations
    assert stopped >= 6


@pytest.mark.parametrize("core", ["python", "native"])
def test_a_choice_the_evidence_does_not_separate_is_never_settled(core: str) -> None:
    """A network that knows nothing (every weight 0: uniform logits, a win share of one half
    everywhere) gives no move a lead: the timed search runs its whole budget, each phase of its
    halving the worlds the untimed search gives it."""
    game = make("court", 2, core=core)
    shipped = shipped_agent(game)
    blank = PolicyValueNet(
        [np.zeros_like(w) for w in shipped.weights],
        [np.zeros_like(b) for b in shipped.biases],
        np.zeros_like(shipped.value_w),
        0.0,
        shipped.scale,
        shipped.meta,
    )
    found = positions(game, lambda x, seat: len(game.legal_actions(x)) >= 3, games=2, seed=6)
    for j, x in enumerate(found[:3]):
        at = Seat.of(game, x, game.to_move(x))
        timed, whole = timed_and_whole(game, blank, at, 48, seed=j)
        assert not timed.settled
        assert timed.simulations == whole.simulations >= 48
        np.testing.assert_array_equal(timed.visits, whole.visits)  # a budget kept is halved as planned


@pytest.mark.parametrize("core", ["python", "native"])
def test_bias_bounds_what_the_evidence_weighs(core: str) -> None:
    """``bias=B``: a move's simulated win share ``q`` weighs ``confidence · q / sqrt(spread² /
    visits + B²)`` logits, less than ``confidence · q / B`` however many simulations it had, where
    without it the weight grows with their square root. So with ``bias=1`` the evidence moves a
    score by at most a quarter of a logit (at the default confidence), and the search plays the
    network's move wherever it leads the next by more than that."""
    game = make("heckmeck", 2, core=core)
    net = shipped_agent(game)
    found = positions(game, lambda x, seat: len(game.legal_actions(x)) >= 2, games=4, seed=8)[:12]
    unbounded = bounded = 0
    for j, x in enumerate(found):
        at = Seat.of(game, x, game.to_move(x))
        roots = {}
        for bias in (0.0, 0.1, 1.0):
            if core == "native":
                roots[bias] = NativeAgentBot(game, net, 256, bias=bias, seed=j).think(at)
            else:
                roots[bias] = think(at, net, 256, np.random.default_rng(j), bias=bias)
        for bias, root in roots.items():
            tried = (root.visits > 0) & np.isfinite(root.score)  # weighed to the end
            evidence = (root.score - root.logits)[tried]
            if bias:
                assert np.all(np.abs(evidence) <= CONFIDENCE * root.q[tried] / bias + 1e-9)
                bounded += 1
            else:
                unbounded += int(np.any(np.abs(evidence) > CONFIDENCE * root.q[tried] / 0.1))
        sure = roots[1.0]
        gaps = np.sort(sure.logits)[::-1]
        if gaps[0] - gaps[1] > CONFIDENCE:
            assert sure.choice == int(np.argmax(sure.logits))
    assert bounded == 2 * len(found)
    assert unbounded >= 1  # without a bound, 256 simulations weigh more than bias=0.1 allows


@pytest.mark.parametrize("core", ["python", "native"])
def test_the_root_reads_nothing_its_seat_cannot_see(core: str) -> None:
    """The same seat's decision with the others' hands dealt anew (what it cannot see) gets the same
    Gumbel root from the same seed: logits, visits, values and choice."""
    game = make("sechs_nimmt" if core == "python" else "diamant", 3, core=core)
    net = shipped_agent(game)
    x = positions(game, lambda x, seat: True, games=1, seed=4)[3]
    seat = game.to_move(x)
    other = game.determinize(x, seat, np.random.default_rng(99))
    roots = []
    for state in (x, other):
        at = Seat.of(game, state, seat)
        if core == "native":
            roots.append(NativeAgentBot(game, net, 24, seed=7).think(at))
        else:
            roots.append(think(at, net, 24, np.random.default_rng(7)))
    assert roots[0].choice == roots[1].choice
    np.testing.assert_array_equal(roots[0].visits, roots[1].visits)
    np.testing.assert_allclose(roots[0].q, roots[1].q)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ("leaf=deep", "leaf is one of head, turn, end"),
        ("others=all", "others is one of sample, likeliest"),
        ("root=mcts", "root is one of gumbel, puct"),
        ("think=-1", "think is 0 seconds or more"),
        ("considered=0", "considered 1 or more"),
        ("think=1,root=puct", "the puct root takes search=N"),
        ("bias=2", "bias is a win share, 0 to 1"),
        ("bias=0.1,search=8,root=puct", "bias .a bound on the evidence. is the gumbel root's"),
        ("spread=wide", "spread is one of pooled, paired"),
        ("chance=dice", "chance is one of world, turn"),
        ("own=agent", "own is one of network, random, heuristic, solver, margin .the bots of Heckmeck."),
        ("own=solver,search=8,root=puct", "own .the seat's own moves in a simulation. is the gumbel root's"),
        ("chance=turn,search=8,root=puct", "chance .how a simulation draws chance. is the gumbel root's"),
        ("advice=heuristic", "advice is one of none, solver, margin .the bots of Heckmeck that value"),
        ("advice=solver,search=8,root=puct", "advice .a bot's values added to the root's logits. is the"),
        ("heed=-1", "heed is the logits a unit of the advice's value weighs, 0 or more"),
        ("fresh=1", "fresh is the share of the simulations the last phase runs, 0 to below 1"),
        (
            "fresh=0.5,search=8,root=puct",
            "fresh .the halving's last phase on worlds of its own. is the gumbel",
        ),
    ],
)
def test_bad_settings_are_refused_naming_what_is_allowed(settings: str, message: str) -> None:
    for core in ("python", "native"):
        with pytest.raises(ConfigError, match=message):
            make_bot(f"agent:{settings}", make("heckmeck", 2, core=core))


def test_agent_think_seats_the_core_search_with_a_time_budget() -> None:
    """``agent:think=SECONDS`` is the core's search where it has one, its budget the seconds given;
    the Python search elsewhere, with the same settings."""
    bot = make_bot("agent:think=0.5", make("court", 2, core="native"))
    assert isinstance(bot, NativeAgentBot) and bot.seconds == 0.5
    python = make_bot("agent:think=0.5,leaf=end", make("court", 2, core="python"))
    assert isinstance(python, AgentBot) and not isinstance(python, NativeAgentBot)
    assert (python.seconds, python.leaf, python.simulations) == (0.5, "end", THINK_SIMULATIONS)


@pytest.mark.parametrize("others", ["sample", "likeliest"])
def test_the_others_move_as_the_root_models_them(others: str) -> None:
    """``others=likeliest``: in the root's simulations every other seat plays the network's likeliest
    move on its own observation (as ``agent`` does at a table); ``sample`` draws from its policy, so
    over many simulations some of the others' moves are not their likeliest."""
    game = make("sechs_nimmt", 3, core="python")
    net = shipped_agent(game)
    asked: list[int] = []  # the others' likeliest moves, in the order their answers were given
    played: list[tuple[int, int]] = []

    class Spy(NetworkEvaluator):
        def evaluate_batch(self, game: Game[Any], requests: Any) -> Any:
            answers = super().evaluate_batch(game, requests)
            for (x, _, observation), (logits, _) in zip(requests, answers, strict=True):
                if observation is None:  # one of the others, about to move
                    moves = game.legal_actions(x)
                    asked.append(moves[int(np.argmax(np.asarray(logits)[moves]))])
            return answers

    apply = game.apply

    def spying_apply(x: Any, action: int, check: bool = True) -> None:
        if len(played) < len(asked):
            played.append((asked[len(played)], action))
        apply(x, action, check=check)

    game.apply = spying_apply  # type: ignore[method-assign,assignment]
    x = positions(game, lambda x, seat: len(game.legal_actions(x)) >= 4, games=1, seed=3)[0]
    think(Seat.of(game, x, game.to_move(x)), Spy(net), 64, np.random.default_rng(0), others=others)
    assert len(played) > 50
    differ = sum(likeliest != action for likeliest, action in played)
    assert (differ == 0) if others == "likeliest" else (differ > 0)


def test_both_cores_take_the_others_setting() -> None:
    """``others=`` reaches the core's search too, as a setting of ``agent``."""
    for core in ("python", "native"):
        game = make("court", 2, core=core)
        bot = make_bot("agent:search=8,others=likeliest", game)
        assert isinstance(bot, AgentBot) and bot.others == "likeliest"
        assert isinstance(bot, NativeAgentBot) == (core == "native")
        x = positions(game, lambda x, seat, g=game: len(g.legal_actions(x)) >= 2, games=1, seed=5)[0]
        assert bot.act(Seat.of(game, x, game.to_move(x))) in game.legal_actions(x)


def test_the_own_bot_plays_the_seats_moves_within_its_turn() -> None:
    """``own=BOT``: in the root's simulations the seat's own moves after the root's, up to the leaf,
    are that bot's, on the simulation's state; the network is asked about the seat only at a leaf
    (with ``leaf=turn``, the start of its next turn), and never plays the seat's moves."""
    game = make("heckmeck", 2, core="python")
    net = shipped_agent(game)
    solver = make_bot("solver", game)
    asked: list[tuple[int, int, int]] = []  # (seat to move, whose turn, dice left) at each own move

    class Own:
        name = "spy"

        def reset(self, seed: int | None = None) -> None:
            pass

        def act(self, at: Seat) -> int:
            x = at.public_state()
            asked.append((game.to_move(x), x.turn, x.left))
            return solver.act(at)

    leaves: list[tuple[int, int]] = []  # (dice left, kept faces) where the network valued the seat

    class Leaves(NetworkEvaluator):
        def evaluate_batch(self, game: Game[Any], requests: Any) -> Any:
            for x, asked_seat, observation in requests:
                if observation is not None and asked_seat == seat:
                    leaves.append((x.left, int(sum(x.kept))))
            return super().evaluate_batch(game, requests)

    found = positions(game, lambda x, s: x.left <= 5 and game.to_move(x) == s, games=6, seed=4)
    x = next(y for y in found if ROLL in game.legal_actions(y))
    seat = game.to_move(x)
    at = Seat.of(game, x, seat)
    root = think(at, Leaves(net), 64, np.random.default_rng(1), others="likeliest", own=Own())
    assert root.simulations == 64 and asked, "the seat had moves of its own to play in its turn"
    assert all(mover == turn == seat for mover, turn, _ in asked)
    # the root's own evaluation, then the leaves: each at the start of a turn of the seat (eight
    # dice, none kept), or the game's end
    assert all(left == 8 and kept == 0 for left, kept in leaves[1:]), leaves[:10]


def test_the_core_search_plays_the_seats_own_moves_by_the_bot() -> None:
    """``agent:search=N,own=BOT`` reaches the core's search, whose simulations then play the seat's
    own moves by the core's port of that bot, drawing chance as without it: on the same seed the
    moves' values are the network's own where the bot plays the rest of the turn as the network
    does, and differ where it does not (the greedy heuristic stops and keeps otherwise)."""
    game = make("heckmeck", 2, core="native")
    net = shipped_agent(game)
    bot = make_bot("agent:search=8,others=likeliest,own=solver", game)
    assert isinstance(bot, NativeAgentBot) and bot.own == "solver"
    found = positions(game, lambda x, s: 3 <= x.left <= 6, games=8, seed=9)[:10]
    differ = 0
    for j, x in enumerate(found):
        at = Seat.of(game, x, game.to_move(x))
        roots = {
            own: NativeAgentBot(game, net, 64, seed=j, others="likeliest", own=own).think(at)
            for own in ("network", "heuristic")
        }
        assert roots["network"].simulations == roots["heuristic"].simulations == 64
        assert np.array_equal(roots["network"].visits > 0, roots["heuristic"].visits > 0)
        differ += not np.allclose(roots["network"].q, roots["heuristic"].q)
    assert differ >= len(found) // 2, differ


def test_the_core_searchs_own_bot_is_reseeded_with_the_search() -> None:
    """A randomised own bot (To Court the King's heuristic rolls out its stopping choices) draws from
    a generator of its own, reseeded with the search's: the same seed, the same root, whatever the
    search did before."""
    game = make("court", 2, core="native")
    bot = make_bot("agent:search=32,others=likeliest,confidence=1,own=heuristic", game)
    assert isinstance(bot, NativeAgentBot) and bot.own == "heuristic"
    found = positions(game, lambda x, s: len(game.legal_actions(x)) > 2, games=2, seed=8)[:4]
    for x in found:
        at = Seat.of(game, x, game.to_move(x))
        bot.reset(seed=5)
        first = bot.think(at)
        bot.think(at)  # the generators move on
        bot.reset(seed=5)
        again = bot.think(at)
        np.testing.assert_array_equal(first.q, again.q)
        assert first.choice == again.choice


@pytest.mark.parametrize("core", ["python", "native"])
def test_advice_adds_the_bots_values_to_the_roots_logits(core: str) -> None:
    """``agent:search=N,advice=BOT``: the root's prior is the network's logits plus ``heed`` times the
    bot's value of each move less its best (Heckmeck's solver: worms), in both cores alike. With one
    simulation, or without search, it plays the prior's likeliest move: the solver's where the heed
    is large, the network's where it is 0."""
    game = make("heckmeck", 2, core=core)
    net = shipped_agent(game)
    solver = make_bot("solver", game)
    found = positions(game, lambda x, s: len(game.legal_actions(x)) > 2, games=4, seed=3)[:12]
    assert len(found) == 12
    for j, x in enumerate(found):
        at = Seat.of(game, x, game.to_move(x))
        values = np.asarray(solver.action_values(at))
        alone = np.asarray(net.logits(net.reads(game, at.observation)), np.float64)[at.legal]
        for heed in (0.0, 2.0, 10.0):
            bot = make_bot(f"agent:search=16,others=likeliest,advice=solver,heed={heed}", game)
            assert (core == "native") == isinstance(bot, NativeAgentBot) and bot.advice == "solver"
            bot.reset(j)
            root = bot.think(at)
            expected = alone - alone.max() + heed * (values - values.max())
            np.testing.assert_allclose(root.logits, expected - expected.max(), atol=1e-6)
        for heed in (0.0, 1000.0):
            for spec in (f"agent:advice=solver,heed={heed}", f"agent:search=1,advice=solver,heed={heed}"):
                played = at.legal.index(make_bot(spec, game).act(at))
                if heed:  # the solver's best move (of those it values alike, the network's likeliest)
                    assert values[played] == values.max(), (spec, j)
                else:
                    assert played == int(np.argmax(alone)), (spec, j)
