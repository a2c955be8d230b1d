"""Tournament settings: TOML and flags give the same config, the shipped examples are valid, and every bad setting
is refused with one line that names it."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from monte import cli
from monte.tournaments.config import ConfigError, build_config, config_from_args, engine_clock, read_toml
from monte.tournaments.engines import EngineClock

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "tournaments" / "configs").glob("*.toml"))

TWO_ENGINES = """
[[engine]]
name = "a"
command = "pbrain-a --fast"
[[engine]]
name = "b"
command = ["pbrain-b"]
"""


def config_from(text: str, **overrides):
    return build_config(tomllib.loads(text), overrides)


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_every_example_config_is_valid(path):
    config = build_config(read_toml(path))
    assert len(config.engines) >= 2
    assert config.total_games > 0


def test_toml_settings_and_engines_are_read():
    config = config_from("[game]\nwidth = 20\nrule = 4\n[tournament]\ngames = 4\n" + TWO_ENGINES)
    assert (config.width, config.board_height, config.rule, config.games) == (20, 20, 4, 4)
    assert [(e.name, e.command) for e in config.engines] == [("a", ("pbrain-a", "--fast")), ("b", ("pbrain-b",))]


def test_a_flag_overrides_the_file():
    config = config_from("[game]\ntimeout_turn_ms = 300\n" + TWO_ENGINES, timeout_turn_ms=700, rule=None)
    assert config.timeout_turn_ms == 700
    assert config.rule == 0


def test_every_setting_is_also_a_flag(tmp_path):
    parser = cli.build_parser(["tournament"])
    args = parser.parse_args(["tournament", "--engine", "x=pbrain-x", "--engine", "y=pbrain-y --opt 1",
                              "--width", "20", "--height", "15", "--timeout-turn-ms", "250", "--no-memory-loses",
                              "--openings-order", "shuffle", "--sprt", "--sprt-elo1", "10", "--out", str(tmp_path)])
    config = config_from_args(args)
    assert (config.width, config.board_height, config.timeout_turn_ms) == (20, 15, 250)
    assert (config.openings_order, config.sprt, config.sprt_elo1, config.memory_loses) == ("shuffle", True, 10.0,
                                                                                             False)
    assert config.engines[1].command == ("pbrain-y", "--opt", "1")


def test_the_versions_example_plays_the_working_tree_against_an_earlier_commit():
    new, old = build_config(read_toml(Path(CONFIGS[0]).parent / "versions.toml")).engines
    assert (new.name, new.revision, old.name, old.revision) == ("new", "WORKTREE", "old", "HEAD~1")


def test_a_revision_is_read_from_the_command_or_its_own_key():
    config = config_from('[[engine]]\nname = "new"\ncommand = "pbrain-monte"\n'
                         '[[engine]]\nname = "old"\ncommand = "pbrain-monte@v0.3 --engine mcts"\n'
                         '[[engine]]\nname = "older"\nrevision = "v0.2"\n')
    new, old, older = config.engines
    assert new.revision is None
    assert (old.revision, old.command) == ("v0.3", ("pbrain-monte", "--engine", "mcts"))
    assert (older.revision, older.command) == ("v0.2", ("pbrain-monte",))


def test_an_engine_carries_its_own_info_from_toml_and_flags():
    text = ('[[engine]]\nname = "rapfi20k"\ncommand = "pbrain-rapfi"\ninfo = { max_node = 20000, thread_num = 1 }\n'
            '[[engine]]\nname = "b"\ncommand = "pbrain-b"\n[engine.info]\nfolder = "/tmp/b"\n')
    rapfi, b = config_from(text).engines
    assert rapfi.info == (("max_node", "20000"), ("thread_num", "1"))
    assert b.info == (("folder", "/tmp/b"),)
    parser = cli.build_parser(["tournament"])
    args = parser.parse_args(["tournament", "--engine", "x=pbrain-x", "--engine", "y=pbrain-y",
                              "--info", "y:max_node=500", "--info", "y:thread_num=2", "--info", "y:max_node=700"])
    x, y = config_from_args(args).engines
    assert x.info == () and y.info == (("max_node", "700"), ("thread_num", "2"))


def test_an_engine_flag_named_like_a_file_engine_replaces_it_keeping_its_info(tmp_path):
    path = tmp_path / "g.toml"
    path.write_text('[tournament]\nformat = "gauntlet"\n[[engine]]\nname = "me"\ncommand = "pbrain-me"\n'
                    '[[engine]]\nname = "rapfi"\ncommand = "pbrain-rapfi"\ninfo = { thread_num = 1 }\n'
                    '[[engine]]\nname = "pela"\ncommand = "pbrain-pela"\n')
    args = cli.build_parser(["tournament", str(path), "--engine", "rapfi=/opt/rapfi --x",
                                          "--engine", "wine=/opt/wine"]).parse_args(["tournament", str(path), "--engine", "rapfi=/opt/rapfi --x",
                                          "--engine", "wine=/opt/wine"])
    engines = config_from_args(args).engines
    assert [(e.name, e.command) for e in engines] == [
        ("me", ("pbrain-me",)), ("rapfi", ("/opt/rapfi", "--x")), ("pela", ("pbrain-pela",)), ("wine", ("/opt/wine",))]
    assert engines[1].info == (("thread_num", "1"),)


def test_only_keeps_the_named_engines_in_the_file_order_and_refuses_an_unknown_one(tmp_path, capsys):
    path = tmp_path / "g.toml"
    path.write_text('[tournament]\nformat = "gauntlet"\n' + "".join(
        f'[[engine]]\nname = "{n}"\ncommand = "pbrain-{n}"\n' for n in ("me", "a", "b", "c")))
    args = cli.build_parser(["tournament", str(path), "--only", "b, me"]).parse_args(["tournament", str(path), "--only", "b, me"])
    assert [e.name for e in config_from_args(args).engines] == ["me", "b"]
    assert cli.main(["tournament", str(path), "--only", "me,zz"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--only: there is no engine 'zz'" in err


def test_an_engine_gets_a_clock_of_its_own_from_toml_or_a_flag_completed_from_the_game():
    text = ('[game]\ntimeout_turn_ms = 1000\ntimeout_match_ms = 60000\n'
            '[[engine]]\nname = "slow"\ncommand = "pbrain-a"\ntimeout_turn_ms = 2000\n'
            '[[engine]]\nname = "plain"\ncommand = "pbrain-b"\n'
            '[[engine]]\nname = "fast"\ncommand = "pbrain-c"\ntimeout_turn_ms = 0\ntimeout_match_ms = 120000\n')
    config = config_from(text)
    slow, plain, fast = config.engines
    assert slow.clock == EngineClock(2000, 60000)  # the match clock it left out is the game's
    assert plain.clock is None and engine_clock(config, "plain") == EngineClock(1000, 60000)
    assert fast.clock == EngineClock(0, 120000)
    parser = cli.build_parser(["tournament"])
    args = parser.parse_args(["tournament", "--engine", "x=pbrain-x", "--engine", "y=pbrain-y",
                              "--timeout-turn-ms", "500", "--clock", "y=250/30000", "--clock", "x=1000"])
    x, y = config_from_args(args).engines
    assert (x.clock, y.clock) == (EngineClock(1000, 0), EngineClock(250, 30000))


def test_an_engine_flag_replacing_a_file_engine_keeps_its_clock(tmp_path):
    path = tmp_path / "g.toml"
    path.write_text('[[engine]]\nname = "me"\ncommand = "pbrain-me"\ntimeout_turn_ms = 3000\n'
                    '[[engine]]\nname = "you"\ncommand = "pbrain-you"\n')
    argv = ["tournament", str(path), "--engine", "me=/opt/me"]
    me, _ = config_from_args(cli.build_parser(argv).parse_args(argv)).engines
    assert (me.command, me.clock) == (("/opt/me",), EngineClock(3000, 0))


@pytest.mark.parametrize("flag, value, message", [
    ("--clock", "z=100", "--clock 'z=100': there is no engine 'z'"),
    ("--clock", "x", "--clock 'x': write NAME=TURN_MS"),
    ("--clock", "x=fast", "--clock 'x=fast': write NAME=TURN_MS"),
    ("--clock", "x=100/-5", "--clock 'x=100/-5': write NAME=TURN_MS"),
    ("--clock", "x=0/0", "[[engine]] (x) timeout_turn_ms: must be > 0 when its timeout_match_ms is 0"),
    ("--info", "z:max_node=1", "--info 'z:max_node=1': there is no engine 'z'"),
    ("--info", "x-max_node=1", "--info 'x-max_node=1': write NAME:KEY=VALUE"),
    ("--info", "x:rule=4", "info.rule: the runner sends INFO rule itself"),
    ("--info", "x:max_node=", "info.max_node: must be a non-empty string on one line"),
    ("--info", "x:max node=1", "info key 'max node': must be a word"),
])
def test_a_bad_info_or_clock_flag_is_one_line_naming_it(flag, value, message, capsys):
    assert cli.main(["tournament", "--engine", "x=x", "--engine", "y=y", flag, value]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


BAD_CONFIGS = [
    # (TOML text, a fragment the one-line error must contain)
    ("[game]\ntimout_turn_ms = 5\n" + TWO_ENGINES, "'timout_turn_ms' is unknown (did you mean 'timeout_turn_ms'?)"),
    ("[gmae]\nrule = 1\n" + TWO_ENGINES, "section 'gmae' is unknown"),
    ("[game]\ntimeout_turn_ms = \"fast\"\n" + TWO_ENGINES, "[game] timeout_turn_ms: must be an integer"),
    ("[game]\ntimeout_turn_ms = -5\n" + TWO_ENGINES, "[game] timeout_turn_ms: must be >= 0"),
    ("[game]\nrule = 3\n" + TWO_ENGINES, "[game] rule: must be one of"),
    ("[game]\nwidth = 40\n" + TWO_ENGINES, "[game] width: must be <= 32"),
    ("[game]\nheight = 3\n" + TWO_ENGINES, "[game] height: must be 0 or 5..32"),
    ("[game]\nfirst_move = \"swap\"\n" + TWO_ENGINES, "[game] first_move: must be one of"),
    ("[game]\nmemory_loses = 1\n" + TWO_ENGINES, "[game] memory_loses: must be true or false"),
    ("[game]\ntimeout_turn_ms = 0\n" + TWO_ENGINES, "[game] timeout_turn_ms: must be > 0 when timeout_match_ms is 0"),
    ("[tournament]\ngames = 3\n" + TWO_ENGINES, "[tournament] games: must be even"),
    ("[tournament]\nformat = \"swiss\"\n" + TWO_ENGINES, "[tournament] format: must be one of"),
    ("[tournament]\nconcurrency = 0\n" + TWO_ENGINES, "[tournament] concurrency: must be >= 1"),
    ('[[engine]]\nname = "a"\ncommand = "pbrain-a"\n', "needs at least two engines, got 1"),
    (TWO_ENGINES + '[[engine]]\nname = "a"\ncommand = "x"\n', "'a' is used twice"),
    ('[[engine]]\nname = "a"\n[[engine]]\nname = "b"\ncommand = "x"\n', "[[engine]] #1 (a) command:"),
    ('[[engine]]\ncommand = "x"\n[[engine]]\nname = "b"\ncommand = "x"\n', "[[engine]] #1 name:"),
    ('[[engine]]\nname = "a"\ncmd = "x"\n', "[[engine]] #1 key 'cmd' is unknown"),
    ('[[engine]]\nname = "a"\ncommand = "pbrain-monte@"\n', "names no revision after '@'"),
    ('[[engine]]\nname = "a"\ncommand = "x"\ninfo = 5\n', "[[engine]] #1 (a) info: must be a table"),
    ('[[engine]]\nname = "a"\ncommand = "x"\ninfo = { max_node = 2.5 }\n',
     "[[engine]] #1 (a) info.max_node: must be an integer or a string, got 2.5"),
    ('[[engine]]\nname = "a"\ncommand = "x"\ninfo = { pondering = true }\n',
     "[[engine]] #1 (a) info.pondering: must be an integer or a string, got True"),
    ('[[engine]]\nname = "a"\ncommand = "x"\ninfo = { timeout_turn = 100 }\n',
     "[[engine]] #1 (a) info.timeout_turn: the runner sends INFO timeout_turn itself from the [game] settings"),
    ('[[engine]]\nname = "a"\ncommand = "x"\ntimeout_turn_ms = "2s"\n',
     "[[engine]] #1 (a) timeout_turn_ms: must be an integer >= 0, got '2s'"),
    ('[[engine]]\nname = "a"\ncommand = "x"\ntimeout_match_ms = -1\n',
     "[[engine]] #1 (a) timeout_match_ms: must be an integer >= 0, got -1"),
    ('[[engine]]\nname = "a"\ncommand = "x"\ninfo = { folder = "a\\nb" }\n',
     "[[engine]] #1 (a) info.folder: must be a non-empty string on one line"),
    ("[openings]\nfile = \"no-such-file.txt\"\n" + TWO_ENGINES, "[openings] file: 'no-such-file.txt' does not exist"),
    ("[openings]\nrandom = 4\n[game]\nfirst_move = \"begin\"\n" + TWO_ENGINES, "[game] first_move: 'begin' only"),
    ("[openings]\nrandom = 4\nfile = \"freestyle15-3stone.txt\"\n" + TWO_ENGINES, "[openings] random: give either"),
    ("[sprt]\nenabled = true\nelo0 = 5\nelo1 = 0\n" + TWO_ENGINES, "[sprt] elo1: must be greater than elo0"),
    ("[sprt]\nenabled = true\n" + TWO_ENGINES + '[[engine]]\nname = "c"\ncommand = "x"\n',
     "[sprt] enabled: an SPRT compares exactly two engines"),
    ("[sprt]\nalpha = 0.9\n" + TWO_ENGINES, "[sprt] alpha: must be <= 0.5"),
]


@pytest.mark.parametrize("text, message", BAD_CONFIGS, ids=[m for _, m in BAD_CONFIGS])
def test_a_bad_config_is_refused_with_one_line_naming_the_field(text, message):
    with pytest.raises(ConfigError) as caught:
        config_from(text)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_cli_prints_one_line_for_a_bad_config_and_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text("[game]\nrule = 3\n" + TWO_ENGINES)
    assert cli.main(["tournament", str(path)]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "[game] rule: must be one of" in err


def test_the_cli_names_a_config_that_is_not_toml_or_missing(tmp_path, capsys):
    broken = tmp_path / "broken.toml"
    broken.write_text("[game\nrule = 1\n")
    assert cli.main(["tournament", str(broken)]) == cli.EXIT_USAGE
    assert "broken.toml: not valid TOML" in capsys.readouterr().err
    assert cli.main(["tournament", str(tmp_path / "missing.toml")]) == cli.EXIT_USAGE
    assert "missing.toml: cannot read the config" in capsys.readouterr().err


def test_a_malformed_engine_flag_is_one_line(capsys):
    assert cli.main(["tournament", "--engine", "no-equals-sign", "--engine", "b=x"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--engine" in err and "NAME=COMMAND" in err
