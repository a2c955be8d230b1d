"""Probe: what the move policy's threat contexts are worth in held-out log-likelihood (README, "The move policy").

Collects the fit's examples as `monte fit-policy` does (same games, same held-out openings, same split: seed 1, a
fifth of the games), fits the policy twice -- with each position's threat context, and with every context set to 0
(one shared class-pair table: the model before) -- and judges both, plus the weights before the contexts (9e28ad9's
``brain/policy_weights.py``, read with git), on the held-out games, and on the held-out 5-stone self-play games alone
(none of which any of the three fits saw). Run from the repository root:

    python tournaments/reports/policy/probes/contexts.py
"""

from __future__ import annotations

import subprocess

import numpy as np

from monte.lab import fit_policy as fp
from monte.lab.held_out import learnable
from monte.tournaments.records import read_jsonl

SP, P = "tournaments/reports/sparring", "tournaments/reports/policy"
SELFPLAY_5STONE = f"{P}/rapfi-selfplay-5stone/games.jsonl"
GAMES = [f"{P}/rapfi-selfplay/games.jsonl", SELFPLAY_5STONE] + [
    f"{SP}/{run}/games.jsonl" for run in ("spar-final", "spar-base20", "spar-ev1", "spar-base", "spar-rapfi-levels")]
LEARN_FROM = {"rapA", "rapB", "ra", "rb", "rapfi", "pentazen", "r100k", "r300k"}
HELD_OUT = ["tournaments/openings/freestyle15-balanced-test.txt", "tournaments/openings/freestyle20-balanced-test.txt",
            "../shared/openings/piskvork-3stone.txt"]


def weights_before() -> np.ndarray:
    """9e28ad9's policy weights as one vector of the fit's layout (its one class-pair table shared by every context)."""
    text = subprocess.run(["git", "show", "9e28ad9:brain/policy_weights.py"], capture_output=True, text=True,
                          check=True).stdout
    namespace: dict = {}
    exec(text, namespace)
    head = np.concatenate([namespace["ATTACK"], namespace["DEFENCE"], namespace["DISTANCE"], namespace["CLASS_PAIRS"]])
    return np.concatenate([head, np.zeros(fp.WEIGHT_COUNT - head.shape[0])])


def flat(ex: fp.Examples) -> fp.Examples:
    """A copy of `ex` with every position in context 0: the model without contexts, fitted and judged."""
    out = fp.subset(ex, np.ones(ex.positions, dtype=bool))
    out.context[:] = 0
    return out


def line(name: str, w: np.ndarray, ex: fp.Examples) -> str:
    z = fp.logits(w, ex, fp.code_features())
    return "  " + fp.judge(z, fp._softmax(z, ex), ex).line(name)


def main() -> None:
    records, first_5stone = [], 0
    for path in GAMES:
        kept, _ = learnable(list(read_jsonl(path)), HELD_OUT)
        if path == SELFPLAY_5STONE:
            first_5stone = len(records)
            last_5stone = first_5stone + len(kept)
        records += kept
    examples = fp.collect(records, LEARN_FROM)
    train, held = fp.split_games(examples, 0.2, 1)
    with_contexts, without = fp.fit(train), fp.fit(flat(train))
    selfplay = fp.subset(held, (held.game >= first_5stone) & (held.game < last_5stone))
    for name, ex in (("held-out games", held), ("held-out 5-stone self-play games", selfplay)):
        print(f"{name}: {ex.positions} positions")
        print(line("contexts", with_contexts, ex))
        print(line("none", without, flat(ex)))
        print(line("before", weights_before(), ex))


if __name__ == "__main__":
    main()
