"""The site played end to end in headless Chromium against the real server: Diamant by one
person with two bots (move buttons and the command line), and each of the four games by two
people in two browsers with a bot, clicking the pieces of the drawn board.

Screenshots of each board mid-game and at the end are saved under ``test-artifacts/browser/``
at the top of the repository (git-ignored), or under ``$TABLEZOO_ARTIFACTS`` when it is set.

Needs Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromium``,
``/usr/bin/chromedriver``); without them the test is skipped, unless
``TABLEZOO_REQUIRE_BROWSER=1`` makes that a failure.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
MOVES = "#moves button.move"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
NAME = "<b>Tester</b>"
PIECES = "#render [data-command]"
ARTIFACTS = Path(
    os.environ.get("TABLEZOO_ARTIFACTS") or Path(__file__).resolve().parents[2] / "test-artifacts"
)


def _need_browser() -> None:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if missing:
        message = f"the browser test needs {' and '.join(missing)} (apt install chromium chromium-driver)"
        if os.environ.get("TABLEZOO_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def base_url(tmp_path: Path) -> Iterator[str]:
    """The real server (uvicorn) on a free port, in a background thread."""
    import uvicorn

    from tablezoo.tables.server import create_app

    port = _free_port()
    config = uvicorn.Config(
        create_app(str(tmp_path / "tables.sqlite3")), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def _chromium(profile: Path) -> object:
    """A headless Chromium with its own profile (its own localStorage: its own client token)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--window-size=1200,900",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_page_load_timeout(20)
    return browser


@pytest.fixture
def driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    _need_browser()
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager must never fetch a browser or driver
    browser = _chromium(tmp_path / "chromium-profile")
    try:
        yield browser
    finally:
        browser.quit()  # type: ignore[attr-defined]


@pytest.fixture
def two_drivers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[object, object]]:
    _need_browser()
    monkeypatch.setenv("SE_OFFLINE", "true")
    first = _chromium(tmp_path / "profile-1")
    try:
        second = _chromium(tmp_path / "profile-2")
        try:
            yield first, second
        finally:
            second.quit()  # type: ignore[attr-defined]
    finally:
        first.quit()  # type: ignore[attr-defined]


