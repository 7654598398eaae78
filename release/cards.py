"""The text of a shipped agent's model card: how it was trained, how strong it is.

:mod:`tablezoo.release.ship` measures a network and writes its card (``bots/agents/<game>.md``)
from these pieces: the training (:func:`_training_text` from a run's saved settings, the rounds'
table), the network, the strength rows and the card around them (:func:`card_text`).
``benchmarks/strength.py --cards`` adds the strength league's section (:func:`update_card`,
between :data:`LEAGUE_START` and :data:`LEAGUE_END`), which ``tablezoo ship`` keeps when it
measures a shipped agent again. A card's format lives here alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablezoo.bots.net import PolicyValueNet
from tablezoo.games import game_class


def opening_section(worms: float, optimum: float) -> str:
    """The card's section on the opening turn: the agent's exact expected worms against the optimum."""
    aim = 0.97 * optimum
    verdict = "met" if worms >= aim else f"not met (short by {aim - worms:.3f})"
    return (
        "## Opening turn\n\n"
        "Expected worms won on the first turn of a 2-seat game, computed exactly (every roll "
        "with its probability, the agent's move at each decision: "
        "`tablezoo.release.ship.opening_turn_worms`); the target is 97% of the exact optimum:\n\n"
        "| player | expected worms | share of the optimum | target |\n|---|---|---|---|\n"
        f"| `agent` | {worms:.3f} | {worms / optimum:.1%} | {aim:.3f}: {verdict} |\n"
        f"| exact turn solver | {optimum:.3f} | 100% | |\n"
    )


def seat_counts(config: dict[str, Any]) -> list[int]:
    """A run's seat counts from its saved settings: ``num_players``, or ``seats`` in a run from
    before 0.7."""
    return list(config["num_players"] if "num_players" in config else config["seats"])


def _rounds(k: int) -> str:
    return f"{k} round" + ("" if k == 1 else "s")


def _training_text(config: dict[str, Any], rounds: int) -> str:
    """The card's paragraph on how a run of ``rounds`` rounds trained its network."""
    teacher_rounds = min(config.get("teacher_rounds", 1), rounds)
    parts = []
    if config.get("init"):
        parts.append(f"starting from the network `{config['init']}`")
    if teacher_rounds:
        parts.append(_imitation_text(config, teacher_rounds))
    league_rounds = max(0, min(config.get("league_rounds", 0), rounds - teacher_rounds))
    if league_rounds:
        parts.append(_league_text(config, league_rounds))
    searched = rounds - teacher_rounds - league_rounds
    if searched > 0:
        parts.append(
            f"{_rounds(searched)} of self-play in which network-guided search "
            f"({config['simulations']} simulations a move) plays every seat and the network learns the "
            "search's visit counts and the games' outcomes"
        )
    text = "- Expert iteration (`tablezoo.training.expert`): " + ", then ".join(parts)
    return text + f". Seat counts {', '.join(map(str, seat_counts(config)))}, in turn."


def _imitation_text(config: dict[str, Any], teacher_rounds: int) -> str:
    """The card's words on a run's ``teacher_rounds`` rounds of imitation: of which teachers, how."""
    tables: dict[str, list[str]] = {}  # teacher -> the table sizes it teaches
    for item in config.get("teacher_at", []):
        seats, _, bot = item.partition("=")
        tables.setdefault(bot, []).append(seats)
    taught = sum(len(sizes) for sizes in tables.values())  # tables with a teacher of their own
    named = "" if taught >= len(seat_counts(config)) else f" of the `{config['teacher']}` bot"
    part = f"imitation{named} ({config['teacher_games']} games a round"
    said = "and the teacher saying what it would have played"
    if config.get("init"):  # the network plays from the first round on
        part += f", {_rounds(teacher_rounds)}, each with the network at half the teacher's seats {said}"
    elif teacher_rounds > 1:
        part += (
            f", {_rounds(teacher_rounds)}: the first with the teacher at its seats, the others with "
            f"the network at half of them {said}"
        )
    part += ")"
    if config.get("soft_targets"):
        part += (
            f"; every legal move taught, weighed exp((value - best) / {config['soft_targets']}) by "
            "the teacher's own values of its moves"
        )
    for bot, sizes in tables.items():
        listed = sizes[0] if len(sizes) == 1 else ", ".join(sizes[:-1]) + f" and {sizes[-1]}"
        part += f"; at {listed} seats the teacher is `{bot}`"
    return part


