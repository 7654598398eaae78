"""The settings of expert iteration: :class:`ExpertConfig` and the ``tablezoo expert`` flags made from it.

Every setting of the method (the constants of the search's noise, of DAgger and of PPO
included) is a field of :class:`ExpertConfig`, saved in a run's ``config.json``; the command's
flags and their help are made from those fields (:mod:`tablezoo.games.settings`), and
:func:`parse_expert` reads a recorded command back into a config (what
:mod:`tablezoo.release.reproduce` replays). The loop that runs a config is
:mod:`tablezoo.training.expert.run`; this module imports neither it nor torch.
"""

from __future__ import annotations

import argparse
import json
import math
import warnings
from dataclasses import InitVar, dataclass, fields
from pathlib import Path
from typing import Any

from tablezoo.bots.registry import make_bot
from tablezoo.games import GAMES, game_class, game_named, make
from tablezoo.games.core import ConfigError
from tablezoo.games.settings import add_arguments, check_ranges, given, setting

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

    game: str = setting(positional=True, choices=tuple(GAMES), convert=game_named)
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
    sequential halving at every decision (tablezoo.training.expert.search_selfplay)."""
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
    gumbel_target: str = setting("sigma", choices=("sigma", "evidence"))
    """--selfplay gumbel: the policy learnt at a decision: 'sigma', the Gumbel root's improved policy
    softmax(logit + sigma(completed q)); 'evidence', each simulated move's logit moved by the evidence for
    it as the table's search weighs it, --gumbel-confidence x (q - mean q) x sqrt(visits) / spread
    (search_selfplay.evidence_policy)."""
    gumbel_confidence: float = setting(0.25, above=0)
    """--selfplay gumbel with --gumbel-target evidence: the logits a standard error of evidence is worth
    (the table's search's confidence= setting)."""
    gumbel_opponent: str = setting("", metavar="BOT", default_text="none, every seat searched")
    """--selfplay gumbel: a native bot (the game's heuristic or a port: solver, search...) at every seat but
    one of a share of the games (--gumbel-opponent-share); the seat left, drawn each game, is searched and
    learns against it."""
    gumbel_opponent_share: float = setting(0.5, at_least=0, at_most=1)
    """--selfplay gumbel: the share of the games played side by side that seat --gumbel-opponent."""
    gumbel_leaf: str = setting("head", choices=("head", "turn", "end"))
    """--selfplay gumbel: where a simulation is valued, as the table's search's leaf= setting: 'head' at the
    mover's next decision (the network's win share), 'turn' at the start of its next turn, 'end' at the
    game's end (the network plays it out)."""
    gumbel_others: str = setting("sample", choices=("sample", "likeliest"))
    """--selfplay gumbel: how the other seats move in a simulation: a draw from the network's policy, or its
    likeliest move (as the table's search's others= setting)."""
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
    num_players: list[int] = setting(
        factory=list,
        default_text="every seat count the game allows",
        flag="players",
        deprecated=("--seats",),
        metavar="N",
    )
    """Seat counts to play, in turn."""

    check: InitVar[bool] = True

    def __post_init__(self, check: bool) -> None:
        info = game_class(self.game).info
        self.num_players = list(self.num_players) or list(info.seat_range)
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
            make_bot(
                self.eval_bot, make(self.game, self.num_players[0])
            )  # a bad name fails now, not after a round

    def _check_seats(self) -> None:
        cls = game_class(self.game)
        allowed = list(cls.info.seat_range)
        bad = [n for n in self.num_players if n not in allowed]
        if bad:
            raise ConfigError(f"{cls.info.title} is for {allowed[0]} to {allowed[-1]} players, not {bad}")
        for item in self.teacher_at:
            seats, _, bot = item.partition("=")
            if not seats.isdigit() or int(seats) not in self.num_players or not bot:
                raise ConfigError(
                    f"--teacher-at takes SEATS=BOT with SEATS one of the run's seat counts "
                    f"{self.num_players}, not {item!r}"
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
                make_bot(name, make(self.game, self.num_players[0]))  # a bad name fails now, not in a worker

    def _check_opponent(self) -> None:
        if self.selfplay != "gumbel" and (self.gumbel_leaf, self.gumbel_others) != ("head", "sample"):
            raise ConfigError(
                "--gumbel-leaf and --gumbel-others set how --selfplay gumbel's simulations play: "
                "add --selfplay gumbel"
            )
        if self.selfplay != "gumbel" and self.gumbel_target != "sigma":
            raise ConfigError(
                "--gumbel-target sets what --selfplay gumbel's games teach: add --selfplay gumbel"
            )
        if not self.gumbel_opponent:
            return
        if self.selfplay != "gumbel":
            raise ConfigError(
                "--gumbel-opponent seats a bot in --selfplay gumbel's games: add --selfplay gumbel"
            )
        ports = make(self.game, self.num_players[0], core="native").native_ports  # type: ignore[attr-defined]
        if self.gumbel_opponent not in ports:
            raise ConfigError(
                f"--gumbel-opponent names one of the game's native bots ({', '.join(ports)}), "
                f"not {self.gumbel_opponent!r}"
            )

    @classmethod
    def saved(cls, settings: dict[str, Any]) -> dict[str, Any]:
        """The settings of a run's ``config.json``, as this version names them.

        A run from before :attr:`rounds` counted the rounds saved ``iterations``, the last
        round's index: it becomes ``rounds``. A run from before 0.7 saved its seat counts as
        ``seats``: they become :attr:`num_players`, with a :class:`DeprecationWarning`. Settings
        it did not save (they were fixed in the code then) take their defaults, the values that
        code used. A setting this version does not know is refused by name."""
        if "iterations" in settings and "rounds" not in settings:  # in its place, to keep the order
            settings = {"rounds" if k == "iterations" else k: v for k, v in settings.items()}
            settings["rounds"] += 1
        if "seats" in settings and "num_players" not in settings:  # before 0.7: in its place
            warnings.warn(
                "a run's config.json names its seat counts 'seats': read as 'num_players', the name "
                "since 0.7 (the old one is read until the next release)",
                DeprecationWarning,
                stacklevel=2,
            )
            settings = {"num_players" if k == "seats" else k: v for k, v in settings.items()}
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
        return list(dict.fromkeys(self.teacher_for(n) for n in self.num_players))

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

    @property
    def seats(self) -> list[int]:
        """Deprecated: :attr:`num_players` (this name goes in the next release)."""
        warnings.warn(
            "ExpertConfig.seats is ExpertConfig.num_players since 0.7 (the old name goes in the next "
            "release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.num_players


@dataclass
class Resumed:
    """The flags of ``tablezoo expert`` that are not settings of a run: where a run goes on from."""

    iterations: int | None = setting(None, metavar="K")
    """The last round's index, as the commands of runs before --rounds say it: --rounds K+1."""
    resume: str | None = setting(None, metavar="RUN")
    """Go on with the run folder RUN (runs/expert-GAME) by its saved settings; only --rounds, --workers
    and --hours may be given beside it."""


def expert_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``tablezoo expert``: one per :class:`ExpertConfig` field, ``--resume`` and the
    ``--iterations`` of older runs' commands (:class:`Resumed`)."""
    add_arguments(parser, ExpertConfig)
    add_arguments(parser, Resumed)


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
