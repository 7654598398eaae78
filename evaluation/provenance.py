"""What a result records of what made it: the policy (its name, what it was given as, a SHA-256
of its weights), the package, the git commit, Python's and the libraries' versions, and the command.

Paths in a result are portable: a policy file or an argument under the folder the result is
written to is recorded relative to that folder (``policies/ppo-seed0.pt`` beside
``ppo-seed0.json``), any other by its file name alone, which the SHA-256 beside it identifies
(:func:`portable`). No result holds the path of the machine that made it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import platform
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablezoo.bots.registry import agent_path
from tablezoo.evaluation.policies import import_spec, policy_name
from tablezoo.evaluation.reading import Reading
from tablezoo.games.core import ConfigError

LIBRARIES = ("numpy", "gymnasium", "pettingzoo", "torch", "onnxruntime", "stable-baselines3", "sb3-contrib")
"""The libraries whose versions a result records (None where not installed)."""


def version() -> str:
    """The installed package's version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("tablezoo")
    except PackageNotFoundError:
        return "unknown"


def environment() -> dict[str, Any]:
    """Python's and the libraries' versions and the machine's platform."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    libraries: dict[str, str | None] = {}
    for dist in LIBRARIES:
        try:
            libraries[dist] = dist_version(dist)
        except PackageNotFoundError:
            libraries[dist] = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "libraries": libraries,
    }


def git_state(where: Path | None = None) -> dict[str, Any] | None:
    """The commit of the checkout the package runs from, and whether tracked files differ from it
    (None when it is not run from a git checkout)."""
    here = where or Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=20
        )
        if head.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


# --------------------------------------------------------------------------- portable paths


def portable(text: str, folder: Path | None = None) -> str:
    """``text`` as a result records it: a path under ``folder`` relative to it, any other path
    (one that exists, or an absolute one) by its file name; a bot's name or a ``module:name`` as
    it is (its weights file made portable the same way)."""
    spec = import_spec(text)
    if spec is not None:
        weights = f"@{portable(spec.weights, folder)}" if spec.weights else ""
        return f"{spec.module}:{spec.name}{weights}"
    base, colon, settings = text.partition(":")
    path = Path(base)
    if not (path.is_absolute() or path.exists() or "/" in base):
        return text
    if folder is not None:
        try:
            relative = path.resolve().relative_to(folder.resolve())
        except ValueError:
            relative = None
        if relative is not None:
            return relative.as_posix() + colon + settings
    return path.name + colon + settings


def portable_command(command: Sequence[str] | None, folder: Path | None = None) -> list[str] | None:
    """A command line with every absolute path in it made :func:`portable` (a path under the
    current folder, relative to it, as it would have been typed there)."""
    if command is None:
        return None
    here = Path.cwd().resolve()
    out = []
    for arg in command:
        flag, eq, value = arg.partition("=") if arg.startswith("--") else ("", "", arg)
        if value.startswith("/") and not value.startswith("//"):
            path = Path(value)
            try:
                value = path.resolve().relative_to(here).as_posix()
            except ValueError:
                value = portable(value, folder)
        out.append(flag + eq + value)
    return out


def provenance(command: Sequence[str] | None = None, folder: Path | None = None) -> dict[str, Any]:
    """The package's version, the git state, the environment and the command (made portable)."""
    return {
        "package": version(),
        "git": git_state(),
        "environment": environment(),
        "command": portable_command(command, folder),
    }


# --------------------------------------------------------------------------- the policy


def _plain_callable(policy: Any) -> bool:
    """Whether ``policy`` is a callable that is no bot, name, file, torch module or SB3 model."""
    if isinstance(policy, (str, Path)) or hasattr(policy, "act"):
        return False
    if hasattr(policy, "state_dict") or hasattr(getattr(policy, "policy", None), "state_dict"):
        return False
    return callable(policy)


def _module_file(module: str) -> Path | None:
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(found.origin) if found is not None and found.origin else None


