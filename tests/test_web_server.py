"""``monte gui`` over its WebSocket, as a page (or anything else on the machine) talks to it: every bad message gets
an error reply and the game goes on; only the engines it was started with run; a limit on games with engines; a
crashing or hanging engine loses with its reason; a stopped server leaves no engine behind; another site's page is
turned away. The installed ``monte`` runs as a user runs it; the fake brain stands in for engines that misbehave."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from web_support import Gui, alive, fake_engine, running_gui, wait_for

FAST = {"width": 9, "time_ms": 100}


@pytest.fixture(scope="module")
def gui(monte_executable: str, tmp_path_factory: pytest.TempPathFactory) -> Gui:
    folder = tmp_path_factory.mktemp("gui")
    with running_gui(monte_executable, folder, "--max-games", "1",
                     "--engine", fake_engine("steady", "good"),
                     "--engine", fake_engine("crasher", "crash", "--at", "2"),
                     "--engine", fake_engine("hanger", "hang", "--at", "1")) as server:
        yield server


async def _session(gui: Gui, script):
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(gui.ws_url) as ws:
            hello = await ws.receive_json(timeout=10)
            assert hello["type"] == "hello"
            return await script(ws, hello)


async def _reply(ws: aiohttp.ClientWebSocketResponse, kinds: tuple[str, ...] = ("state", "error", "record"),
                 timeout: float = 10) -> dict[str, Any]:
    """The next message of one of `kinds` (progress reports while an engine thinks are skipped), within `timeout`
    seconds in all. The deadline is the whole wait's: aiohttp answers the server's heartbeat pings (every 20 s)
    inside ``receive`` and starts its own timeout again after each, so a wait of 20 s or more for a message that
    never came ran forever (a CI run starved of CPU hung here) instead of failing."""
    async with asyncio.timeout(timeout):
        while True:
            message = await ws.receive_json()
            if message["type"] in kinds:
                return message


async def _state_where(ws: aiohttp.ClientWebSocketResponse, condition, timeout: float = 30) -> dict[str, Any]:
    """The game of the next state that meets `condition`."""
    while True:
        game = (await _reply(ws, ("state",), timeout))["game"]
        if condition(game):
            return game


async def _until_over(ws: aiohttp.ClientWebSocketResponse, timeout: float = 30) -> dict[str, Any]:
    return await _state_where(ws, lambda game: game["over"], timeout)


def test_every_bad_message_gets_an_error_and_the_game_goes_on(gui: Gui) -> None:
    bad = [
        ("this is not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"type": "fly"}', "unknown message type \"fly\""),
        ('{"type": "move", "x": 3}', "needs the field 'y'"),
        ('{"type": "move", "x": "H8", "y": 3}', "move.x must be a whole number"),
        ('{"type": "move", "x": 3, "y": 99}', "move.y must be a whole number from 0 to 31, not 99"),
        ('{"type": "move", "x": 1, "y": 1}', "there is no game yet"),
        ('{"type": "new", "black": "rm -rf ~", "white": "human", "width": 9, "time_ms": 100}',
         "new.black must be one of human, monte, steady, crasher, hanger, not \"rm -rf ~\""),
        ('{"type": "new", "black": "human", "white": "human", "width": 40, "time_ms": 100}',
         "new.width must be a whole number from 5 to 32, not 40"),
        ('{"type": "new", "black": "human", "white": "human", "width": 9, "time_ms": 100, "rule": "go"}',
         "new.rule must be one of freestyle"),
        ('{"type": "new", "black": "human", "white": "human", "width": 9, "time_ms": 100, "command": "sh"}',
         "has no field 'command'"),
        ('{"type": "new", "black": "human", "white": "human", "width": 9, "time_ms": 100, "moves": [[1, 1], [1, 1]]}',
         "cannot start from those moves"),
        ('{"type": "save", "format": "pdf"}', "save.format must be one of sgf, psq"),
        ('{"type": "analyze", "key": 1, "width": 9, "moves": [[9, 9]]}', "analyze.moves[0] must be an [x, y] point"),
        ('{"type": "analyze", "key": 1, "width": 9, "graph": "yes"}', "analyze.graph must be true or false"),
        ('{"type": "analyze", "width": 9}', "needs the field 'key'"),
    ]

    async def script(ws, hello):
        assert hello["engines"] == ["monte", "steady", "crasher", "hanger"]
        for text, expected in bad:
            await ws.send_str(text)
            reply = await _reply(ws)
            assert reply["type"] == "error" and expected in reply["message"], (text, reply)
        await ws.send_bytes(b"\x00\x01")
        assert "not binary" in (await _reply(ws))["message"]
        await ws.send_json({"type": "new", "black": "human", "white": "human", **FAST})
        assert (await _reply(ws))["game"]["stones"] == []
        await ws.send_json({"type": "move", "x": 4, "y": 4})
        assert [s[:3] for s in (await _reply(ws))["game"]["stones"]] == [[4, 4, 1]]
        await ws.send_json({"type": "move", "x": 4, "y": 4})
        assert (await _reply(ws))["message"] == "E5 is occupied"
        await ws.send_json({"type": "move", "x": 9, "y": 0})
        assert (await _reply(ws))["message"] == "9,0 is off the 9x9 board"
        await ws.send_json({"type": "move", "x": 5, "y": 4})
        assert [s[:3] for s in (await _reply(ws))["game"]["stones"]] == [[4, 4, 1], [5, 4, 2]]

    asyncio.run(_session(gui, script))


def test_a_crashing_engine_loses_with_its_reason_and_is_reaped(gui: Gui) -> None:
    async def script(ws, hello):
        await ws.send_json({"type": "new", "black": "human", "white": "crasher", **FAST})
        await _reply(ws)
        await ws.send_json({"type": "move", "x": 0, "y": 0})
        await _state_where(ws, lambda game: len(game["stones"]) == 2 and not game["thinking"])  # its move 1
        await ws.send_json({"type": "move", "x": 8, "y": 8})
        game = await _until_over(ws)  # it crashes when asked for move 2
        assert game["over"]["winner"] == 1 and game["over"]["termination"] == "crash"
        assert game["over"]["message"].startswith("Black (you) wins: white (crasher): crash: ")
        assert game["over"]["message"].endswith("; its stderr ends: fake brain: told to crash at move 2.")
        wait_for(lambda: not gui.engines(), 10, "the crashed engine's process reaped")
        await ws.send_json({"type": "save", "format": "sgf"})
        record = await _reply(ws)
        assert record["filename"] == "human-vs-crasher.sgf" and "RE[B+F]" in record["text"]

    asyncio.run(_session(gui, script))


def test_a_hanging_engine_loses_on_time(gui: Gui) -> None:
    async def script(ws, hello):
        await ws.send_json({"type": "new", "black": "hanger", "white": "human", **FAST})
        game = await _until_over(ws)  # 100 ms a move, 1 s forgiven, then the engine is killed
        assert game["over"]["termination"] == "time" and game["over"]["winner"] == 2
        assert "White (you) wins: black (hanger): time: " in game["over"]["message"]
        wait_for(lambda: not gui.engines(), 10, "the hanging engine killed and reaped")

    asyncio.run(_session(gui, script))


def test_games_with_engines_are_limited_and_people_are_not(gui: Gui) -> None:
    async def script():
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(gui.ws_url) as first, session.ws_connect(gui.ws_url) as second:
                await first.receive_json(timeout=10)
                await second.receive_json(timeout=10)
                await first.send_json({"type": "new", "black": "human", "white": "steady", **FAST})
                assert (await _reply(first))["type"] == "state"
                await second.send_json({"type": "new", "black": "steady", "white": "human", **FAST})
                refused = await _reply(second)
                assert refused["message"].startswith("1 games with engines are running on this server already")
                await second.send_json({"type": "new", "black": "human", "white": "human", **FAST})
                assert (await _reply(second))["type"] == "state"
                await first.send_json({"type": "stop"})
                stopped = await _until_over(first)
                assert stopped["over"]["message"] == "Stopped: the game was stopped from the page."
                await second.send_json({"type": "new", "black": "steady", "white": "human", **FAST})
                assert (await _reply(second))["type"] == "state"
                await second.send_json({"type": "resign"})
                assert (await _until_over(second))["over"]["message"] == "Black (steady) wins: white resigned."

    asyncio.run(script())


def test_the_analysis_reports_on_the_position_asked_for_and_goes_with_the_tab(gui: Gui, warm_pbrain: str) -> None:
    async def script(ws, hello):
        await ws.send_json({"type": "analyze", "key": 7, "width": 9, "moves": [[4, 4], [5, 5]]})
        report = await _reply(ws, ("analysis",), timeout=120)
        assert report["key"] == 7 and report["moves"] and report["evaluation"]
        assert all(m["move"] not in ([4, 4], [5, 5]) for m in report["moves"])
        workers = gui.engines()
        assert workers, "the analysis runs in a process of its own"
        five = [[i // 2, 0] if i % 2 == 0 else [i // 2, 8] for i in range(9)]
        await ws.send_json({"type": "analyze", "key": 8, "width": 9, "moves": five})
        while (report := await _reply(ws, ("analysis",), timeout=60))["key"] != 8:
            pass
        assert report["finished"] == "black has made five: the game is over" and report["moves"] == []
        return workers

    workers = asyncio.run(_session(gui, script))
    wait_for(lambda: not any(alive(pid) for pid in workers), 30, "the analysis worker gone with the tab")


def test_the_analysis_takes_a_slot_like_a_game_with_engines(gui: Gui) -> None:
    async def script(ws, hello):
        await ws.send_json({"type": "new", "black": "steady", "white": "human", **FAST})  # the server's one slot
        await _state_where(ws, lambda game: len(game["stones"]) == 1)
        await ws.send_json({"type": "analyze", "key": 1, "width": 9, "moves": [[4, 4]]})
        assert "the analysis must wait" in (await _reply(ws, ("error",)))["message"]
        await ws.send_json({"type": "stop"})
        await _until_over(ws)
        await ws.send_json({"type": "analyze", "key": 2, "width": 9, "moves": [[4, 4]]})
        assert (await _reply(ws, ("analysis", "error"), timeout=120))["type"] == "analysis"
        await ws.send_json({"type": "stop_analysis"})
        await ws.send_json({"type": "new", "black": "steady", "white": "human", **FAST})  # the slot is back
        assert (await _reply(ws, ("state", "error")))["type"] == "state"

    asyncio.run(_session(gui, script))


def test_a_page_from_another_site_cannot_connect(gui: Gui) -> None:
    async def script():
        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(gui.ws_url, origin="http://evil.example")
            assert refused.value.status == 403

    asyncio.run(script())


def test_a_rebinding_page_whose_origin_matches_its_host_is_refused(gui: Gui) -> None:
    """DNS rebinding: evil.example is pointed at 127.0.0.1, so its page sends Origin and Host both evil.example. The
    server's own page (Host 127.0.0.1 or localhost) still connects."""
    port = gui.url.rsplit(":", 1)[1].strip("/")

    async def script():
        async with aiohttp.ClientSession() as session:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await session.ws_connect(gui.ws_url, origin=f"http://evil.example:{port}",
                                         headers={"Host": f"evil.example:{port}"})
            assert refused.value.status == 403
            for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
                async with session.ws_connect(gui.ws_url, origin=f"http://{host}", headers={"Host": host}) as ws:
                    assert (await ws.receive_json(timeout=10))["type"] == "hello"

    asyncio.run(script())


