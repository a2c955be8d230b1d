"""The engine's knobs: the search kernel's ``Params`` and the player's ``Options``, and ``configure``, which sets
them from ``pbrain-monte --set NAME=VALUE`` so that the tournament runner can weigh one setting against another.

A module of its own, free of numba, so that ``pbrain-monte`` checks its command line before it loads the compiler.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple


class Params(NamedTuple):
    """Search knobs (tuned by games, not by guess; see the README's strength report)."""

    c_puct: float = 2.2
    c_puct_log: float = 0.0    # exploration growing with a node's visits N: c_puct + c_puct_log * ln(1 + N / base)
    c_puct_base: float = 10_000.0  # ...this base (0 c_puct_log: a constant c_puct; big trees explore wider at the root)
    eval_model: int = 1        # leaf value: 1 = the value network (brain.evaluation), 0 = the hand-set one
    fpu_reduction: float = 0.25
    policy_model: int = 1      # priors: 1 = the learned move policy (brain.policy), 0 = hand-set cell values
    policy_temperature: float = 1.0  # ...the learned logits' softmax temperature
    prior_power: float = 0.7   # ...the hand-set values' power
    eval_scale: float = 260.0
    max_children: int = 24
    vcf_nodes: int = 40        # in-tree VCF budget per expansion (0 disables)
    vcf_plies: int = 14
    vcf_min_fours: int = 3     # ...tried only where the side to move has a four-three point or this many fours,
    vcf_visits: int = 8        # ...the latter when the node's visits reach this (1: at expansion)
    vcf_chain: int = 1         # 1: the in-tree VCF follows dependent chains of fours only (see find_vcf)
    rollout_plies: int = 0     # leaf value: 0 = the pattern evaluation; N = a tactical rollout of up to N plies
    rollout_width: int = 6     # a rollout move is drawn among this many best moves, by their prior weights
    vct_visits: int = 128      # in-tree VCT: a node is asked whether its side to move wins by threats when its visits
    vct_ratio: float = 0.25    # ...reach this and each doubling after, with this many VCT nodes per visit (0: off),
    vct_depth: int = 2         # ...at this depth below the root or less,
    vct_call_nodes: int = 3000  # ...at most this many at a time (~10 ms: the clock is read between search calls)
    vct_plies: int = 24
    graph: int = 1             # 1: two move orders that reach one position share its node (brain.tree), 0: a tree
    sticky: float = 0.25       # below the root, a node keeps the child the last iteration went into while that child's
                               # PUCT score, its exploration term raised by this share, is still the best (0: off)


@dataclass(frozen=True)
class Options:
    """The engine's knobs around the search kernel (the kernel's own are ``Params``); each can be set with
    ``pbrain-monte --set NAME=VALUE`` so that the tournament runner can weigh one setting against another.

    ``vct_max_nodes = 0`` switches every VCT off (ours, the opponent's threat check, the root filter, the quiet-threat
    checks); ``quiet_share = 0`` the quiet-threat checks alone."""

    root_children: int = 40        # the root considers more moves than inner nodes (Params.max_children)
    root_vcf_nodes: int = 60_000   # our own VCF at the root
    root_vct_plies: int = 30       # how deep the VCTs around the root may go (plies of both sides)
    vct_max_nodes: int = 1_000_000  # the most any one VCT may search (0: no VCT)
    vct_share: float = 0.12        # the share of the move's time our own VCT may use
    threat_share: float = 0.08     # ...the opponent's VCT in the position as it stands (is there a threat at all?)
    filter_share: float = 0.35     # ...the root filter (every move against the opponent's VCF, then VCT)
    clear_visit_ratio: float = 1.8  # at the soft deadline the search stops if its favourite has this many times
    clear_value_slack: float = 0.03  # the runner-up's visits and a value no worse than the runner-up's less this
    checked_choices: int = 4       # how many chosen moves may be replaced after the opponent's VCT refutes them
    choice_share: float = 0.25     # a root move with this share of the favourite's visits is played instead when
    choice_z: float = 3.0          # ...its mean value less this / sqrt(visits) is higher (brain.root_choice; 0: off)
    quiet_share: float = 0.0       # ...the quiet-threat checks: a quiet move then a VCT, ours and the opponent's;
                                   # off: continuing a game they claimed false wins (+M11, then +M2) and lost to greedy
    quiet_attack: float = 0.3      # ...of which our own quiet win may use this part (0 quiet_share: both off)
    quiet_after: float = 0.3       # the part of the move's MCTS run before the root's best moves are checked
    quiet_moves: int = 8           # the attacker's quiet moves tried per question (brain.quiet_threats)


class Bound(NamedTuple):
    """The values a setting may take: from `low` (`low` itself excluded when `above`) to `high`; floats finite."""

    low: float
    high: float = math.inf
    above: bool = False

    def admits(self, value: float) -> bool:
        return math.isfinite(value) and (value > self.low if self.above else value >= self.low) and value <= self.high

    def describe(self) -> str:
        if self.above:
            return f"above {self.low:g}"
        if self.high == math.inf:
            return f"at least {self.low:g}"
        if isinstance(self.low, int) and isinstance(self.high, int) and self.high == self.low + 1:
            return f"{self.low} or {self.high}"
        return f"from {self.low:g} to {self.high:g}"


SWITCH = Bound(0, 1)       # an int: 0 or 1
SHARE = Bound(0.0, 1.0)    # a float: a share of a move's time or of a run
COUNT = Bound(0)           # nodes, plies, moves: 0 means none
SOME = Bound(1)            # at least one
SCALE = Bound(0.0, above=True)  # the search divides by it

BOUNDS: dict[str, Bound] = {
    "c_puct": Bound(0.0), "c_puct_log": Bound(0.0), "c_puct_base": SCALE, "eval_model": SWITCH,
    "fpu_reduction": Bound(-2.0, 2.0), "policy_model": SWITCH, "policy_temperature": SCALE, "prior_power": Bound(0.0),
    "eval_scale": SCALE, "max_children": SOME, "vcf_nodes": COUNT, "vcf_plies": COUNT, "vcf_min_fours": COUNT,
    "vcf_visits": SOME, "vcf_chain": SWITCH, "rollout_plies": COUNT, "rollout_width": SOME, "vct_visits": SOME,
    "vct_ratio": Bound(0.0), "vct_depth": COUNT, "vct_call_nodes": COUNT, "vct_plies": COUNT, "graph": SWITCH,
    "sticky": Bound(0.0),
    "root_children": SOME, "root_vcf_nodes": COUNT, "root_vct_plies": COUNT, "vct_max_nodes": COUNT,
    "vct_share": SHARE, "threat_share": SHARE, "filter_share": SHARE, "clear_visit_ratio": Bound(0.0),
    "clear_value_slack": Bound(0.0, 2.0), "checked_choices": COUNT, "choice_share": SHARE,
    "choice_z": Bound(0.0), "quiet_share": SHARE, "quiet_attack": SHARE,
    "quiet_after": SHARE, "quiet_moves": COUNT,
}
"""Every setting's admissible values. Outside them the search does not fail loudly: a zero temperature divides by
zero in the compiled search (an internal error instead of a move), ``max_children`` 0 claimed a mate in one, a NaN
``c_puct`` searched millions of empty iterations. ``configure`` refuses such a value, naming the setting."""


def configure(settings: dict[str, str]) -> tuple[Params, Options]:
    """Params and Options with `settings` (name -> text) applied; ValueError names an unknown or bad setting."""
    params, options = Params(), Options()
    for name, text in settings.items():
        if name in Params._fields:
            params = params._replace(**{name: _value(name, text, type(getattr(params, name)))})
        elif name in Options.__dataclass_fields__:
            options = replace(options, **{name: _value(name, text, type(getattr(options, name)))})
        else:
            known = ", ".join(sorted((*Params._fields, *Options.__dataclass_fields__)))
            raise ValueError(f"unknown setting {name!r}; known: {known}")
    return params, options


def _value(name: str, text: str, kind: type) -> int | float:
    value = _parse(name, text, kind)
    bound = BOUNDS[name]
    if not bound.admits(value):
        raise ValueError(f"setting {name!r} must be {bound.describe()}, not {text!r}")
    return value


def _parse(name: str, text: str, kind: type) -> int | float:
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"setting {name!r} needs a {kind.__name__}, not {text!r}") from None
