"""Expert iteration: a policy-and-value network trained from its own search, one per game.

    tablezoo expert heckmeck --out runs --hours 1.5          # new run, or resumes runs/expert-heckmeck
    tablezoo expert court --teacher heuristic --rounds 9 --games 200 --simulations 32
    tablezoo expert court --teacher-rounds 6 --league-rounds 20 --rounds 26       # imitation, then PPO
    tablezoo expert court --init runs/expert-court/net-25.npz --teacher-rounds 0 --league-rounds 40 \
        --rounds 40 --league-learning-rate-end 5e-5 --out runs/court-more         # more PPO from round 25
    tablezoo expert court --resume runs/expert-court --rounds 30                  # go on, saved settings

The loop (AlphaZero-style self-play, adapted to chance and hidden cards by the
search of :mod:`tablezoo.bots.search`):

1. **Imitation** (the first ``teacher_rounds`` rounds): the game's ``teacher``
   bot plays ``teacher_games`` games, seat counts taken in turn from all the
   game allows, each seat played by the teacher or, one time in four
   (``random_seats``), by ``random`` (so that the outcomes vary even where identical teachers would
   always tie); the network learns the teacher's moves and, from the mover's
   and one other seat's observation at every decision, the win share that seat
   ended with. From the second imitation round on, the network itself plays
   half of the teacher's seats (``dagger_share``) and the teacher only says what it would have
   played (DAgger): the network learns to recover from the positions its own
   mistakes lead to, which the teacher never reaches. ``teacher_at`` gives
   a table size a teacher of its own (``--teacher-at 2=search``: a search that
   is strong but slow where it is strongest, the quick heuristic elsewhere).
   With ``soft_targets`` ``T`` above 0, a teacher that values its moves
   (``action_values``: Heckmeck's solver in expected worms, 6 nimmt!'s search
   in heads, Diamant's search in win credit) teaches every legal move with
   weight ``exp((value - best) / T)`` and plays the move it values most: a near
   tie costs the network little, a move that throws worms away much.
2. **League rounds** (the next ``league_rounds``, none by default): the
   network plays against a league of bots and of itself, its moves sampled,
   and improves by policy gradient (PPO) on the win shares of those games
   (:mod:`tablezoo.training.league`). Imitation learns the teacher's level;
   this is how the network goes past it. The step size may fall along a half
   cosine over the league rounds (``league_learning_rate_end``): late rounds,
   whose gains are small beside the noise of dice-decided outcomes, then
   settle rather than wander.
3. **Expert iteration** (the rounds after): every seat is played by the
   search (``simulations`` per move, Dirichlet noise at the root: ``root_noise``,
   ``dirichlet_alpha``), guided by the
   current network. The network then learns the search's visit distribution
   (policy) and the final win shares (value), from a buffer of the latest
   samples. Search improves on the network; the network learns the improvement;
   the next search starts from a better network. With ``selfplay`` ``gumbel``
   these rounds play all their games at once in the native core instead
   (:mod:`tablezoo.training.search_selfplay`): a Gumbel root with sequential
   halving at every decision, the improved policy of its completed Q-values as
   the policy target, and value-only samples where chance is due. With
   ``gumbel_opponent`` a native bot sits at every seat but one of a share of
   those games (``gumbel_opponent_share``): the seat left is searched and learns
   against the bot, the rest of the games stay pure self-play.

Every round logs, beside its losses, how well the win-share head foretold the outcomes of the
round's new games before learning from them (:func:`calibration`), and the network alone
against ``eval_bot``.

Self-play runs in ``workers`` processes (numpy only; every game has its own seed and the
games come back in order, so a run is the same on any number of them); the network is trained
with torch in the main process (Adam, ``epochs`` passes over the buffer a round,
the step size falling along a half cosine to ``last_step_size`` of ``learning_rate``) and
copied into the numpy :class:`~tablezoo.bots.net.PolicyValueNet` that the search
and the tables use.
Why an own loop rather than SB3 or RLlib: the targets are the search's visit
counts and the game's outcome, not a reward stream an RL library optimises,
and the search needs the engine's ``determinize`` and chance nodes, which an
environment hides.

A run starts from a fresh network, or from a saved one (``init``: a run's
``net-<k>.npz``, so that a finished run can go on with other settings in a
new folder; imitation may then be left out, ``teacher_rounds`` 0).

A run lives in ``<out>/expert-<game>/``: ``net.npz`` (the latest network),
``net-<k>.npz`` per iteration, ``buffer.npz`` (the samples of imitation and search
self-play, none in a run of league rounds alone; ``played-<k>.npz``
holds a round's games until the network has learnt from them), ``log.jsonl``
(one line per iteration: games, samples, losses, seconds, win share against
the heuristic) and ``config.json``. Run the same command again to resume after the
last finished iteration (or ``--resume`` the folder: its saved settings, with more
``--rounds``); ``--hours`` stops cleanly before the time is up.

Every setting of the method, the constants of the search's noise, of DAgger and
of PPO included, is a field of :class:`ExpertConfig`, saved in ``config.json``;
``tablezoo expert``'s flags and their help are made from those fields
(:mod:`tablezoo.training.settings`). Runs saved before ``rounds`` counted the
rounds (``iterations``, the last round's index) are read as they were meant
(:meth:`ExpertConfig.saved`). The games are played, pooled and fitted by
:mod:`tablezoo.training.selfplay`, as the league's and the tournaments' are.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable
from dataclasses import InitVar, asdict, dataclass, fields
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.native import NativeAgentBot, has_native_search
from tablezoo.bots.net import PolicyValueNet, win_share
from tablezoo.bots.registry import make_bot
from tablezoo.bots.search import AgentBot, search
from tablezoo.evaluation.play import play_in_order, play_out
from tablezoo.evaluation.tournament import one_against_all
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError, Game
from tablezoo.training.selfplay import (
    Decisions,
    cached_net,
    column,
    forget_nets,
    minibatch_fit,
    seat_bots,
    seat_counts,
)
from tablezoo.training.settings import add_arguments, check_ranges, given, setting

TEACHERS = {"heckmeck": "solver", "sechs_nimmt": "search", "diamant": "search", "court": "heuristic"}
"""The bot each game imitates first: its strongest bot (6 nimmt!'s ``search`` is slow at big tables:
``--teacher heuristic`` trains in minutes)."""

IMITATION = "imitation"
"""A round of the teacher's games, imitated."""
LEAGUE = "league"
"""A round of league games."""
SEARCH = "search"
"""A round of search self-play."""


