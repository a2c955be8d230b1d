"""Game records: scores, the durable JSONL log, and the exact SGF and Piskvork .psq text of known games."""

from __future__ import annotations

import os
import threading
from dataclasses import replace

import pytest

from monte.tournaments import records
from monte.tournaments.records import GameRecord, Termination, append_jsonl, read_jsonl, to_psq, to_sgf


def known_game(**changes) -> GameRecord:
    """Black (alpha) makes five down column 7 after a two-stone opening on 15x15."""
    game = GameRecord(
        game_id=1, pairing=("alpha", "beta"), pair_index=0, black="alpha", white="beta",
        width=15, height=15, rule=0,
        opening=[(7, 7), (8, 8)],
        moves=[(7, 8, 120), (8, 9, 95), (7, 9, 130), (8, 10, 80), (7, 10, 110), (8, 11, 70), (7, 11, 100)],
        winner="alpha", termination=Termination.FIVE, detail="black made five from 7,7 to 7,11",
        opening_id="book.txt:3", started_at="2026-01-02T10:00:00+00:00", duration_s=1.5,
    )
    return replace(game, **changes)


# --- scores and terminations -----------------------------------------------------------------------------------------

def test_score_for_gives_the_winner_one_and_the_loser_zero():
    game = known_game()
    assert game.score_for("alpha") == 1.0
    assert game.score_for("beta") == 0.0


def test_a_draw_scores_half_for_both():
    game = known_game(winner=None, termination=Termination.DRAW_FULL)
    assert game.score_for("alpha") == game.score_for("beta") == 0.5


def test_score_for_someone_who_did_not_play_is_an_error():
    with pytest.raises(ValueError, match="'gamma' did not play game 1"):
        known_game().score_for("gamma")


def test_terminations_print_as_their_reason_words():
    assert str(Termination.OFF_BOARD) == "off-board"
    assert f"{Termination.TIME}" == "time"
    assert Termination("start-error") is Termination.START_ERROR


# --- SGF and PSQ ------------------------------------------------------------------------------------------------------

def test_sgf_of_a_known_game_is_exact():
    assert to_sgf(known_game()) == (
        "(;FF[4]GM[4]CA[UTF-8]AP[Monte]SZ[15]PB[alpha]PW[beta]RE[B+]DT[2026-01-02]GN[1]"
        "C[rule 0; five: black made five from H8 to H4]"
        ";B[hh];W[ii];B[hi];W[ij];B[hj];W[ik];B[hk];W[il];B[hl])\n"
    )


def test_psq_of_a_known_game_is_exact_with_one_based_coordinates():
    assert to_psq(known_game()) == (
        "Piskvorky 15x15, 11:11, 0\n"
        "8,8,0\n9,9,0\n"
        "8,9,120\n9,10,95\n8,10,130\n9,11,80\n8,11,110\n9,12,70\n8,12,100\n"
        "alpha\nbeta\n"
    )


def test_rectangular_boards_use_sz_width_colon_height_and_psq_width_x_height():
    game = known_game(width=20, height=15, opening=[], moves=[(19, 14, 5)], started_at="")
    assert "SZ[20:15]" in to_sgf(game)
    assert to_sgf(game).endswith(";B[to])\n")
    assert to_psq(game).startswith("Piskvorky 20x15, 11:11, 0\n20,15,5\n")


def test_sgf_points_past_z_continue_with_capitals():
    game = known_game(width=32, height=32, opening=[(26, 31)], moves=[])
    assert ";B[AF])" in to_sgf(game)


@pytest.mark.parametrize("winner, termination, result", [
    ("beta", Termination.TIME, "W+T"),
    ("alpha", Termination.CRASH, "B+F"),
    ("beta", Termination.FOUL, "W+F"),
    (None, Termination.DRAW_FULL, "0"),
    (None, Termination.DRAW_MOVES, "0"),
    (None, Termination.INTERRUPTED, "Void"),
])
def test_sgf_result_says_who_won_and_how(winner, termination, result):
    assert f"RE[{result}]" in to_sgf(known_game(winner=winner, termination=termination))