def _fresh(read: Callable[[], T]) -> T:
    """``read()`` again when the page redrew the elements it was reading (a new view came in)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(50):
        try:
            return read()
        except StaleElementReferenceException:
            time.sleep(0.02)
    return read()


def test_a_game_of_diamant_in_the_browser(base_url: str, driver: object) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import Select, WebDriverWait

    assert isinstance(driver, WebDriver)
    wait = WebDriverWait(driver, 10, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException])

    def text(element_id: str) -> str:
        return _fresh(lambda: driver.find_element(By.ID, element_id).text)

    def seats() -> list[str]:
        return _fresh(lambda: [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#seats li")])

    # The lobby: create a table of Diamant; the page goes to it.
    driver.get(base_url + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game-select option[value=diamant]"))
    Select(driver.find_element(By.ID, "game-select")).select_by_value("diamant")
    driver.find_element(By.ID, "create").click()
    wait.until(lambda d: "/table/" in d.current_url)
    wait.until(lambda d: text("phase") == "waiting")

    # Join with a name full of HTML: it shows as text.
    driver.find_element(By.ID, "name").send_keys(NAME)
    driver.find_element(By.ID, "join").click()
    wait.until(lambda d: len(seats()) == 1)
    assert seats()[0].startswith(NAME) and "(you)" in seats()[0]
    assert not driver.find_elements(By.CSS_SELECTOR, "#seats b")

    # Two bots (Diamant is for 3 to 8 players), then start.
    Select(driver.find_element(By.ID, "bot-select")).select_by_value("random")
    for count in (2, 3):
        driver.find_element(By.ID, "add-bot").click()
        wait.until(lambda d, count=count: len(seats()) == count)
    driver.find_element(By.ID, "start").click()
    wait.until(lambda d: text("phase") in ("playing", "finished"))

    # Click the move buttons (going on now and then, mostly back to camp) until the game is over.
    clicks = 0
    deadline = time.monotonic() + 40
    while text("phase") != "finished":
        assert time.monotonic() < deadline, "the game did not finish in time"
        try:
            buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, MOVES) if b.is_enabled()]
            if not buttons:
                time.sleep(0.05)
                continue
            commands = [b.get_attribute("data-command") for b in buttons]
            pick = "go" if clicks % 3 == 0 and "go" in commands else commands[-1]
            buttons[commands.index(pick)].click()
            clicks += 1
        except StaleElementReferenceException:  # the view was redrawn under us
            continue
    assert clicks > 0
    lines = _fresh(lambda: [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#log li")])
    assert lines[-1].startswith("Game over"), lines[-3:]
    assert not driver.find_elements(By.CSS_SELECTOR, "#moves button.move")

    # The command line answers too, and the replay of our seat opens after the game.
    driver.find_element(By.ID, "command").send_keys("/status")
    driver.find_element(By.ID, "send").click()
    wait.until(lambda d: "Diamant (finished)" in text("reply"))
    driver.find_element(By.ID, "replay-load").click()
    wait.until(lambda d: text("replay-step").startswith("0/"))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#replay svg"))  # the board of step 0
    driver.find_element(By.ID, "replay-next").click()
    wait.until(lambda d: text("replay-step").startswith("1/"))


def test_two_browsers_and_a_bot_finish_a_game(base_url: str, two_drivers: tuple[object, object]) -> None:
    # Ann and Bob, each in a browser of their own, and a heuristic bot play Diamant to the end.
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    ann, bob = two_drivers
    waits = {
        id(d): WebDriverWait(d, 10, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException])
        for d in two_drivers
    }

    def text(d: Any, element_id: str) -> str:
        return _fresh(lambda: d.find_element(By.ID, element_id).text)

    def seats(d: Any) -> list[str]:
        return _fresh(lambda: [li.text for li in d.find_elements(By.CSS_SELECTOR, "#seats li")])

    ann.get(base_url + "/")
    waits[id(ann)].until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game-select option[value=diamant]"))
    Select(ann.find_element(By.ID, "game-select")).select_by_value("diamant")
    ann.find_element(By.ID, "create").click()
    waits[id(ann)].until(lambda d: "/table/" in d.current_url)
    bob.get(ann.current_url)
    for d, name in ((ann, "Ann"), (bob, "Bob")):
        waits[id(d)].until(lambda d: text(d, "phase") == "waiting")
        d.find_element(By.ID, "name").send_keys(name)
        d.find_element(By.ID, "join").click()
        waits[id(d)].until(lambda d, name=name: any(s.startswith(name) and "(you)" in s for s in seats(d)))
    Select(bob.find_element(By.ID, "bot-select")).select_by_value("heuristic")
    bob.find_element(By.ID, "add-bot").click()
    waits[id(ann)].until(lambda d: len(seats(d)) == 3)  # Ann's page hears of Bob's bot
    ann.find_element(By.ID, "start").click()
    for d in two_drivers:
        waits[id(d)].until(lambda d: text(d, "phase") in ("playing", "finished"))

    deadline = time.monotonic() + 60
    clicks = {id(ann): 0, id(bob): 0}
    while not all(text(d, "phase") == "finished" for d in two_drivers):
        assert time.monotonic() < deadline, "the game did not finish in time"
        moved = False
        for d in two_drivers:
            try:
                buttons = [b for b in d.find_elements(By.CSS_SELECTOR, MOVES) if b.is_enabled()]
                commands = [b.get_attribute("data-command") for b in buttons]
                if commands:
                    pick = "go" if clicks[id(d)] % 2 == 0 and "go" in commands else commands[-1]
                    buttons[commands.index(pick)].click()
                    clicks[id(d)] += 1
                    moved = True
            except StaleElementReferenceException:
                continue
        if not moved:
            time.sleep(0.05)
    assert clicks[id(ann)] > 0 and clicks[id(bob)] > 0
    for d, other in ((ann, "Bob"), (bob, "Ann")):
        lines = _fresh(lambda d=d: [li.text for li in d.find_elements(By.CSS_SELECTOR, "#log li")])
        assert lines[-1].startswith("Game over"), lines[-3:]
        # the other person's secret choices reached this browser as "has chosen", then in the reveal
        assert not any(line in (f"{other}: go", f"{other}: camp") for line in lines)
        assert f"{other} has chosen." in lines
        assert any(line.startswith("Revealed: ") and f"{other} " in line for line in lines)


# What each person clicks first, by the start of the command: a drawn piece where there is
# one, else a move button (Court's roll, pass and done have no piece of their own).
PREFERENCES = {
    "heckmeck": ("take", "steal", "keep worm", "keep 5", "keep 4", "keep", "roll"),
    "sechs_nimmt": ("play", "row", "pick"),
    "diamant": ("go", "camp"),
    "court": ("take ", "aside all", "aside ", "die ", "pass", "done", "roll"),
}
OFFERED = """
const words = (selector) => Array.from(document.querySelectorAll(selector))
  .filter((e) => !e.disabled).map((e) => e.getAttribute("data-command"));