def test_stopping_the_server_mid_think_leaves_no_engine(monte_executable: str, tmp_path: Path) -> None:
    with running_gui(monte_executable, tmp_path, "--engine", fake_engine("slow", "slow", "--delay-ms", "60000")) as gui:
        async def script(ws, hello):
            await ws.send_json({"type": "new", "black": "slow", "white": "human", "width": 9, "time_ms": 90_000})
            await _state_where(ws, lambda game: game["thinking"])
            return gui.engines()

        engines = asyncio.run(_session(gui, script))
        assert engines, "the engine should be running while it thinks"
        assert gui.stop() == 0
        assert not [pid for pid in engines if alive(pid)], "an engine outlived the server"


def test_bad_engine_names_and_commands_fail_at_start(monte_executable: str, tmp_path: Path) -> None:
    import subprocess

    for args, expected in [(["--engine", "human=pbrain-monte"], "engine name 'human' is taken"),
                           (["--engine", "ghost=no-such-brain-xyz"], "program 'no-such-brain-xyz' is not an "
                                                                     "executable file on PATH"),
                           (["--max-games", "0"], "--max-games must be at least 1")]:
        result = subprocess.run([monte_executable, "gui", *args], capture_output=True, text=True, timeout=60,
                                cwd=tmp_path)
        assert result.returncode == 2 and expected in result.stderr, (args, result.stderr)