@dataclass
class ExpertConfig:
    """Every setting of one expert-iteration run: imitation, league rounds, search and the fit.

    Flat rather than one dataclass per stage: each field is one ``tablezoo expert`` flag and
    one key of the run's ``config.json`` under the same name, so that the command line, the saved
    run and the command a model card prints read one another without a mapping between them.
    ``check`` (not a setting): refuse what is out of range or missing (False: only fill in the
    settings that follow from others, to show what a planned run would use)."""

    game: str = setting(positional=True, choices=tuple(GAMES))
    """The game (the agent plays every seat count)."""
    out: str = setting("runs")
    """Parent folder of the run folder expert-GAME."""

    # imitation
    teacher: str = setting("", default_text="the game's strongest quick bot")
    """Bot imitated first."""
    teacher_at: list[str] = setting(
        factory=list, metavar="SEATS=BOT", default_text="--teacher at every table"
    )
    """Another teacher at tables of SEATS seats, e.g. 2=search."""
    teacher_games: int = setting(1500, at_least=1)
    """Games the teacher plays a round."""
    teacher_rounds: int = setting(1)
    """Imitation rounds (0 only with --init); after the first the network plays some of the teacher's
    seats."""
    random_seats: float = setting(0.25, at_least=0, at_most=1)
    """In imitation games, the share of seats played by random instead of the teacher (so that the
    outcomes vary even where identical teachers would always tie)."""
    dagger_share: float = setting(0.5, at_least=0, at_most=1)
    """From the second imitation round on (from the first with --init), the share of the teacher's
    seats the network plays while the teacher says what it would have played (DAgger)."""
    soft_targets: float = setting(0.0, metavar="T")
    """Teach every legal move, weighed exp((value - best) / T) by the teacher's action values (a teacher
    that has them: Heckmeck's solver, 6 nimmt!'s and Diamant's search; 0: the teacher's move alone)."""

    # league rounds
    league_rounds: int = setting(0)
    """Rounds after imitation in which the network plays a league and learns by PPO."""
    league: list[str] = setting(factory=lambda: ["heuristic", "self"], metavar="BOT")
    """The bots at the seats the network does not play; with 'self', the network plays 1 to all seats,
    else one ('self' alone: every seat)."""
    league_games: int = setting(2000)
    """Games per league round."""
    league_learning_rate: float = setting(6e-4)
    """Adam's step size in league rounds."""
    league_learning_rate_end: float = setting(-1.0, default_text="none, it stays at --league-learning-rate")
    """The step size falls along a half cosine over the league rounds to this."""
    ppo_clip: float = setting(0.2, at_least=0)
    """PPO's clip of the probability ratio."""
    gae_lambda: float = setting(0.95, at_least=0, at_most=1)
    """How far a league move's advantage looks past the value head's estimate (1: the final win share
    alone)."""
    entropy: float = setting(0.003, at_least=0)
    """Weight of the policy's entropy in the league rounds' loss."""
    target_kl: float = setting(0.02, at_least=0)
    """A league round's fit stops after the epoch in which the policy moved this far (mean KL) from the
    one that played."""
    league_batch_size: int = setting(2048, at_least=1)
    """Samples per gradient step in league rounds."""

    init: str = setting("", metavar="NET", default_text="a fresh network")
    """Start from this network (a run's net-K.npz); --teacher-rounds may then be 0."""
    rounds: int = setting(21)
    """Rounds the run plays in all: imitation, league, then search self-play."""

    # search self-play
    selfplay: str = setting("search", choices=("search", "gumbel"))
    """How search rounds play: 'search', the network's tree search (PUCT, --simulations) game by game in
    --workers processes; 'gumbel', all of a round's games at once in the native core, a Gumbel root with
    sequential halving at every decision (tablezoo.training.search_selfplay)."""
    games: int = setting(150, at_least=1)
    """Search self-play games per round."""
    simulations: int = setting(24, at_least=1)
    """Search simulations per move."""
    considered: int = setting(16, at_least=1)
    """--selfplay gumbel: the moves the root considers (sampled by the Gumbel-top-k trick)."""
    gumbel_games: int = setting(256, at_least=1)
    """--selfplay gumbel: games played side by side (each seat count's share of --games at most)."""
    gumbel_scale: float = setting(1.0, above=0)
    """--selfplay gumbel: c_scale of sigma(q) = (50 + most visits) * c_scale * q, how far the improved policy
    leans from the prior to the searched win shares."""
    gumbel_opponent: str = setting("", metavar="BOT", default_text="none, every seat searched")
    """--selfplay gumbel: a native bot (the game's heuristic or a port: solver, search...) at every seat but
    one of a share of the games (--gumbel-opponent-share); the seat left, drawn each game, is searched and
    learns against it."""
    gumbel_opponent_share: float = setting(0.5, at_least=0, at_most=1)
    """--selfplay gumbel: the share of the games played side by side that seat --gumbel-opponent."""
    root_noise: float = setting(0.25, at_least=0, at_most=1)
    """Weight of the Dirichlet noise mixed into the search's root priors in self-play."""
    dirichlet_alpha: float = setting(0.3, above=0)
    """Concentration of that Dirichlet noise."""

    # the network and its fit
    hidden: tuple[int, ...] = setting((256, 256))
    """Hidden layer sizes of a fresh network."""
    action_head: int = setting(64)
    """Hidden size of a fresh network's per-card action head, 0: none."""
    epochs: int = setting(4, at_least=1)
    """Passes over the buffer (league rounds: over the round's games) per round."""
    batch_size: int = setting(256, at_least=1)
    """Samples per gradient step in imitation and search rounds."""
    learning_rate: float = setting(1e-3)
    """Adam's step size in imitation and search rounds."""
    last_step_size: float = setting(0.1, at_least=0, at_most=1)
    """Each imitation or search round's fit ends at this share of --learning-rate, along a half cosine."""
    weight_decay: float = setting(1e-5, at_least=0)
    """Adam's weight decay in imitation and search rounds."""
    buffer: int = setting(300_000)
    """Latest samples trained on."""

    # the run
    workers: int = setting(2, at_least=1)
    """Self-play processes (the same results on any number)."""
    hours: float = setting(0.0, default_text="no limit")
    """Stop before this much time has passed."""
    eval_games: int = setting(100)
    """Games per check against --eval-bot after each round (0: none)."""
    eval_bot: str = setting("heuristic")
    """The bot the network alone is checked against after each round, at 2 and 4 seats."""
    seed: int = setting(0)
    """Seed of everything random."""
    seats: list[int] = setting(factory=list, default_text="every seat count the game allows")
    """Seat counts to play, in turn."""

    check: InitVar[bool] = True

    def __post_init__(self, check: bool) -> None:
        info = game_class(self.game).info
        self.seats = list(self.seats) or list(info.seat_range)
        self.teacher = self.teacher or TEACHERS[self.game]
        self.teacher_at, self.league, self.hidden = (
            list(self.teacher_at),
            list(self.league),
            tuple(self.hidden),
        )
        if self.league_learning_rate_end < 0:  # unset: a constant step size
            self.league_learning_rate_end = self.league_learning_rate
        pairs = (item.partition("=") for item in self.teacher_at)
        self._teachers = {int(n): bot for n, _, bot in pairs if n.isdigit()}  # the others: _check_seats
        if check:
            self._check_seats()
            self._check_init()
            self._check_rounds()
            check_ranges(self)
            self._check_league()
            self._check_opponent()
            make_bot(self.eval_bot, make(self.game, self.seats[0]))  # a bad name fails now, not after a round

    def _check_seats(self) -> None:
        cls = game_class(self.game)
        allowed = list(cls.info.seat_range)
        bad = [n for n in self.seats if n not in allowed]
        if bad:
            raise ConfigError(f"{cls.info.title} is for {allowed[0]} to {allowed[-1]} players, not {bad}")
        for item in self.teacher_at:
            seats, _, bot = item.partition("=")
            if not seats.isdigit() or int(seats) not in self.seats or not bot:
                raise ConfigError(
                    f"--teacher-at takes SEATS=BOT with SEATS one of the run's seat counts "
                    f"{self.seats}, not {item!r}"
                )

    def _check_init(self) -> None:
        if self.init and not Path(self.init).is_file():
            raise ConfigError(f"--init names a network file (a run's net-K.npz), not {self.init!r}")
        if self.init and Path(self.init).resolve().parent == self.run_dir.resolve():
            raise ConfigError(
                f"--init {self.init} lies in this run's own folder {self.run_dir}: give the new run "
                "another --out, or it would resume the run that trained the network"
            )

    def _check_rounds(self) -> None:
        if self.teacher_rounds < (0 if self.init else 1):
            raise ConfigError(
                f"--teacher-rounds is at least 1 (0 only with --init), not {self.teacher_rounds}"
            )
        if self.rounds < 1:
            raise ConfigError(f"--rounds is at least 1 (imitation only), not {self.rounds}")
        if self.soft_targets < 0:
            raise ConfigError(f"--soft-targets is a temperature, 0 or more, not {self.soft_targets}")

    def _check_league(self) -> None:
        if (
            self.league_rounds < 0
            or self.league_games < 1
            or not self.league
            or self.league_learning_rate < 0
        ):
            raise ConfigError(
                "--league-rounds and --league-learning-rate are 0 or more, --league-games at least 1 and "
                f"--league names at least one bot, not {self.league_rounds}, {self.league_learning_rate}, "
                f"{self.league_games} and {self.league}"
            )
        if self.league_learning_rate_end > self.league_learning_rate:
            raise ConfigError(
                f"--league-learning-rate-end ({self.league_learning_rate_end}) is where the step size "
                f"falls to: at most --league-learning-rate ({self.league_learning_rate})"
            )
        for name in self.league:
            if name != "self":
                make_bot(name, make(self.game, self.seats[0]))  # a bad name fails now, not in a worker

    def _check_opponent(self) -> None:
        if not self.gumbel_opponent:
            return
        if self.selfplay != "gumbel":
            raise ConfigError(
                "--gumbel-opponent seats a bot in --selfplay gumbel's games: add --selfplay gumbel"
            )
        ports = make(self.game, self.seats[0], core="native").native_ports  # type: ignore[attr-defined]
        if self.gumbel_opponent not in ports:
            raise ConfigError(
                f"--gumbel-opponent names one of the game's native bots ({', '.join(ports)}), "
                f"not {self.gumbel_opponent!r}"
            )

    @classmethod
    def saved(cls, settings: dict[str, Any]) -> dict[str, Any]:
        """The settings of a run's ``config.json``, as this version names them.

        A run from before :attr:`rounds` counted the rounds saved ``iterations``, the last
        round's index: it becomes ``rounds``. Settings it did not save (they were fixed in the
        code then) take their defaults, the values that code used. A setting this version does
        not know is refused by name."""
        if "iterations" in settings and "rounds" not in settings:  # in its place, to keep the order
            settings = {"rounds" if k == "iterations" else k: v for k, v in settings.items()}
            settings["rounds"] += 1
        settings = dict(settings)
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise ConfigError(
                f"a run's config.json with settings this version does not have ({', '.join(unknown)}): "
                "written by a newer version"
            )
        return settings

    def teacher_for(self, seats: int) -> str:
        """The bot imitated at tables of ``seats`` (``--teacher-at``, else ``--teacher``)."""
        return self._teachers.get(seats, self.teacher)

    @property
    def teachers(self) -> list[str]:
        """The bots that teach some table, in the order of the first seat count each teaches."""
        return list(dict.fromkeys(self.teacher_for(n) for n in self.seats))

    def stage(self, iteration: int) -> str:
        """What round ``iteration`` (0-based) plays: :data:`IMITATION`, :data:`LEAGUE` or :data:`SEARCH`."""
        if iteration < self.teacher_rounds:
            return IMITATION
        return LEAGUE if iteration < self.teacher_rounds + self.league_rounds else SEARCH

    def round_games(self, iteration: int) -> int:
        """The games round ``iteration`` plays to learn from (its evaluation games not counted)."""
        stage = self.stage(iteration)
        if stage == IMITATION:
            return self.teacher_games
        return self.league_games if stage == LEAGUE else self.games

    def league_step_size(self, league_round: int) -> float:
        """Adam's step size in league round ``league_round`` (0-based): a half cosine over the league
        rounds from ``league_learning_rate`` to ``league_learning_rate_end``."""
        start, end = self.league_learning_rate, self.league_learning_rate_end
        progress = league_round / max(1, self.league_rounds - 1)
        return end + (start - end) * (1 + math.cos(math.pi * min(1.0, progress))) / 2

    @property
    def run_dir(self) -> Path:
        """The run's folder: ``<out>/expert-<game>``."""
        return Path(self.out) / f"expert-{self.game}"