def policy_hash(policy: Any, game_name: str | None = None) -> str | None:
    """SHA-256 of a policy's weights: a file's bytes, a folder's files, the shipped agent's file
    (``agent``, with its options, in ``game_name``), a ``module:name``'s source file (and its
    state dict file), a torch module's or an SB3 model's weights; a bot without weights, its name
    and the package's version. None for a callable (a result names it instead)."""
    digest = hashlib.sha256()
    if isinstance(policy, (str, Path)):
        text = str(policy)
        spec = import_spec(text)
        path = Path(text.partition(":")[0])
        if spec is not None:
            source = _module_file(spec.module)
            digest.update(f"{spec.module}:{spec.name}".encode())
            if source is not None and source.is_file():
                digest.update(source.read_bytes())
            if spec.weights and Path(spec.weights).is_file():
                digest.update(Path(spec.weights).read_bytes())
        elif path.is_file():
            digest.update(path.read_bytes())
        elif path.is_dir():
            for item in sorted(p for p in path.rglob("*") if p.is_file()):
                digest.update(str(item.relative_to(path)).encode() + item.read_bytes())
        elif text.partition(":")[0] == "agent" and game_name and agent_path(game_name).is_file():
            digest.update(agent_path(game_name).read_bytes() + text.encode())
        else:
            digest.update(f"{policy}@{version()}".encode())
        return digest.hexdigest()
    state_dict = getattr(getattr(policy, "policy", policy), "state_dict", None)
    if callable(state_dict):
        for key, value in state_dict().items():
            digest.update(key.encode() + value.detach().cpu().numpy().tobytes())
        return digest.hexdigest()
    return None


def _hashed(policy: Any, game_name: str) -> str:
    """What :func:`policy_hash` hashed, in words."""
    if isinstance(policy, (str, Path)):
        text = str(policy)
        path = Path(text.partition(":")[0])
        spec = import_spec(text)
        if spec is not None:
            return "its name, its module's source file" + (" and the state dict file" if spec.weights else "")
        if path.is_file():
            return "the file"
        if path.is_dir():
            return "the folder's files"
        if text.partition(":")[0] == "agent" and agent_path(game_name).is_file():
            return f"the shipped agent's weights ({agent_path(game_name).name}) and its options"
        return "the bot's name and the package's version (it has no weights)"
    if _plain_callable(policy):
        return "nothing: a callable, identified by its name"
    if policy_hash(policy) is None:
        return "nothing: a bot object, identified by its name (give its name or file to hash it)"
    return "the weights (state dict)"


def reading_of(bot: Any) -> dict[str, Any]:
    """What a bot reads, as a result records it: a policy's :class:`~tablezoo.evaluation.reading.Reading`,
    or a bot's own reading of its seat."""
    reading = getattr(bot, "reading", None)
    if isinstance(reading, Reading):
        return reading.as_dict()
    return {"observation": "its own", "scaled": None, "declared_by": "a bot: it reads its seat itself"}


def policy_record(
    policy: Any,
    game_name: str,
    bot: Any,
    name: str | None = None,
    training_seed: int | None = None,
    folder: Path | None = None,
    training_budget: int | None = None,
) -> dict[str, Any]:
    """A policy as a result records it: its name, what it was given as (:func:`portable` to the
    result's ``folder``), a hash of its weights, what was hashed, what it reads and (if told) the
    training seed and budget it came from."""
    if _plain_callable(policy) and not (name or getattr(policy, "name", None)):
        raise ConfigError(
            "a callable has no weights to hash: give it a name that identifies it "
            "(run_protocol(..., name='my-policy-v3'), or a .name attribute)"
        )
    given = portable(str(policy), folder) if isinstance(policy, (str, Path)) else f"<{type(policy).__name__}>"
    record = {
        "name": name or policy_name(policy),
        "given": given,
        "sha256": policy_hash(policy, game_name),
        "hashed": _hashed(policy, game_name),
        "input": reading_of(bot),
        "training_seed": training_seed,
    }
    if training_budget is not None:
        record["training_budget"] = training_budget
    return record
