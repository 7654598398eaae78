"""One game of Diamant played end to end in headless Chromium against the real server.

Needs Debian's ``chromium`` and ``chromium-driver`` (``/usr/bin/chromium``,
``/usr/bin/chromedriver``); without them the test is skipped, unless
``TABLEZOO_REQUIRE_BROWSER=1`` makes that a failure.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
NAME = "<b>Tester</b>"


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


@pytest.fixture
def driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager must never fetch a browser or driver
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
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_page_load_timeout(20)
    try:
        yield browser
    finally:
        browser.quit()


def test_a_game_of_diamant_in_the_browser(base_url: str, driver: object) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.ui import Select, WebDriverWait

    assert isinstance(driver, WebDriver)
    wait = WebDriverWait(driver, 10, poll_frequency=0.05)

    def text(element_id: str) -> str:
        return driver.find_element(By.ID, element_id).text

    def seats() -> list[str]:
        return [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#seats li")]

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
        buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, "#moves button.move") if b.is_enabled()]
        if not buttons:
            time.sleep(0.05)
            continue
        try:
            commands = [b.get_attribute("data-command") for b in buttons]
            pick = "go" if clicks % 3 == 0 and "go" in commands else commands[-1]
            buttons[commands.index(pick)].click()
            clicks += 1
        except StaleElementReferenceException:  # the view was redrawn under us
            continue
    assert clicks > 0
    lines = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#log li")]
    assert lines[-1].startswith("Game over"), lines[-3:]
    assert not driver.find_elements(By.CSS_SELECTOR, "#moves button.move")

    # The command line answers too, and the replay of our seat opens after the game.
    driver.find_element(By.ID, "command").send_keys("/status")
    driver.find_element(By.ID, "send").click()
    wait.until(lambda d: "Diamant (finished)" in text("reply"))
    driver.find_element(By.ID, "replay-load").click()
    wait.until(lambda d: text("replay-step").startswith("0/"))