# --------------------------------------------------------------------------- self-play


@dataclass
class Samples(Decisions):
    """Training samples: padded observations, legal moves, policy targets (or none), value targets."""

    policy: np.ndarray = column("actions", np.float16)
    """(N, actions): rows of 0 where only the value is learned."""
    value: np.ndarray = column("", np.float32)
    """(N,): the seat's final win share."""

    @classmethod
    def missing(cls, name: str, read: dict[str, np.ndarray]) -> np.ndarray:
        if name == "legal":  # runs from before the legal moves were kept learn over every move, as then
            return np.ones(read["policy"].shape, bool)
        return super().missing(name, read)


RANDOM = 0
"""A seat of an imitation game played by ``random``."""
TEACHER = 1
"""A seat of an imitation game played by the teacher."""
LEARNER = 2
"""A seat of an imitation game played by the network (DAgger)."""


class Recording(NamedTuple):
    """One game to record (:func:`play_one`)."""

    config: ExpertConfig
    """The run's settings."""
    seats: int
    """The table's seat count."""
    player: str
    """A bot's name (the teacher: its moves are the policy targets) or a network file (the search's
    visit counts are)."""
    seed: int
    """The game's seed: its chance, its seating and its bots' seeds."""
    learner: str = ""
    """With a teacher: the network file that plays some of its seats (DAgger), or none."""