return [words(arguments[0]), words(arguments[1]), document.getElementById("render").dataset.version || ""];
"""
CHANGED = """
const version = document.getElementById("render").dataset.version || "";
const reply = document.getElementById("reply").textContent;
return version !== arguments[0] || reply.startsWith("too") || reply.startsWith("it is");
"""
OVERFLOW = """
const svg = document.querySelector("#render svg");
const width = svg.viewBox.baseVal.width;
const out = (b, left, right) => b.x < left - 0.5 || b.x + b.width > right + 0.5;
const bad = [];
for (const text of svg.querySelectorAll("text")) {
  const box = text.getBBox();
  const card = text.parentElement.closest("g")?.querySelector("rect");
  if (out(box, 0, width)) bad.push(`${text.textContent}: past the board`);
  else if (card && out(box, card.getBBox().x, card.getBBox().x + card.getBBox().width))
    bad.push(`${text.textContent}: past its piece`);
}
return bad;
"""
"""The texts of the drawn board that run past the piece they label, or past the board."""
GAME_SETUP = {  # options and the bot: a short game that still shows every kind of piece
    "heckmeck": (["quick"], "random"),
    "sechs_nimmt": ([], "random"),
    "diamant": ([], "random"),
    "court": ([], "heuristic"),
}


def _choose(game: str, pieces: list[str], buttons: list[str], clicks: int) -> tuple[str, bool]:
    """The command to play and whether it is a drawn piece."""
    if game == "diamant":  # go on now and then, mostly back to camp
        want = "go" if clicks % 3 == 0 else "camp"
        return want, want in pieces
    for prefix in PREFERENCES[game]:
        for command in pieces:
            if command.startswith(prefix):
                return command, True
        for command in buttons:
            if command.startswith(prefix):
                return command, False
    return buttons[0], False


@pytest.mark.parametrize("game", ["heckmeck", "sechs_nimmt", "diamant", "court"])
def test_two_browsers_play_a_game_by_clicking_the_board(
    game: str, base_url: str, two_drivers: tuple[object, object]
) -> None:
    from selenium.common.exceptions import (
        ElementNotInteractableException,
        NoSuchElementException,
        StaleElementReferenceException,
    )
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    ann, bob = two_drivers
    shots = ARTIFACTS / "browser"
    shots.mkdir(parents=True, exist_ok=True)
    options, bot = GAME_SETUP[game]

    def wait(d: Any, seconds: float = 10) -> Any:
        return WebDriverWait(
            d, seconds, poll_frequency=0.03, ignored_exceptions=[StaleElementReferenceException]
        )

    def text(d: Any, element_id: str) -> str:
        return _fresh(lambda: d.find_element(By.ID, element_id).text)

    # Ann makes the table in the lobby (with the game's options), Bob opens its address.
    ann.get(base_url + "/")
    wait(ann).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#game-select option[value={game}]"))
    Select(ann.find_element(By.ID, "game-select")).select_by_value(game)
    for option in options:
        box = ann.find_element(By.ID, f"option-{option}")
        if not box.is_selected():
            box.click()
    ann.find_element(By.ID, "create").click()
    wait(ann).until(lambda d: "/table/" in d.current_url)
    bob.get(ann.current_url)
    for d, name in ((ann, "Ann"), (bob, "Bob")):
        wait(d).until(lambda d: text(d, "phase") == "waiting")
        d.find_element(By.ID, "name").send_keys(name)
        d.find_element(By.ID, "join").click()
        wait(d).until(
            lambda d, name=name: any(name in li.text for li in d.find_elements(By.CSS_SELECTOR, "#seats li"))
        )
    Select(bob.find_element(By.ID, "bot-select")).select_by_value(bot)
    bob.find_element(By.ID, "add-bot").click()
    wait(ann).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#seats li")) == 3)
    ann.find_element(By.ID, "start").click()
    for d in two_drivers:
        wait(d).until(lambda d: text(d, "phase") in ("playing", "finished"))

    clicks = {id(ann): 0, id(bob): 0}
    by_piece, by_key, mid_shot = 0, 0, False
    deadline = time.monotonic() + 150
    while not all(text(d, "phase") == "finished" for d in two_drivers):
        assert time.monotonic() < deadline, f"the game of {game} did not finish in time"
        moved = False
        for d in two_drivers:
            try:
                # what the page offers, read in one call: the drawn pieces, the move buttons, the version
                piece_words, button_words, before = d.execute_script(OFFERED, PIECES, MOVES)
                if not piece_words and not button_words:
                    continue
                command, is_piece = _choose(game, piece_words, button_words, clicks[id(d)])
                where = PIECES if is_piece else MOVES
                element = d.find_element(By.CSS_SELECTOR, f'{where}[data-command="{command}"]')
                if is_piece and by_key == 0 and by_piece >= 3:  # once per game, a piece by the keyboard
                    element.send_keys(Keys.ENTER)
                    by_key += 1
                else:
                    element.click()
                by_piece += is_piece
                clicks[id(d)] += 1
                moved = True
                wait(d).until(lambda d, before=before: d.execute_script(CHANGED, before))
                if not mid_shot and sum(clicks.values()) >= 6:
                    for who, drv in (("ann", ann), ("bob", bob)):
                        drv.save_screenshot(str(shots / f"{game}-{who}-mid.png"))
                        assert not drv.execute_script(OVERFLOW)
                    mid_shot = True
            except (StaleElementReferenceException, ElementNotInteractableException, NoSuchElementException):
                continue  # the board was redrawn under us: look again
        if not moved:
            time.sleep(0.03)

    assert clicks[id(ann)] > 0 and clicks[id(bob)] > 0
    assert by_piece > clicks[id(ann)] and by_key == 1  # mostly by the drawn board, once by the keyboard
    for who, d in (("ann", ann), ("bob", bob)):
        wait(d).until(lambda d: "Game over" in text(d, "render"))
        d.save_screenshot(str(shots / f"{game}-{who}-end.png"))
        lines = _fresh(lambda d=d: [li.text for li in d.find_elements(By.CSS_SELECTOR, "#log li")])
        assert lines[-1].startswith("Game over"), lines[-3:]
        assert not any("seat " in line and "rolled" in line for line in lines)  # rolls by name
        board = text(d, "render")
        assert "Ann" in board and "Bob" in board and "seat 0" not in board
        assert not d.find_elements(By.CSS_SELECTOR, PIECES)  # nothing to click after the end
        if game in ("sechs_nimmt", "diamant"):  # the face-down choices are revealed in the log
            assert any(line.startswith("Revealed: Ann ") for line in lines)
        if game in ("heckmeck", "court"):
            assert any(line.startswith(("Ann rolled", "Bob rolled")) for line in lines)
    assert (shots / f"{game}-ann-mid.png").stat().st_size > 1000


@pytest.mark.parametrize(
    ("game", "seats"), [("heckmeck", 2), ("sechs_nimmt", 2), ("diamant", 3), ("court", 2)]
)
def test_the_table_fits_a_phone(game: str, seats: int, base_url: str, driver: object) -> None:
    # A phone-sized window: no sideways scrolling; the board is drawn to the width, and no text
    # runs past its piece (To Court the King's court shows every card's cost and ability).
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import WebDriverWait

    assert isinstance(driver, WebDriver)
    import json
    import urllib.request

    request = urllib.request.Request(
        base_url + "/api/tables",
        data=json.dumps({"game": game}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        table_id = json.loads(response.read())["id"]
    driver.set_window_size(390, 844)
    driver.get(f"{base_url}/table/{table_id}")
    wait = WebDriverWait(driver, 10, poll_frequency=0.05)
    wait.until(lambda d: d.find_element(By.ID, "phase").text == "waiting")
    driver.find_element(By.ID, "name").send_keys("Ann")
    driver.find_element(By.ID, "join").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#seats li"))
    for bots in range(1, seats):
        driver.find_element(By.ID, "add-bot").click()
        wait.until(lambda d, bots=bots: len(d.find_elements(By.CSS_SELECTOR, "#seats li")) == bots + 1)
    driver.find_element(By.ID, "start").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, PIECES))
    width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
    board = driver.find_element(By.CSS_SELECTOR, "#render svg")
    assert 300 <= board.size["width"] <= 390
    assert not driver.execute_script(OVERFLOW)
    shots = ARTIFACTS / "browser"
    shots.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(shots / f"{game}-phone.png"))
