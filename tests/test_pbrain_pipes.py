"""The INSTALLED ``pbrain-monte`` fed whole batches at once, as scripts, test harnesses and some managers feed it, and
the input and output edge cases of its pipes: END after a batch, huge lines, line separators, a closed stderr.

Replies are awaited for up to REPLY_S: a generous bound on a shared machine, never a speed assertion.
"""

from __future__ import annotations

import os
import re
import subprocess

import pytest

REPLY_S = 60.0
MOVE = re.compile(r"\d+,\d+")


def answers(stdout: str) -> list[str]:
    """The lines of `stdout` that are not MESSAGE lines."""
    return [line for line in stdout.splitlines() if not line.startswith("MESSAGE")]


def piped(executable: str, batch: str, *args: str, keep_input_open: bool = False) -> subprocess.CompletedProcess:
    """Run the brain with `batch` written to its stdin at once; then close its stdin, or (`keep_input_open`) leave it
    open, so that only END can end the brain. Returns when the brain has exited."""
    with subprocess.Popen([executable, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as brain:
        brain.stdin.write(batch)
        brain.stdin.flush()
        if not keep_input_open:
            brain.stdin.close()
        try:
            status = brain.wait(REPLY_S)
        finally:
            brain.kill()
        return subprocess.CompletedProcess(brain.args, status, brain.stdout.read(), brain.stderr.read())


def test_the_issue_batch_with_end_gets_ok_and_a_move_before_the_brain_leaves(warm_pbrain):
    result = piped(warm_pbrain, "START 15\nINFO timeout_turn 300\nBEGIN\nEND\n", keep_input_open=True)
    assert result.returncode == 0
    assert answers(result.stdout) == ["OK", "7,7"]


def test_a_batch_with_end_is_answered_in_order_and_nothing_after_end_is(warm_pbrain):
    batch = "START 15\nINFO timeout_turn 60000\nBEGIN\nTURN 9,9\nABOUT\nBOARD\n7,7,1\n8,8,2\nDONE\nEND\nABOUT\nBEGIN\n"
    result = piped(warm_pbrain, batch, keep_input_open=True)
    assert result.returncode == 0
    ok, first, second, about, third = answers(result.stdout)  # END cut the thinks short: no minute-long waits
    assert (ok, first) == ("OK", "7,7") and about.startswith('name="Monte"')
    assert MOVE.fullmatch(second) and MOVE.fullmatch(third)
    assert "Traceback" not in result.stderr


def test_a_batch_without_end_is_answered_in_order_before_the_end_of_input(warm_pbrain):
    result = piped(warm_pbrain, "START 15\nINFO timeout_turn 300\nBEGIN\nTURN 9,9\nABOUT\n", "--engine", "greedy")
    assert result.returncode == 0
    ok, first, second, about = answers(result.stdout)
    assert (ok, first) == ("OK", "7,7") and MOVE.fullmatch(second) and about.startswith('name="Monte"')


def test_a_line_of_megabytes_gets_one_short_unknown_and_the_brain_reads_on(warm_pbrain):
    result = piped(warm_pbrain, "FROB" + "x" * 8_000_000 + "\nABOUT\n", "--engine", "greedy")
    unknown, about = result.stdout.splitlines()
    assert unknown.startswith("UNKNOWN FROBxxx") and unknown.endswith("...") and len(unknown) <= 500
    assert about.startswith('name="Monte"')


def test_line_separators_inside_a_line_never_split_an_answer(warm_pbrain):
    result = piped(warm_pbrain, "FROB\x0cNI\u2028CATE\x1cX\nABOUT\n", "--engine", "greedy")
    unknown, about = result.stdout.splitlines()  # str.splitlines breaks at all of them
    assert unknown == "UNKNOWN FROB NI CATE X"


def test_a_brain_started_with_stderr_closed_answers_and_exits_0(warm_pbrain):
    result = subprocess.run([warm_pbrain, "--engine", "greedy"], input="START 15\nABOUT\nBEGIN\nEND\n",
                            capture_output=False, stdout=subprocess.PIPE, text=True, timeout=REPLY_S,
                            preexec_fn=lambda: os.close(2))  # as `pbrain-monte 2>&-`
    assert result.returncode == 0
    ok, about, move = answers(result.stdout)
    assert ok == "OK" and about.startswith('name="Monte"') and move == "7,7"