Choice = Callable[[Seat], tuple[int, np.ndarray]]
"""A mover's move and its policy target (0s: none) at a decision."""


def imitation_seats(config: ExpertConfig, n: int, learner: bool, rng: np.random.Generator) -> np.ndarray:
    """Who plays each seat of an imitation game: :data:`RANDOM` at about ``random_seats`` of them, of
    the others the network (:data:`LEARNER`, with a ``learner``) at about ``dagger_share``, else the
    teacher; never random everywhere."""
    kind = np.where(rng.random(n) < config.random_seats, RANDOM, TEACHER)
    if learner:
        kind[(kind == TEACHER) & (rng.random(n) < config.dagger_share)] = LEARNER
    if (kind == RANDOM).all():
        kind[rng.integers(n)] = TEACHER
    return kind


def teacher_choice(
    config: ExpertConfig, task: Recording, game: Game[Any], rng: np.random.Generator
) -> Choice:
    """The moves of an imitation game and the teacher's targets (see :func:`play_one`)."""
    kind = imitation_seats(config, task.seats, bool(task.learner), rng)
    bots: list[Any] = seat_bots(game, ["random" if k == RANDOM else task.player for k in kind], rng)
    student = AgentBot(cached_net(task.learner)) if task.learner else None

    def choose(at: Seat) -> tuple[int, np.ndarray]:
        target = np.zeros(game.num_actions, np.float32)
        teacher, who = bots[at.seat], kind[at.seat]
        if who != RANDOM and config.soft_targets > 0 and hasattr(teacher, "action_values"):
            # every legal move, weighed by how much the teacher loses by it; the teacher
            # plays the move it values most (one evaluation, not one for the move as well)
            values = np.array(teacher.action_values(at), np.float64)
            weights = np.exp((values - values.max()) / config.soft_targets)
            target[at.legal] = weights / weights.sum()
            action = at.legal[int(np.argmax(values))]
        else:
            action = teacher.act(at)
            if who != RANDOM:
                target[action] = 1.0
        if who == LEARNER:
            action = student.act(at)  # type: ignore[union-attr]  # a learner seat implies a student
        return action, target

    return choose