def test_other_monte_tools_do_not_import_the_web_framework() -> None:
    import subprocess
    import sys

    probe = ("import sys, monte.cli as c\n"
             "for command in c.COMMANDS:\n"
             "    if command.name != 'gui': c.build_parser([command.name])\n"
             "print(json.dumps('aiohttp' in sys.modules))")
    result = subprocess.run([sys.executable, "-c", "import json; " + probe], capture_output=True, text=True,
                            check=True)
    assert json.loads(result.stdout) is False


def test_uploaded_games_and_run_names_are_checked(gui: Gui) -> None:
    async def script():
        async with aiohttp.ClientSession() as session:
            async with session.get(gui.url + "api/runs") as response:
                assert (await response.json())["runs"] == []  # the server's folder holds no run
            async with session.get(gui.url + "api/runs/..%2F..%2Fetc") as response:
                assert response.status == 404 and "no run '../../etc'" in await response.text()
            async with session.post(gui.url + "api/record?name=go.sgf", data="(;GM[1]SZ[19];B[dd])") as response:
                assert response.status == 400
                assert await response.text() == "go.sgf: SGF game type GM[1] is not Gomoku (GM[4])"
            psq = "Piskvorky 9x9, 11:11, 0\n5,5,10\n6,5,20\n5,6,30\nalice\nbob\n"
            async with session.post(gui.url + "api/record?name=g.psq&rule=renju", data=psq) as response:
                game = await response.json()
            assert (game["rule_name"], game["black"], game["white"]) == ("renju", "alice", "bob")
            assert game["stones"] == [[4, 4, 1, None], [5, 4, 2, None], [4, 5, 1, None]]

    asyncio.run(script())