def _league_text(config: dict[str, Any], league_rounds: int) -> str:
    """The card's words on a run's ``league_rounds`` rounds of policy gradient in a league."""
    league = ", ".join(f"`{name}`" for name in dict.fromkeys(config["league"]))
    start = config.get("league_learning_rate", 6e-4)
    end = config.get("league_learning_rate_end", start)
    steps = f"step size {start:g}"
    if end != start:
        planned = config["league_rounds"]
        steps += f" falling along a half cosine over {planned} rounds to {end:g}"
        if league_rounds < planned:
            steps += f", stopped after {league_rounds}"
    names = list(dict.fromkeys(config["league"]))
    if "self" in names:
        plays = f"plays against a league of {league} (`self`: the network itself)"
    else:
        others = league if len(names) == 1 else f"bots drawn from {league}"
        plays = f"holds one seat and {others} the others"
    return (
        f"{_rounds(league_rounds)} of policy gradient (PPO, {config['league_games']} games a round, "
        f"{steps}): the network, its moves sampled, {plays}, and learns from the win shares of those games"
    )


def _row(r: dict[str, Any], target: float | None = None) -> str:
    low, high = r["interval"]
    fair = r["fair_share"]
    verdict = "above" if low > fair else "below" if high < fair else "not clearly above or below"
    cells = [
        str(r["seats"]),
        f"`{r['agent']}`",
        r["against"],
        str(r["games"]),
        f"{r['win_share']:.3f} [{low:.3f}, {high:.3f}]",
        f"{verdict} {fair:.3f}",
    ]
    if target is not None:
        cells.append(f"{target:.3f}: {'met' if low > target else f'not met (short by {target - low:.3f})'}")
    return "| " + " | ".join(cells) + " |"


def _network_text(net: PolicyValueNet) -> str:
    """The card's line on the network's layers."""
    hidden = net.meta.get("hidden", [w.shape[0] for w in net.weights[:-1]])
    policy_layer = f"{net.num_actions} action logits"
    if net.head is not None:
        policy_layer = (
            f"{net.num_actions} action logits (the first {net.head.size} from one action head of "
            f"{len(net.head.bias)} hidden units shared by those actions, reading each one's entries "
            "of the action fields; the others linear)"
        )
    return (
        f"- Network: padded observation ({net.observation_size} inputs, the seat count one-hot) -> hidden\n"
        f"  layers {hidden} (ReLU) -> {policy_layer} and a win-share head.\n"
    )


