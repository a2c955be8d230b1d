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
                     "--engine", fake_engine("crasher", "crash", "--at", "2"),
                     "--engine", fake_engine("squatter", "occupied", "--at", "2")) as server:
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
            saw_search = saw_search or page.inner_text("#search").startswith("monte: win rate ")
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


# --- the board as a player expects it (issue 22) -------------------------------------------------------------------

def wait_stones(page: Page, count: int, board: str = "play-board") -> None:
    page.wait_for_function(f"document.querySelectorAll('#{board} circle.stone').length === {count}")


def open_with(page: Page, white: str, size: int, x: int, y: int) -> None:
    """A new game, the person black against `white` (an engine, or "human"), the first stone clicked on (x, y) and
    the board's answer awaited (the engine's move too)."""
    new_game(page, "human", white, size)
    page.wait_for_function("['Your move (black)', 'Black to move']"
                           ".includes(document.querySelector('#status').textContent)")
    click(page, x, y)
    wait_stones(page, 1 if white == "human" else 2)


def replayed(page: Page, record) -> int:
    """Open tournament game `record` in Replay, at its end; its number of moves."""
    page.click("#tab-replay")
    page.locator(f'#games tbody tr[data-id="{record.game_id}"]').click()
    wait_stones(page, len(record.moves), "replay-board")
    return len(record.moves)


def test_undo_takes_the_moves_search_and_line_with_it(page: Page) -> None:
    open_with(page, "monte", 9, 4, 4)
    page.wait_for_function("document.querySelector('#search').textContent.startsWith('monte: ')")
    assert page.locator("#play-board circle.pv").count() > 0
    page.click("#undo")
    wait_stones(page, 0)
    assert page.inner_text("#search") == "" and page.locator("#play-board circle.pv").count() == 0
    screenshot(page, "undo-clears-the-search")


def test_the_line_is_numbered_alike_in_text_and_on_the_board_and_can_be_hidden(page: Page) -> None:
    open_with(page, "monte", 9, 4, 4)
    page.wait_for_function("document.querySelector('#search').textContent.includes('line 1.')")
    first = page.inner_text("#search").split("line 1.")[1].split()[0]  # e.g. E6
    ghost = page.eval_on_selector("#play-board circle.pv", "n => [+n.getAttribute('cx'), +n.getAttribute('cy')]")
    column, row = (ghost[0] - MARGIN) // CELL, (ghost[1] - MARGIN) // CELL
    assert first == f"{'ABCDEFGHI'[int(column)]}{9 - int(row)}", "the text's move 1 is the ghost stone numbered 1"
    page.uncheck("#show-line")
    assert page.locator("#play-board circle.pv").count() == 0, "the main line's ghost stones turned off"
    page.check("#show-line")
    assert page.locator("#play-board circle.pv").count() > 0


def test_points_on_the_page_are_named_as_on_the_board(page: Page) -> None:
    new_game(page, "human", "squatter", 9)
    click(page, 4, 4)
    wait_stones(page, 2)
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Your move')")
    click(page, 0, 0)
    page.wait_for_selector("#status.over")
    message = status(page)  # the engine answered the person's A9 (the protocol's 0,0)
    assert "occupied" in message and "A9" in message and "0,0" not in message, message


def test_a_loaded_game_shows_its_move_numbers_and_result_and_garbage_is_refused(page: Page) -> None:
    new_game(page, "human", "human", 9)
    page.wait_for_function("document.querySelector('#status').textContent === 'Black to move'")
    for number, (x, y) in enumerate([(0, 8), (0, 0), (1, 8), (1, 0), (2, 8), (2, 0), (3, 8), (3, 0), (4, 8)], 1):
        click(page, x, y)
        wait_stones(page, number)
    page.wait_for_selector("#status.over")
    assert status(page) == "Black wins: five in a row."
    with page.expect_download() as download:
        page.click("#save-sgf")
    sgf = Path(download.value.path()).read_text()
    page.set_input_files("#load", files=[{"name": "five.sgf", "mimeType": "text/plain", "buffer": sgf.encode()}])
    wait_stones(page, 9, "replay-board")
    assert "Black won" in page.inner_text("#replay-result") and "Void" not in page.inner_text("#replay-result")
    assert page.inner_text("#replay-step") == "Move 9 of 9: E1 (black)"
    moves = page.locator("#replay-moves li").all_inner_texts()
    assert moves[0] == "A1 black" and "opening" not in " ".join(moves)
    screenshot(page, "replay-loaded-sgf")
    page.click("#tab-play")
    page.set_input_files("#load", files=[{"name": "junk.sgf", "mimeType": "text/plain",
                                          "buffer": b"this is not (a game; at all)"}])
    page.wait_for_function("document.querySelector('#error').textContent.startsWith('junk.sgf: ')")
    assert "not an SGF game" in page.inner_text("#error")


def test_an_error_clears_once_a_later_action_succeeds_and_numbers_are_readable(page: Page) -> None:
    open_with(page, "human", 9, 4, 4)
    click(page, 4, 4)
    page.wait_for_function("document.querySelector('#error').textContent === 'E5 is occupied'")
    click(page, 3, 3)
    wait_stones(page, 2)
    page.wait_for_function("document.querySelector('#error').textContent === ''")
    click(page, 5, 5)
    wait_stones(page, 3)
    page.check("#numbers")
    fills = page.eval_on_selector_all("#play-board text.number",
                                      "ns => ns.map(n => [n.textContent, n.getAttribute('fill')])")
    assert fills == [["1", "#fff"], ["2", "#111"], ["3", "#fff"]], "white numbers on black stones, the last one too"
    assert page.locator("#play-board circle.last-mark").count() == 1
    screenshot(page, "numbers-readable")