def search_choice(
    config: ExpertConfig, game: Game[Any], net: PolicyValueNet, rng: np.random.Generator
) -> Choice:
    """The search's moves, its visit distribution the target, with noise at the root: searched in
    the core where it has a native search of ``game`` (:class:`~tablezoo.bots.native.NativeAgentBot`,
    seeded from ``rng``), by :func:`~tablezoo.bots.search.search` elsewhere."""
    native = None
    if has_native_search(game, net, {"search": config.simulations}):
        native = NativeAgentBot(game, net, config.simulations, seed=int(rng.integers(2**63)))

    def choose(at: Seat) -> tuple[int, np.ndarray]:
        if native is not None:
            root = native.root(at, noise=config.root_noise, dirichlet_alpha=config.dirichlet_alpha)
        else:
            root = search(
                at,
                net,
                config.simulations,
                rng,
                noise=config.root_noise,
                dirichlet_alpha=config.dirichlet_alpha,
            )
        target = np.zeros(at.game.num_actions, np.float32)
        target[root.legal] = root.visits / root.visits.sum()
        return root.legal[int(np.argmax(root.visits + 1e-3 * root.prior))], target

    return choose


def play_one(task: Recording) -> Samples:
    """One recorded game.

    With a teacher, about ``random_seats`` of the seats play ``random`` (no
    targets); with a ``learner`` network as well, ``dagger_share`` of the
    others are played by that network, and the teacher's move is still the
    target at each of their decisions. A network ``player`` is the search's
    (its visit counts the targets). Every decision gives the mover's
    observation with its target and a value-only sample of one other seat's:
    the search values positions from a seat that is waiting too (all of them
    would crowd out the policy samples at big tables).
    """
    config, n = task.config, task.seats
    game = make(config.game, n)
    rng = np.random.default_rng(task.seed)
    chance = np.random.default_rng(rng.integers(2**63))
    if task.player.endswith(".npz"):
        choose = search_choice(config, game, cached_net(task.player), rng)
    else:
        choose = teacher_choice(config, task, game, rng)
    state = game.initial_state()
    nothing = np.zeros(game.num_actions, bool)
    rows: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []

    def act(at: Seat) -> int:
        action, target = choose(at)
        other = (at.seat + 1 + int(rng.integers(n - 1))) % n
        rows.append((game.observe(state, at.seat), at.mask.astype(bool), target, at.seat))
        rows.append((game.observe(state, other), nothing, np.zeros_like(target), other))
        return action

    if not play_out(game, state, chance, act, check=False):  # a game that does not end teaches nothing
        return Samples.empty(game.padded_spec.size, game.num_actions)
    obs, legal, targets, seat_of = zip(*rows, strict=True)
    shares = np.array([win_share(game, state, s) for s in range(n)], np.float32)
    return Samples(
        game.pad(np.array(obs)).astype(np.uint8),
        np.array(legal),
        np.array(targets, np.float16),
        shares[np.array(seat_of)],
    )


