"""compose.yaml and the Dockerfile agree with each other and with the site's command line: the
site's --database and --broker name the postgres and redis services with their credentials, the
site waits for both to be healthy, and the image installs the web and cluster extras. (No Docker
engine is needed: the files are read, not run.)"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    return dict(yaml.safe_load((ROOT / "compose.yaml").read_text()))


def _command(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else [str(word) for word in command]


def _option(command: list[str], name: str) -> str:
    assert command.count(name) == 1, f"the site's command gives {name} once: {command}"
    return command[command.index(name) + 1]


def test_the_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"site", "postgres", "redis"}
    assert services["postgres"]["image"] == "postgres:15"
    assert services["redis"]["image"] == "redis:7"
    build = services["site"]["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
    assert (ROOT / context / dockerfile).is_file()


def test_the_site_waits_for_healthy_servers(compose: dict[str, Any]) -> None:
    services = compose["services"]
    depends = services["site"]["depends_on"]
    assert depends == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    postgres_check = " ".join(services["postgres"]["healthcheck"]["test"])
    assert "pg_isready" in postgres_check
    assert services["redis"]["healthcheck"]["test"][-2:] == ["redis-cli", "ping"]


def test_postgres_keeps_its_data_in_a_named_volume(compose: dict[str, Any]) -> None:
    volumes = compose["services"]["postgres"]["volumes"]
    named = [v.split(":")[0] for v in volumes if ":/var/lib/postgresql/data" in v]
    assert named and named[0] in (compose.get("volumes") or {})


def test_the_sites_command_names_the_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    command = _command(services["site"])
    assert command[:2] == ["tablezoo", "serve"]
    assert _option(command, "--host") == "0.0.0.0"
    port = _option(command, "--port")
    assert any(str(mapping).endswith(f":{port}") for mapping in services["site"]["ports"])
    assert int(_option(command, "--workers")) >= 2
    assert "localhost" in command[command.index("--allow-host") + 1 :]

    env = services["postgres"]["environment"]
    database = urlsplit(_option(command, "--database"))
    assert database.scheme == "postgresql" and database.hostname == "postgres"
    assert database.port == 5432
    assert (database.username, database.password) == (env["POSTGRES_USER"], env["POSTGRES_PASSWORD"])
    assert database.path == "/" + env["POSTGRES_DB"]

    broker = urlsplit(_option(command, "--broker"))
    assert (broker.scheme, broker.hostname, broker.port) == ("redis", "redis", 6379)


def test_the_sites_command_is_one_tablezoo_serve_reads(compose: dict[str, Any]) -> None:
    """Parsed by the real command line, once it has the options of the multi-process mode."""
    from tablezoo.tables.server import add_serve_parser

    parser = argparse.ArgumentParser(prog="tablezoo")
    serve = add_serve_parser(parser.add_subparsers())
    known = {option for action in serve._actions for option in action.option_strings}
    if not {"--database", "--broker", "--workers"} <= known:
        pytest.skip("tablezoo serve has no --database/--broker/--workers yet")
    args = parser.parse_args(_command(compose["services"]["site"])[1:])
    assert args.workers >= 2


def test_the_image_installs_the_web_and_cluster_extras() -> None:
    text = (ROOT / "Dockerfile").read_text()
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    code = "\n".join(lines)
    assert re.search(r"^FROM python:3\.11-slim\b", code, re.M)
    assert re.search(r"apt-get install .*\bg\+\+", code), "g++ builds the native core"
    installs = re.findall(r"pip install [^\n]*", code)
    assert any("[web,cluster]" in line for line in installs), installs
    assert "torch" not in code, "the site needs no torch"


def test_the_build_context_leaves_out_the_local_files() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".venv", ".git", "build", "site", "runs"} <= ignored
    for needed in ("pyproject.toml", "setup.py", "README.md", "native", "games", "tables"):
        assert needed not in ignored and (ROOT / needed).exists()
