"""A strong engine as a judge of positions, through the pbrain protocol: what does it say of the side to move here,
searched to a fixed node count?

For measurement only (balanced openings, blunder counts): Rapfi (``INFO max_node``) is the judge the lab tools were
written against, but any brain that prints Rapfi's realtime line ``MESSAGE ... Eval -116 | Node 5713 ...`` will do.
Nothing in the engine or the test suite depends on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from monte.protocol.client import BrainClient, BrainFault, GameSettings

_EVAL = re.compile(r"\bEval\s+([+-]?M?\d+)", re.IGNORECASE)
_NODES = re.compile(r"\bNode\s+(\d+(?:\.\d+)?)([KMG]?)", re.IGNORECASE)
_SUFFIX = {"": 1, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000}
MATE_SCORE = 30_000
"""What a mate in n plies is worth on the judge's scale (minus n): far beyond any evaluation."""


@dataclass(frozen=True)
class Verdict:
    """The judge's view of a position, for the side to move."""

    eval: int
    """Its evaluation (Rapfi's scale, ~ centipawns), or +-(MATE_SCORE - plies) for a forced win or loss."""
    mate: int
    """Plies to a forced win (> 0) or loss (< 0); 0 when the judge saw none."""
    nodes: int
    """The nodes it searched (fewer than asked when it stopped early: a mate, or one move alone not losing)."""
    move: tuple[int, int]
    """The move it would play."""


def parse_verdict(messages: Sequence[str], move: tuple[int, int]) -> Verdict | None:
    """The last evaluation and node count among a move's MESSAGE lines, or None if none carried an evaluation."""
    for line in reversed(messages):
        found = _EVAL.search(line)
        if found is None:
            continue
        text = found.group(1)
        nodes = _NODES.search(line)
        count = int(float(nodes.group(1)) * _SUFFIX[nodes.group(2).upper()]) if nodes else 0
        if "M" in text.upper():
            plies = int(text.upper().replace("M", "").lstrip("+-"))
            sign = -1 if text.startswith("-") else 1
            return Verdict(sign * (MATE_SCORE - plies), sign * plies, count, move)
        return Verdict(int(text), 0, count, move)
    return None


def _settings(nodes: int, width: int, height: int, rule: int, timeout_s: float) -> GameSettings:
    return GameSettings(width, height, rule, timeout_turn_ms=int(timeout_s * 1000), timeout_match_ms=0,
                        extra_info=(("max_node", str(nodes)), ("thread_num", "1")))


def board_fields(stones: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """The stones (black first, colours alternating) as BOARD fields seen from the side to move."""
    mover = len(stones) % 2  # 0: black to move
    return [(x, y, 1 if i % 2 == mover else 2) for i, (x, y) in enumerate(stones)]


def judge(command: Sequence[str], nodes: int, stones: Sequence[tuple[int, int]], width: int, height: int,
          rule: int = 0, timeout_s: float = 120.0) -> Verdict | None:
    """The judge's verdict for the side to move after `stones` (black first, colours alternating), searched to
    `nodes`; None if it printed no evaluation. A fresh process each time (~0.15 s for Rapfi): Rapfi drops a command
    that arrives while it still winds its search down, so a kept process would miss the next START now and then."""
    with BrainClient(list(command), garbage="ignore") as client:
        client.new_game(_settings(nodes, width, height, rule, timeout_s), timeout_s)
        reply = client.board(board_fields(stones), timeout_s + 5)
    return parse_verdict(reply.messages, (reply.x, reply.y))


class KeptJudge:
    """The judge as one kept process, for many positions of one board and rule (``judge`` starts a process per
    position: 0.15 s for Rapfi, more than a 30k-node search). Rapfi drops a command that arrives while it winds a
    search down, so each verdict waits for the judge to answer ABOUT (``BrainClient.await_listening``); a judge that
    never does is restarted before the next position, and one that fails is restarted and asked once more."""

    def __init__(self, command: Sequence[str], nodes: int, width: int, height: int, rule: int = 0,
                 timeout_s: float = 60.0) -> None:
        self.command = list(command)
        self.settings = _settings(nodes, width, height, rule, timeout_s)
        self.timeout_s = timeout_s
        self.restarts = 0
        self._client: BrainClient | None = None

    def __enter__(self) -> "KeptJudge":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def verdict(self, stones: Sequence[tuple[int, int]]) -> Verdict | None:
        """The judge's verdict for the side to move after `stones`; None if it printed no evaluation (a move it
        found without searching) or failed twice."""
        for attempt in range(2):
            try:
                if self._client is None:
                    self._client = BrainClient(self.command, garbage="ignore")
                    self._client.start()
                    self._client.new_game(self.settings, self.timeout_s)
                reply = self._client.board(board_fields(stones), self.timeout_s + 5)
                if not self._client.await_listening():
                    self.close()
                return parse_verdict(reply.messages, (reply.x, reply.y))
            except BrainFault:
                self.close()
                self.restarts += 1
        return None