def generate(config: ExpertConfig, player: str, games: int, seed: int, learner: str = "") -> Samples:
    """Play ``games`` recorded games in ``workers`` processes, seat counts taken in turn.

    When ``player`` is the run's teacher, a table of ``n`` seats is taught by
    ``config.teacher_for(n)``.
    """
    forget_nets()  # the network file is rewritten every round: a process playing in place reloads it
    rng = np.random.default_rng(seed)
    teaching = player == config.teacher
    tasks = [
        Recording(config, n, config.teacher_for(n) if teaching else player, int(rng.integers(2**62)), learner)
        for n in seat_counts(config.seats, games)
    ]
    return Samples.join(play_in_order(play_one, tasks, config.workers))


def generate_gumbel(config: ExpertConfig, net: PolicyValueNet, games: int, seed: int) -> Samples:
    """A search round's games by the batched Gumbel loop in the core: at each seat count its share of
    ``games`` (seat counts taken in turn), up to ``gumbel_games`` at once on ``workers`` threads,
    every decision searched; each finished game's decisions with their improved policies and the
    win shares their movers ended with. Games still running when a seat count has its share are
    left unfinished (they have no outcome yet)."""
    from tablezoo.training.search_selfplay import SearchSelfPlay

    rng = np.random.default_rng(seed)
    per_count: dict[int, int] = {}
    for n in seat_counts(config.seats, games):
        per_count[n] = per_count.get(n, 0) + 1
    parts: list[Samples] = []
    for n, wanted in per_count.items():
        loop = SearchSelfPlay(
            config.game,
            n,
            num_games=min(config.gumbel_games, wanted),
            seed=int(rng.integers(2**62)),
            simulations=config.simulations,
            considered=config.considered,
            c_scale=config.gumbel_scale,
            num_threads=config.workers,
            opponent=config.gumbel_opponent or None,
            opponent_games=round(config.gumbel_opponent_share * min(config.gumbel_games, wanted))
            if config.gumbel_opponent
            else 0,
        )
        taken: list[dict[str, np.ndarray]] = []
        while loop.counts()["episodes"] < wanted:
            taken.append(loop.play(net, 8))
        rows = {key: np.concatenate([t[key] for t in taken]) for key in ("obs", "mask", "policy", "value")}
        parts.append(
            Samples(
                rows["obs"].astype(np.uint8),
                rows["mask"],
                rows["policy"].astype(np.float16),
                rows["value"].astype(np.float32),
            )
        )
    return Samples.join(parts)


def calibration(net: PolicyValueNet, data: Samples, bins: int = 10) -> dict[str, float]:
    """How well the win-share head foretells outcomes it has not learnt from (a round's new samples,
    before the fit): the Brier score of its win shares, the expected calibration error (the mean gap
    between the win share it gives and the share won, over ``bins`` equal bins, weighed by their
    sizes) and the two means. Overconfidence shows as an error above what the Brier score's spread
    explains: win shares near 0 and 1 where the outcomes are not."""
    if len(data) == 0:
        return {}
    predicted = net.forward(data.obs.astype(np.float32))[1]
    outcome = data.value
    which = np.minimum((predicted * bins).astype(int), bins - 1)
    gap = 0.0
    for b in range(bins):
        rows = which == b
        if rows.any():
            gap += rows.mean() * abs(float(predicted[rows].mean()) - float(outcome[rows].mean()))
    return {
        "value_brier": round(float(np.mean((predicted - outcome) ** 2)), 4),
        "value_ece": round(gap, 4),
        "value_mean": round(float(predicted.mean()), 4),
        "outcome_mean": round(float(outcome.mean()), 4),
    }


# --------------------------------------------------------------------------- learning


def fit(net: PolicyValueNet, data: Samples, config: ExpertConfig, seed: int) -> tuple[PolicyValueNet, dict]:
    """Train ``net`` on ``data`` for ``epochs`` with torch; the new numpy network and the losses.

    The step size falls along a half cosine to ``last_step_size`` of itself over the round: the
    first epochs learn the new samples, the last ones settle fine distinctions (Heckmeck: a roll or
    a stop with two dice left), which a constant step keeps jumping over."""
    import torch
    from torch import nn

    obs = torch.from_numpy(data.obs)
    policy = torch.from_numpy(data.policy.astype(np.float32))
    illegal = torch.from_numpy(~data.legal)
    value = torch.from_numpy(data.value)
    has_policy = policy.sum(dim=1) > 0

    def loss(twin: Any, idx: torch.Tensor) -> tuple[torch.Tensor, dict[str, float]]:
        mask = has_policy[idx]
        logp, v = twin.policy_value(obs[idx], illegal[idx], mask)
        p_loss = -(policy[idx][mask] * logp).sum(dim=1).mean() if logp is not None else v.sum() * 0
        v_loss = nn.functional.binary_cross_entropy_with_logits(v, value[idx])
        return p_loss + v_loss, {"policy_loss": p_loss.item(), "value_loss": v_loss.item()}

    fitted = minibatch_fit(
        net,
        len(data),
        loss,
        figures=("policy_loss", "value_loss"),
        epochs=config.epochs,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        seed=seed,
        weight_decay=config.weight_decay,
        last_step_size=config.last_step_size,
    )
    return fitted.net, fitted.means