def test_play_has_a_move_list_clocks_and_keeps_the_search_at_the_end(page: Page) -> None:
    new_game(page, "monte", "random", 9)
    page.wait_for_selector("#status.over")
    total = len(stones(page))
    assert page.inner_text("#search").startswith("monte: "), "the last search stays at the game's end"
    assert page.locator("#play-moves li").count() == total
    clock = [float(page.inner_text(f"#clock-{color}").split()[0]) for color in (1, 2)]
    assert clock[0] > 0 and clock[1] >= 0, clock
    page.locator("#play-moves li").nth(2).click()
    wait_stones(page, 3)
    assert status(page) == f"Move 3 of {total} (» back to the game)"
    page.keyboard.press("ArrowLeft")
    wait_stones(page, 2)
    page.click("#play-last")
    wait_stones(page, total)
    assert page.locator("#play-graph circle.graph-point").count() >= total // 2 - 1, "monte's win rates graphed"
    screenshot(page, "play-move-list-and-graph")


def test_analysis_shows_candidates_that_follow_the_position(page: Page) -> None:
    open_with(page, "human", 15, 7, 7)
    page.check("#play-analyze")
    page.wait_for_function("document.querySelectorAll('#play-board circle.candidate').length >= 3", timeout=120_000)
    labels = page.locator("#play-board text.candidate-label").all_text_contents()
    assert all(label.isdigit() or label in ("W", "L") for label in labels) and len(labels) >= 3
    assert page.locator("#play-board circle.candidate.best").count() == 1
    assert page.inner_text("#search").startswith("Monte: win rate ")
    first = page.inner_text("#search")
    page.wait_for_function("text => document.querySelector('#search').textContent !== text", arg=first,
                           timeout=60_000)  # it deepens: the report changes while it searches
    screenshot(page, "analysis-on-the-board")
    best = page.eval_on_selector("#play-board circle.candidate.best", "n => [+n.dataset.x, +n.dataset.y]")
    click(page, *best)  # try Monte's move: the analysis follows
    wait_stones(page, 2)
    page.wait_for_function(
        "([x, y]) => document.querySelectorAll('#play-board circle.candidate').length >= 3 && "
        "!document.querySelector(`#play-board circle.candidate[data-x='${x}'][data-y='${y}']`)", arg=best,
        timeout=120_000)
    assert page.locator("#play-graph circle.graph-point").count() >= 2, "both positions' win rates graphed"
    page.click("#play-first")  # stepping back: the analysis of the empty board
    wait_stones(page, 0)
    page.wait_for_function("document.querySelectorAll('#play-board circle.candidate').length >= 1", timeout=120_000)
    box = page.locator("#play-graph").bounding_box()
    page.mouse.click(box["x"] + box["width"] - 3, box["y"] + box["height"] / 2)  # the graph's right end: the last move
    wait_stones(page, 2)
    page.uncheck("#play-analyze")
    assert page.locator("#play-board circle.candidate").count() == 0


def test_analysis_follows_a_replayed_game(page: Page, runs: Path) -> None:
    record = read_jsonl(runs / "demo" / "games.jsonl")[0]
    total = replayed(page, record)
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    wait_stones(page, 1, "replay-board")
    page.check("#replay-analyze")
    page.wait_for_function("document.querySelectorAll('#replay-board circle.candidate').length >= 2", timeout=120_000)
    page.keyboard.press("ArrowRight")
    wait_stones(page, 2, "replay-board")
    x, y = record.moves[1][:2]
    page.wait_for_function(
        f"document.querySelectorAll('#replay-board circle.candidate').length >= 2 && "
        f"!document.querySelector(\"#replay-board circle.candidate[data-x='{x}'][data-y='{y}']\")", timeout=120_000)
    assert page.inner_text("#replay-analysis").startswith("Monte: ")
    assert page.locator("#replay-graph circle.graph-point").count() >= 2
    screenshot(page, "replay-analysis")


def test_the_panel_says_disconnected_when_the_server_stops(browser: Browser, monte_executable: str, warm_pbrain: str,
                                                          tmp_path: Path) -> None:
    with running_gui(monte_executable, tmp_path) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_selector("#black option", state="attached")
        new_game(page, "human", "monte", 15, seconds=60)
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('Your move')")
        click(page, 7, 7)
        page.wait_for_function("document.querySelector('#status').textContent.includes('is thinking')")
        server.stop()
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('Disconnected')")
        assert "thinking" not in status(page)
        for button in ("#undo", "#resign", "#stop", "#save-sgf", "#new-game"):
            assert page.is_disabled(button), button
        screenshot(page, "server-stopped")
        context.close()


def test_graph_the_game_fills_the_graph_of_a_replayed_game(page: Page, runs: Path) -> None:
    record = read_jsonl(runs / "demo" / "games.jsonl")[1]
    total = replayed(page, record)
    assert page.locator("#replay-graph circle.graph-point").count() == 0, "a tournament game: nothing known yet"
    page.click("#replay-graph-game")
    page.wait_for_function(f"document.querySelectorAll('#replay-graph circle.graph-point').length === {total + 1}",
                           timeout=180_000)  # every position, the empty board and the five's too
    screenshot(page, "replay-graph")
    box = page.locator("#replay-graph").bounding_box()
    page.mouse.click(box["x"] + 6, box["y"] + box["height"] / 2)  # the left end: the empty board
    wait_stones(page, 0, "replay-board")
    assert page.inner_text("#replay-step") == f"Empty board ({total} moves)"