def test_undo_takes_back_the_move_and_the_engine_answer_even_after_the_end(gui: Gui) -> None:
    def replied(count: int):
        return lambda game: len(game["stones"]) == count and not game["thinking"] and game["to_move"] == 1

    async def script(ws, hello):
        await ws.send_json({"type": "new", "black": "human", "white": "steady", **FAST})
        await _reply(ws)
        await ws.send_json({"type": "undo"})
        assert (await _reply(ws))["message"] == "nothing to take back"
        await ws.send_json({"type": "move", "x": 4, "y": 4})
        await _state_where(ws, replied(2))
        await ws.send_json({"type": "undo"})
        assert (await _reply(ws))["game"]["stones"] == []
        await ws.send_json({"type": "move", "x": 3, "y": 3})
        game = await _state_where(ws, replied(2))  # the engine, told the new position, answers it
        assert game["stones"][0][:3] == [3, 3, 1] and game["stones"][1][:2] != [3, 3]
        await ws.send_json({"type": "resign"})
        assert (await _until_over(ws))["over"]["message"] == "White (steady) wins: black resigned."
        wait_for(lambda: not gui.engines(), 10, "the engine stopped at the end of the game")
        await ws.send_json({"type": "undo"})  # the game goes on from before the last move, with a new engine
        assert [s[:3] for s in (await _reply(ws))["game"]["stones"]] == []
        await ws.send_json({"type": "move", "x": 5, "y": 5})
        game = await _state_where(ws, replied(2))
        assert game["over"] is None and game["stones"][0][:3] == [5, 5, 1]

    asyncio.run(_session(gui, script))