# --------------------------------------------------------------------------- the loop


def strength(config: ExpertConfig, net: PolicyValueNet, seed: int) -> dict[str, Any]:
    """The network alone against ``eval_bot`` at 2 and 4 seats (or the nearest the game allows).

    Per seat count: win share, its 95% interval and the fair share."""
    cls = game_class(config.game)
    result: dict[str, Any] = {}
    for n in sorted({max(cls.info.min_seats, 2), min(cls.info.max_seats, 4)}):
        game = make(config.game, n)
        s = one_against_all(
            game,
            lambda: AgentBot(net),
            lambda game=game: make_bot(config.eval_bot, game),  # type: ignore[misc]
            config.eval_games,
            seed,
        )
        low, high = s.interval()
        result[f"{n}p"] = [round(s.win_rate, 3), round(low, 3), round(high, 3), round(1 / n, 3)]
    return result


def _log(run: Path, entry: dict[str, Any]) -> None:
    with (run / "log.jsonl").open("a") as f:
        f.write(json.dumps(entry) + "\n")
    print(json.dumps(entry), flush=True)


def _start(config: ExpertConfig, resuming: bool) -> tuple[PolicyValueNet, Samples]:
    """The network and the buffer a run starts (or resumes) with."""
    run = config.run_dir
    game: Game[Any] = make(config.game, config.seats[0])
    data = Samples.empty(game.padded_spec.size, game.num_actions)
    if resuming:
        if (run / "buffer.npz").exists():  # a run of league rounds alone keeps no imitation samples
            data = Samples.load(run / "buffer.npz")
        return PolicyValueNet.load(run / "net.npz"), data
    if config.init:
        net = PolicyValueNet.load(config.init)
        net.check_fits(game, config.init)
        return net, data
    return PolicyValueNet.initial(game, config.hidden, config.seed, config.action_head), data


def _player(config: ExpertConfig, stage: str, learner: str) -> str:
    """Who plays a round's games, as its log line says."""
    if stage == IMITATION:
        return f"teacher {' and '.join(config.teachers)}" + (" with the network" if learner else "")
    if stage == LEAGUE:
        return "league of " + ", ".join(config.league)
    if config.selfplay == "gumbel":
        against = (
            f" against {config.gumbel_opponent} in {config.gumbel_opponent_share:g} of the games"
            if config.gumbel_opponent
            else ""
        )
        return f"gumbel simulations={config.simulations} considered={config.considered}{against}"
    return f"search={config.simulations}"


@dataclass
class Round:
    """What one round did, for its log line."""

    net: PolicyValueNet
    """The network after the round."""
    data: Samples
    """The buffer after the round (a league round's: the one before it)."""
    losses: dict[str, Any]
    """What the fit measured."""
    decisions: int
    """The decisions learnt from: with a policy target, or the network's own in league games."""
    new_samples: int
    """The round's samples."""
    played_at: float
    """When the games were played (``time.monotonic``), between the round's start and its end."""


def _league_round(
    config: ExpertConfig, iteration: int, net: PolicyValueNet, data: Samples, learner: str
) -> Round:
    """A league round: the network's league games (kept in ``played-<k>.npz`` until learnt from), PPO."""
    from tablezoo.training.league import Episodes, generate_league, improve

    played = config.run_dir / f"played-{iteration}.npz"
    seed = config.seed * 1000 + iteration
    if played.exists():
        games = Episodes.load(played)
    else:
        games = generate_league(config, learner, seed)
        games.save(played)
    played_at = time.monotonic()
    step_size = config.league_step_size(iteration - config.teacher_rounds)
    net, losses = improve(net, games, config, seed, step_size)
    return Round(net, data, losses, len(games), len(games), played_at)


def _sample_round(
    config: ExpertConfig, iteration: int, net: PolicyValueNet, data: Samples, learner: str
) -> Round:
    """An imitation or search round: its recorded games (kept in ``played-<k>.npz`` until learnt from)
    join the buffer, and the network learns the buffer's latest samples."""
    run = config.run_dir
    played = run / f"played-{iteration}.npz"
    seed = config.seed * 1000 + iteration
    if played.exists():  # played before a stop, not yet learnt from
        new = Samples.load(played)
    else:
        if config.stage(iteration) == IMITATION:
            new = generate(config, config.teacher, config.teacher_games, seed, learner)
        elif config.selfplay == "gumbel":
            new = generate_gumbel(config, net, config.games, seed)
        else:
            new = generate(config, str(run / "net.npz"), config.games, seed)
        new.save(played)
    played_at = time.monotonic()
    measured = calibration(net, new)
    data = Samples.join([data, new]).tail(config.buffer)
    net, losses = fit(net, data, config, seed)
    losses = {**losses, **measured}
    return Round(net, data, losses, int((new.policy.sum(axis=1) > 0).sum()), len(new), played_at)