def test_sgf_text_escapes_brackets_and_backslashes():
    sgf = to_sgf(known_game(black="a]b", white="c\\d", winner="a]b", detail="x]"))
    assert "PB[a\\]b]PW[c\\\\d]" in sgf
    assert "C[rule 0; five: x\\]]" in sgf


def test_moves_off_the_board_are_left_out_of_sgf_and_psq():
    game = known_game(moves=[(7, 8, 120), (15, 3, 40)], winner="alpha", termination=Termination.OFF_BOARD)
    assert to_sgf(game).endswith(";B[hh];W[ii];B[hi])\n")
    assert to_psq(game).endswith("8,9,120\nalpha\nbeta\n")


# --- JSONL ------------------------------------------------------------------------------------------------------------

def test_records_round_trip_through_jsonl(tmp_path):
    log = tmp_path / "games.jsonl"
    games = [known_game(), known_game(game_id=2, black="beta", white="alpha", winner=None,
                                      termination=Termination.DRAW_MOVES, detail="move limit")]
    for game in games:
        append_jsonl(log, game)
    back = read_jsonl(log)
    assert back == games
    assert isinstance(back[0].termination, Termination)
    assert back[0].pairing == ("alpha", "beta") and back[0].opening[0] == (7, 7) and back[0].moves[0] == (7, 8, 120)
    assert log.read_text().count("\n") == 2