def _rounds_table(log: list[dict[str, Any]]) -> str:
    """The card's table of the run's rounds, one line each."""
    lines = [
        "| round | player | decisions | buffer | policy loss | value loss | seconds "
        "| network alone vs the round's check |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for e in log:
        checks = [(k.removeprefix("against_"), v) for k, v in e.items() if k.startswith("against_")]
        against = "; ".join(
            f"{bot}: " + ", ".join(f"{k} {v[0]:.2f}" for k, v in shares.items())
            for bot, shares in checks
            if shares
        )
        lines.append(
            f"| {e['iteration']} | {e['player']} | {e.get('decisions', '')} | {e['buffer']} | "
            f"{e['policy_loss']:.3f} | {e['value_loss']:.3f} | {e['play_seconds'] + e['fit_seconds']:.0f} | "
            f"{against} |"
        )
    return "\n".join(lines)


def card_text(game_name: str, training: str, strength: str) -> str:
    """A shipped agent's model card: how to seat it, then the sections on its training and strength."""
    info = game_class(game_name).info
    return f"""# {info.title}: shipped agent, every seat count ({info.min_seats} to {info.max_seats})

Seat it with the bot name `agent` (the network alone: about a millisecond a move) or
`agent:search=N` (the network guiding N simulations of search), at a table
(`/bot agent`), in `tablezoo play {game_name} --bot agent` or `tablezoo evaluate`. It runs on
numpy alone (`tablezoo.bots.net.PolicyValueNet.load`); `tablezoo export {game_name} --players N`
writes it as ONNX.

{training}
{strength}"""


# --------------------------------------------------------------------------- the strength league's section

LEAGUE_START = "<!-- strength league: written by benchmarks/strength.py --cards -->"
"""The line a card's section on the strength league begins with."""
LEAGUE_END = "<!-- end of strength league -->"
"""The line it ends with: a rerun of the league replaces what lies between, nothing else."""
LEAGUE_MARK = "<!-- strength league"
"""What finds the section in a card (its first line's start, older cards' too)."""


def league_markdown(result: dict[str, Any], opponent: str = "heuristic") -> str:
    """A strength league's result (``benchmarks/strength.py``'s ``strength.json``) as two Markdown
    tables: every bot's rating per game and seat count, and the head-to-heads against
    ``opponent``."""
    lines = [
        "| game | seats | bot | rating μ ± σ | ordinal | win share [95% CI] | fair share |",
        "|---|---|---|---|---|---|---|",
    ]
    for game in result["games"].values():
        for seats, lg in game["leagues"].items():
            for bot in lg["bots"]:
                low, high = bot["win_share_95ci"]
                lines.append(
                    f"| {game['title']} | {seats} | {bot['name']} | {bot['mu']:.1f} ± {bot['sigma']:.1f} "
                    f"| {bot['ordinal']:.1f} | {bot['win_share']:.3f} [{low:.3f}, {high:.3f}] "
                    f"| {lg['fair_share']:.3f} |"
                )
    matches = [(g["title"], m) for g in result["games"].values() for m in g["against_heuristic"]]
    if matches:
        lines += [
            "",
            f"| game | seats | bot | win share against the {opponent} [95% CI] | fair share | games |",
            "|---|---|---|---|---|---|",
        ]
        for title, m in matches:
            low, high = m["win_share_95ci"]
            lines.append(
                f"| {title} | {m['seats']} | {m['bot']} | {m['win_share']:.3f} [{low:.3f}, {high:.3f}] "
                f"| {m['fair_share']:.3f} | {m['games']} |"
            )
    return "\n".join(lines) + "\n"


def league_size(result: dict[str, Any]) -> str:
    """How many games a league's result played, in words."""
    if result.get("games_per_pairing"):
        return f"{result['games_per_pairing']} games a pairing of bots"
    return f"{result['games_per_league']} games per league"


def league_section(name: str, result: dict[str, Any]) -> str:
    """The card's section on the strength league for the game ``name``, between
    :data:`LEAGUE_START` and :data:`LEAGUE_END`."""
    return (
        f"{LEAGUE_START}\n## In the strength league\n\n"
        f"Every bot of the game rated together (OpenSkill, Plackett-Luce), {league_size(result)}, "
        f"seed {result['seed']}: `{result['command']}`.\n\n"
        f"{league_markdown({'games': {name: result['games'][name]}})}{LEAGUE_END}\n"
    )


def update_card(path: Path, name: str, result: dict[str, Any]) -> bool:
    """Put ``name``'s league and head-to-head tables (:func:`league_section`) into its model card at
    ``path``; False if there is no card. A rerun replaces the section; the rest of the card stays
    as :mod:`tablezoo.release.ship` wrote it."""
    if not path.exists():
        return False
    section = league_section(name, result)
    text = path.read_text()
    if LEAGUE_START in text and LEAGUE_END in text:
        before, rest = text.split(LEAGUE_START, 1)
        text = before + section + rest.split(LEAGUE_END, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)
    return True
