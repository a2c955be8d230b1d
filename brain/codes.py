"""The numbers the board, the rules, the search and the protocol share: what a cell holds, the protocol's rule bits
(``INFO rule``) and what a move does. A module of its own, free of numba, so that the protocol's start-up path
(``pbrain-monte`` answering ``START``) can use them without loading the compiler."""

EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3

RULE_FREESTYLE = 0
RULE_EXACT_FIVE = 1
RULE_CONTINUOUS = 2
RULE_RENJU = 4
RULE_CARO = 8

MOVE_OK = 0
MOVE_WINS = 1
MOVE_FORBIDDEN = 2

UNKNOWN_LOSS_PLIES = 1000
"""Plies a proven loss is taken to last when the opponent's winning line was not found (the longest defence prefers
a measured loss to it); engines report it as ``-M1000``, and tools show such a proof without a number."""