def test_each_append_is_fsynced_before_returning(tmp_path, monkeypatch):
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(records.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    log = tmp_path / "games.jsonl"
    append_jsonl(log, known_game())
    first = len(synced)
    append_jsonl(log, known_game(game_id=2))
    assert first >= 1 and len(synced) == first + 1


def test_a_new_log_gets_its_folder(tmp_path):
    log = tmp_path / "run" / "deep" / "games.jsonl"
    append_jsonl(log, known_game())
    assert read_jsonl(log) == [known_game()]


def test_a_truncated_last_line_is_ignored_and_the_next_append_replaces_it(tmp_path):
    log = tmp_path / "games.jsonl"
    append_jsonl(log, known_game())
    append_jsonl(log, known_game(game_id=2))
    with open(log, "ab") as handle:
        handle.write(b'{"game_id": 3, "pairing": ["al')     # a run killed mid-write
    assert [g.game_id for g in read_jsonl(log)] == [1, 2]
    append_jsonl(log, known_game(game_id=4))
    assert [g.game_id for g in read_jsonl(log)] == [1, 2, 4]
    assert b'"game_id": 3' not in log.read_bytes()


def test_a_damaged_line_before_the_end_is_an_error_naming_the_line(tmp_path):
    log = tmp_path / "games.jsonl"
    append_jsonl(log, known_game())
    with open(log, "ab") as handle:
        handle.write(b"not json\n")
    append_jsonl(log, known_game(game_id=2))
    with pytest.raises(ValueError, match=r"games.jsonl:2: not a game record"):
        read_jsonl(log)


@pytest.mark.parametrize("line, reason", [
    (b'{"game_id": 1}\n', "missing pairing"),
    (b"[1, 2]\n", "not a JSON object"),
    (b'{"game_id": 1, "pairing": ["a", "b"], "pair_index": 0, "black": "a", "white": "b", "width": "15", '
     b'"height": 15, "rule": 0, "opening": [], "moves": [], "winner": null, "termination": "draw-full", '
     b'"detail": ""}\n', "width is '15'"),
    (b'{"game_id": 1, "pairing": ["a", "b"], "pair_index": 0, "black": "a", "white": "b", "width": 15, '
     b'"height": 15, "rule": 0, "opening": [[7]], "moves": [], "winner": null, "termination": "draw-full", '
     b'"detail": ""}\n', "wrong shape"),
])
def test_lines_that_are_not_records_are_refused(tmp_path, line, reason):
    log = tmp_path / "games.jsonl"
    log.write_bytes(line)
    with pytest.raises(ValueError, match=reason):
        read_jsonl(log)


def test_an_unknown_termination_is_refused(tmp_path):
    log = tmp_path / "games.jsonl"
    append_jsonl(log, known_game())
    log.write_bytes(log.read_bytes().replace(b'"five"', b'"abandoned"'))
    with pytest.raises(ValueError, match="games.jsonl:1: not a game record.*abandoned"):
        read_jsonl(log)


def test_reading_a_missing_log_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_jsonl(tmp_path / "none.jsonl")


def test_appends_from_many_threads_stay_whole_lines(tmp_path):
    log = tmp_path / "games.jsonl"

    def writer(base: int) -> None:
        for i in range(15):
            append_jsonl(log, known_game(game_id=base + i))

    threads = [threading.Thread(target=writer, args=(100 * t,)) for t in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(g.game_id for g in read_jsonl(log)) == sorted(100 * t + i for t in range(6) for i in range(15))


# --- reading SGF and PSQ back -----------------------------------------------------------------------------------------

def _colored(game: GameRecord) -> list[tuple[int, int, int]]:
    stones = [*game.opening, *((x, y) for x, y, _ in game.moves)]
    return [(x, y, 1 + i % 2) for i, (x, y) in enumerate(stones)]


@pytest.mark.parametrize("changes", [{}, {"width": 20, "height": 12, "rule": 4},
                                     {"width": 30, "height": 30, "opening": [(27, 28)], "rule": 9}])
def test_sgf_round_trips_size_rule_names_result_and_every_stone(changes):
    game = known_game(**changes)
    saved = records.read_sgf(to_sgf(game))
    assert (saved.width, saved.height, saved.rule) == (game.width, game.height, game.rule)
    assert (saved.black, saved.white, saved.result) == ("alpha", "beta", "B+")
    assert saved.stones == _colored(game)


def test_psq_round_trips_size_names_and_every_stone_with_the_rule_given():
    game = known_game(width=20, height=18)
    saved = records.read_psq(to_psq(game), rule=1)
    assert (saved.width, saved.height, saved.rule, saved.black, saved.white) == (20, 18, 1, "alpha", "beta")
    assert saved.stones == _colored(game)


def test_sgf_from_another_editor_follows_the_main_line_with_setup_stones_and_escapes():
    text = "(;GM[4]SZ[15]PB[a \\] b]AB[hh][ii]AW[hi]\n;B[jj]C[good]\n(;W[kk];B[ll])(;W[aa]))"
    saved = records.read_sgf(text)
    assert saved.black == "a ] b" and saved.rule == 0
    assert saved.stones == [(7, 7, 1), (8, 8, 1), (7, 8, 2), (9, 9, 1), (10, 10, 2), (11, 11, 1)]


@pytest.mark.parametrize("text, error", [
    ("no game here", "no '(;' node"),
    ("(;GM[1]SZ[19];B[aa])", "not Gomoku"),
    ("(;GM[4]SZ[big];B[aa])", "SZ[big]"),
    ("(;GM[4]SZ[15];B[zz])", "off the 15x15 board"),
    ("(;GM[4]SZ[15];B[a])", "not two letters"),
])
def test_bad_sgf_is_refused_naming_the_problem(text, error):
    with pytest.raises(ValueError, match=error.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        records.read_sgf(text)


def test_bad_psq_is_refused_naming_the_line():
    with pytest.raises(ValueError, match="no board size"):
        records.read_psq("hello\n1,1,0\n")
    with pytest.raises(ValueError, match="line 3: '16,1,0' is off the 15x15 board"):
        records.read_psq("Piskvorky 15x15, 11:11, 0\n1,1,0\n16,1,0\n")


def test_a_record_of_the_log_gives_its_stones_with_colours():
    saved = records.SavedGame.from_record(known_game())
    assert saved.stones == _colored(known_game()) and saved.result == "B+"