def play_round(
    config: ExpertConfig, iteration: int, net: PolicyValueNet, data: Samples
) -> tuple[Round, dict[str, Any]]:
    """Round ``iteration`` of a run: play, learn, save the network (and the buffer); what it did
    and its log line."""
    run, started = config.run_dir, time.monotonic()
    stage = config.stage(iteration)
    learner = str(run / "net.npz") if iteration > 0 or config.init else ""
    if iteration == 0 and config.init:
        net.save(run / "net.npz")  # what the first round's games are played by
    play = _league_round if stage == LEAGUE else _sample_round
    done = play(config, iteration, net, data, learner)
    meta = {"iteration": iteration, "teacher": config.teacher, "simulations": config.simulations}
    done.net.meta.update(meta)
    done.net.save(run / f"net-{iteration}.npz")
    done.net.save(run / "net.npz")
    if stage != LEAGUE:
        done.data.save(run / "buffer.npz")
    (run / f"played-{iteration}.npz").unlink()
    seed = config.seed * 1000 + iteration
    fitted_at = time.monotonic()
    checked = strength(config, done.net, seed) if config.eval_games else {}
    entry = {
        "iteration": iteration,
        "player": _player(config, stage, learner),
        "games": config.round_games(iteration),
        "decisions": done.decisions,
        "new_samples": done.new_samples,
        "buffer": len(done.data),
        **done.losses,
        "play_seconds": round(done.played_at - started, 1),
        "fit_seconds": round(fitted_at - done.played_at, 1),
        f"against_{config.eval_bot}": checked,
        "eval_seconds": round(time.monotonic() - fitted_at, 1),
    }
    return done, entry


def run_expert(config: ExpertConfig) -> Path:
    """Run (or resume) expert iteration; the run's folder."""
    run = config.run_dir
    run.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    done = [json.loads(line) for line in (run / "log.jsonl").open()] if (run / "log.jsonl").exists() else []
    (run / "config.json").write_text(json.dumps(asdict(config), indent=2))
    net, data = _start(config, bool(done))
    for iteration in range(len(done), config.rounds):
        spent = (time.monotonic() - started) / 3600
        if config.hours and done and spent > config.hours * 0.85:
            print(f"stopping before iteration {iteration}: {spent:.2f} of {config.hours} hours spent")
            break
        result, entry = play_round(config, iteration, net, data)
        net, data = result.net, result.data
        _log(run, entry)
        done.append(entry)
    return run


# --------------------------------------------------------------------------- the command


def expert_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``tablezoo expert``: one per :class:`ExpertConfig` field, ``--resume`` and the
    ``--iterations`` of older runs' commands."""
    add_arguments(parser, ExpertConfig)
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        metavar="K",
        help="The last round's index, as the commands of runs before --rounds say it: --rounds K+1.",
    )
    parser.add_argument(
        "--resume",
        default=None,
        metavar="RUN",
        help="Go on with the run folder RUN (runs/expert-GAME) by its saved settings; only --rounds, "
        "--workers and --hours may be given beside it.",
    )


def add_expert_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo expert`` to the subcommands ``sub``."""
    parser = sub.add_parser(
        "expert", help="train a game's agent by expert iteration: network-guided search teaches the network"
    )
    expert_arguments(parser)
    parser.set_defaults(func=cmd_expert)
    return parser


RESUMABLE = ("rounds", "workers", "hours")
"""The settings a resumed run may change: how far and how fast it goes, not what it plays."""


def _resumed(game: str, folder: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The settings of the run in ``folder`` (its ``config.json``), with ``settings``' changes."""
    path = Path(folder)
    if path.name != f"expert-{game}" or not (path / "config.json").is_file():
        raise ConfigError(f"--resume {folder}: not a run folder of {game} (expert-{game} with a config.json)")
    changed = sorted(set(settings) - {"game", *RESUMABLE})
    if changed:
        flags = ", ".join("--" + k.replace("_", "-") for k in changed)
        raise ConfigError(f"--resume goes on with the run's own settings: {flags} cannot change")
    saved = ExpertConfig.saved(json.loads((path / "config.json").read_text()))
    return {**saved, **settings, "out": str(path.parent)}


def expert_config(args: argparse.Namespace, check: bool = True) -> ExpertConfig:
    """The :class:`ExpertConfig` of parsed ``tablezoo expert`` arguments (``check``: see the class)."""
    settings = given(args, ExpertConfig)
    if args.iterations is not None:
        if "rounds" in settings:
            raise ConfigError("--iterations K is --rounds K+1: give one of them")
        settings["rounds"] = args.iterations + 1
    if args.resume:
        settings = _resumed(args.game, args.resume, settings)
    return ExpertConfig(**settings, check=check)


def parse_expert(argv: list[str], check: bool = True) -> ExpertConfig:
    """The :class:`ExpertConfig` of the arguments of a ``tablezoo expert`` command (after ``expert``)."""
    parser = argparse.ArgumentParser(prog="tablezoo expert")
    expert_arguments(parser)
    return expert_config(parser.parse_args(argv), check)


def cmd_expert(args: argparse.Namespace) -> None:
    """``tablezoo expert``: run (or resume) expert iteration."""
    run = run_expert(expert_config(args))
    print(f"run saved in {run}: net.npz (the latest network), log.jsonl (one line per iteration)")
