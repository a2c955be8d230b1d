"""The engine's knobs (``brain.settings``): every one can be set with ``pbrain-monte --set NAME=VALUE``, and a value
the search cannot work with is refused by name before a game starts, instead of failing inside the search."""

from __future__ import annotations

import math
import subprocess
from dataclasses import fields

import pytest

from monte.brain.settings import BOUNDS, Options, Params, configure


def every_setting() -> dict[str, int | float]:
    """Each knob's name and default."""
    return {**Params()._asdict(), **{f.name: getattr(Options(), f.name) for f in fields(Options)}}


def test_every_setting_has_its_bounds_and_no_two_share_a_name():
    assert len(Params._fields) + len(fields(Options)) == len(every_setting()), "a name both in Params and Options"
    assert set(BOUNDS) == set(every_setting())


@pytest.mark.parametrize("name", sorted(every_setting()))
def test_every_default_is_inside_its_bounds_and_can_be_set_again(name):
    default = every_setting()[name]
    assert BOUNDS[name].admits(default)
    params, options = configure({name: str(default)})
    assert getattr(params if name in Params._fields else options, name) == default


def test_the_tree_vct_and_the_roots_vct_have_their_own_depths():
    params, options = configure({"vct_plies": "10", "root_vct_plies": "12"})
    assert (params.vct_plies, options.root_vct_plies) == (10, 12)


@pytest.mark.parametrize("name, text, says", [
    ("policy_temperature", "0", "above 0"),      # divided by in the compiled search: an internal error, no move
    ("eval_scale", "-1", "above 0"),
    ("c_puct_base", "0", "above 0"),
    ("max_children", "0", "at least 1"),         # claimed a mate in one
    ("root_children", "0", "at least 1"),        # answered "no saving move"
    ("c_puct", "nan", "at least 0"),             # millions of empty iterations
    ("fpu_reduction", "inf", "from -2 to 2"),
    ("vct_share", "1.5", "from 0 to 1"),
    ("eval_model", "2", "0 or 1"),
    ("vcf_plies", "-1", "at least 0"),
])
def test_a_value_the_search_cannot_use_is_refused_by_name(name, text, says):
    with pytest.raises(ValueError, match=f"'{name}' must be {says}, not '{text}'"):
        configure({name: text})


def test_a_bound_admits_only_finite_values():
    assert not any(bound.admits(math.nan) or bound.admits(math.inf) for bound in BOUNDS.values())


def test_pbrain_monte_refuses_a_bad_setting_in_one_line_before_any_game(pbrain_executable):
    result = subprocess.run([pbrain_executable, "--set", "policy_temperature=0"], input="START 15\n",
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    last = result.stderr.strip().splitlines()[-1]
    assert "policy_temperature" in last and "above 0" in last and "Traceback" not in result.stderr
