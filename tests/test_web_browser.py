"""The web board in a real browser (Debian's headless Chromium driven by Playwright), as a person uses it: play Monte
by clicking to the end of the game, watch two engines play, replay a tournament game move by move, be refused an
occupied point and a forbidden renju point, and close the tab while Monte thinks -- its process must go with it.

Each test saves a screenshot of its view in ``build/screenshots/`` (or $MONTE_SCREENSHOTS) for a person to look at.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from monte.tournaments.records import read_jsonl
from web_support import CHROMIUM_ARGS, SCREENSHOTS, Gui, alive, chromium, fake_engine, running_gui, wait_for

STEP_TIMEOUT_MS = 30_000
CELL, MARGIN = 32, 44
"""The board's drawing (web/static/app.js): pixels between lines, and from the edge to the first line."""
RANDOM = "random=pbrain-monte --engine random"


@pytest.fixture(scope="module")
def browser() -> Browser:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def runs(monte_executable: str, warm_pbrain: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with one real tournament run: greedy against random, two games on 9x9."""
    folder = tmp_path_factory.mktemp("runs")
    subprocess.run([monte_executable, "tournament", "--engine", "greedy=pbrain-monte --engine greedy",
                    "--engine", RANDOM, "--games", "2", "--width", "9", "--timeout-turn-ms", "100",
                    "--concurrency", "2", "--out", str(folder / "demo")],
                   check=True, capture_output=True, timeout=120)
    return folder


@pytest.fixture(scope="module")
def gui(monte_executable: str, warm_pbrain: str, runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Gui:
    with running_gui(monte_executable, tmp_path_factory.mktemp("gui"), "--runs", str(runs), "--engine", RANDOM,
                     "--engine", fake_engine("crasher", "crash", "--at", "2")) as server:
        yield server


@pytest.fixture
def page(browser: Browser, gui: Gui) -> Page:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(STEP_TIMEOUT_MS)
    page.goto(gui.url)
    page.wait_for_selector("#black option", state="attached")
    yield page
    context.close()
    assert not errors, f"the page's script failed: {errors}"


def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def new_game(page: Page, black: str, white: str, size: int, rule: str = "freestyle", seconds: float = 0.1) -> None:
    page.select_option("#black", black)
    page.select_option("#white", white)
    page.fill("#size", str(size))
    page.select_option("#rule", rule)
    page.fill("#time", str(seconds))
    page.click("#new-game")


def stones(page: Page) -> list[tuple[int, int, int]]:
    """The stones on the play board, as drawn."""
    return [tuple(stone) for stone in page.eval_on_selector_all(
        "#play-board circle.stone", "nodes => nodes.map(n => [+n.dataset.x, +n.dataset.y, +n.dataset.color])")]


def click(page: Page, x: int, y: int) -> None:
    page.click(f'#play-board rect.hit[data-x="{x}"][data-y="{y}"]')


def status(page: Page) -> str:
    return page.inner_text("#status")


def test_a_person_plays_monte_to_the_end_by_clicking(page: Page) -> None:
    new_game(page, "human", "monte", 9)
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Your move (black)')")
    order = [(x, y) for y in range(9) for x in range(9)]  # the person plays along the top rows, Monte answers
    saw_search = saw_line = False
    for _ in range(41):
        if page.query_selector("#status.over"):
            break
        taken = {(x, y) for x, y, _ in stones(page)}
        count = len(taken)
        x, y = next(point for point in order if point not in taken)
        click(page, x, y)
        page.wait_for_function(
            f"document.querySelectorAll('#play-board circle.stone').length >= {count + 2} "
            "|| document.querySelector('#status.over')")
        assert (x, y, 1) in stones(page), "the clicked point holds the person's stone"
        if page.query_selector("#status.over") is None:
            assert status(page) == "Your move (black)"
            saw_search = saw_search or page.inner_text("#search").startswith("monte: depth ")
            if not saw_line and page.locator("#play-board circle.pv").count():
                saw_line = True
                screenshot(page, "play-monte-line")
    assert page.query_selector("#status.over"), "the game ended"
    message = status(page)
    assert message in ("White (monte) wins: five in a row.", "Black (you) wins: five in a row."), message
    assert page.locator("#play-board .win-line").count() == 1, "the winning line is drawn"
    assert saw_search, "Monte's depth, win rate and line were shown after its moves"
    assert saw_line, "the line Monte expects was drawn faintly on the board"
    page.check("#numbers")
    screenshot(page, "play-person-vs-monte")
    with page.expect_download() as download:
        page.click("#save-psq")
    saved = Path(download.value.path()).read_text()
    assert saved.startswith("Piskvorky 9x9") and saved.count("\n") == len(stones(page)) + 3


def test_watch_monte_beat_random_and_save_the_game(page: Page) -> None:
    new_game(page, "monte", "random", 9)
    page.wait_for_selector("#status.over")
    assert status(page) == "Black (monte) wins: five in a row."
    ends = page.eval_on_selector(".win-line", "n => ['x1', 'y1', 'x2', 'y2'].map(a => +n.getAttribute(a))")
    (x1, y1), (x2, y2) = [((ends[i] - MARGIN) / CELL, (ends[i + 1] - MARGIN) / CELL) for i in (0, 2)]
    black = {(x, y) for x, y, color in stones(page) if color == 1}
    assert {(x1, y1), (x2, y2)} <= black and max(abs(x2 - x1), abs(y2 - y1)) == 4, "drawn along black's five"
    screenshot(page, "watch-monte-vs-random")
    with page.expect_download() as download:
        page.click("#save-sgf")
    saved = Path(download.value.path())
    sgf = saved.read_text()
    assert "PB[monte]" in sgf and "PW[random]" in sgf and "RE[B+]" in sgf
    assert sgf.count(";B[") + sgf.count(";W[") == len(stones(page))
    played = [list(stone) for stone in stones(page)]
    page.set_input_files("#load", files=[{"name": "watched.sgf", "mimeType": "text/plain", "buffer": sgf.encode()}])
    page.wait_for_function(f"document.querySelectorAll('#replay-board circle.stone').length === {len(played)}")
    assert page.eval_on_selector_all("#replay-board circle.stone",
                                     "ns => ns.map(n => [+n.dataset.x, +n.dataset.y, +n.dataset.color])") == played
    assert page.inner_text("#replay-title") == "watched.sgf: monte (black) vs random (white)"
    assert page.locator("#replay-board .win-line").count() == 1


def test_replay_a_tournament_game_step_by_step(page: Page, runs: Path) -> None:
    record = read_jsonl(runs / "demo" / "games.jsonl")[0]
    page.click("#tab-replay")
    row = page.locator(f'#games tbody tr[data-id="{record.game_id}"]')
    row.wait_for()
    assert row.locator("td").all_inner_texts() == [
        str(record.game_id), record.black, record.white, "1-0" if record.winner == record.black else "0-1",
        record.termination.value, str(len(record.moves))]
    row.click()
    total = len(record.moves)
    replay_stones = "#replay-board circle.stone"
    page.wait_for_function(f"document.querySelectorAll('{replay_stones}').length === {total}")
    drawn = page.eval_on_selector_all(replay_stones, "ns => ns.map(n => [+n.dataset.x, +n.dataset.y])")
    assert drawn == [[x, y] for x, y, _ in record.moves], "the stones of the record, in its order"
    assert page.locator("#replay-board .win-line").count() == 1
    x, y, ms = record.moves[-1]
    assert page.inner_text("#replay-step").endswith(f"({'black' if total % 2 else 'white'}), {ms} ms")
    page.keyboard.press("ArrowLeft")
    assert page.locator(replay_stones).count() == total - 1
    assert page.inner_text("#replay-step").startswith(f"Move {total - 1} of {total}")
    assert page.locator("#replay-board .win-line").count() == 0
    page.keyboard.press("Home")
    assert page.locator(replay_stones).count() == 0
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator(replay_stones).count() == 2
    screenshot(page, "replay-tournament-game")
    page.click("#play-from-here")  # two people go on from the second move
    page.wait_for_function("document.querySelectorAll('#play-board circle.stone').length === 2")
    assert [s[:2] for s in stones(page)] == [move[:2] for move in record.moves[:2]]


def test_occupied_and_forbidden_points_are_refused(page: Page) -> None:
    new_game(page, "human", "human", 15, rule="renju")
    page.wait_for_function("document.querySelector('#status').textContent === 'Black to move'")
    # black: F8 G8 and H10 H9 around H8, white far away; H8 then makes two open threes
    for number, (x, y) in enumerate([(5, 7), (0, 0), (6, 7), (14, 0), (7, 5), (0, 14), (7, 6), (14, 14)], 1):
        click(page, x, y)
        page.wait_for_function(f"document.querySelectorAll('#play-board circle.stone').length === {number}")
    assert page.locator('#play-board .forbidden[data-x="7"][data-y="7"]').count() == 1
    click(page, 7, 7)
    page.wait_for_function("document.querySelector('#error').textContent !== ''")
    assert page.inner_text("#error") == ("H8 is forbidden for black under renju (double three, double four or "
                                         "overline)")
    screenshot(page, "renju-forbidden-point")
    click(page, 5, 7)
    page.wait_for_function("document.querySelector('#error').textContent === 'F8 is occupied'")
    assert len(stones(page)) == 8 and status(page) == "Black to move"
    click(page, 7, 8)
    page.wait_for_function("document.querySelectorAll('#play-board circle.stone').length === 9")


def test_a_crashing_engine_loses_with_its_reason_on_the_page(page: Page, gui: Gui) -> None:
    new_game(page, "human", "crasher", 9)
    click(page, 4, 4)
    page.wait_for_function("document.querySelectorAll('#play-board circle.stone').length === 2")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Your move')")
    click(page, 0, 0)
    page.wait_for_selector("#status.over")
    assert status(page).startswith("Black (you) wins: white (crasher): crash: ")
    screenshot(page, "engine-crashed")
    wait_for(lambda: not gui.engines(), 10, "the crashed engine reaped")


def test_closing_the_tab_while_monte_thinks_stops_it(page: Page, gui: Gui) -> None:
    new_game(page, "human", "monte", 15, seconds=60)
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Your move')")
    click(page, 7, 7)
    page.wait_for_function("document.querySelector('#status').textContent.includes('(monte) is thinking')")
    screenshot(page, "monte-thinking")
    engines = wait_for(gui.engines, 10, "Monte's process running while it thinks")
    page.close()
    wait_for(lambda: not any(alive(pid) for pid in engines), 10, "Monte's process gone after the tab closed")
    assert not gui.engines()
