"""Elo, its 95% interval, LOS and the pentanomial SPRT against reference values computed by hand or published.

Published references:
- fastchess (Disservin/fastchess), tests/elo_test.cpp: W/L/D -> Elo and 95% half-width.
- fastchess, tests/sprt_test.cpp: pentanomial LLRs for the logistic and normalized models. Its Stats(...) takes the
  pair counts in the order LL, LD, WL, DD, WD, WW; WL and DD both score one point, so they add up in our 1-point class.
- fastchess output published in Toudonou/zeno (docs/testing.md, "SPRT results per features"): Elo +/- half-width,
  LOS and LLR of real pentanomial results, printed to two decimals.
"""

from __future__ import annotations

import math

import pytest

from monte.tournaments.stats import (
    SPRT,
    EloEstimate,
    elo_from_pentanomial,
    elo_from_wdl,
    elo_to_score,
    score_to_elo,
)


def half_width(est: EloEstimate) -> float:
    return (est.upper - est.lower) / 2


# --- the logistic Elo scale -------------------------------------------------------------------------------------------

def test_score_of_three_to_one_is_400_log10_3_elo():
    assert score_to_elo(0.75) == pytest.approx(190.8485019, abs=1e-6)   # 400 * log10(3)
    assert elo_to_score(190.8485019) == pytest.approx(0.75, abs=1e-9)


def test_score_to_elo_is_infinite_at_the_ends_and_nan_for_nan():
    assert score_to_elo(1.0) == math.inf
    assert score_to_elo(0.0) == -math.inf
    assert math.isnan(score_to_elo(math.nan))


# --- Elo from win/draw/loss -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("wins, losses, draws, elo, error", [
    (0, 36, 14, -315.34, 95.43),
    (859, 772, 1329, 10.21, 9.28),
    (1164, 1267, 3049, -6.53, 6.12),
])
def test_wdl_elo_matches_fastchess_elo_test(wins, losses, draws, elo, error):
    est = elo_from_wdl(wins, draws, losses)
    # fastchess checks with doctest::Approx(...).epsilon(0.01), a 1% relative tolerance; we do the same.
    assert est.elo == pytest.approx(elo, rel=0.01)
    assert half_width(est) == pytest.approx(error, rel=0.01)


def test_wdl_interval_and_los_follow_the_per_game_variance_worked_by_hand():
    # 6 wins, 2 draws, 2 losses: score 0.7; per-game variance (6*0.3^2 + 2*0.2^2 + 2*0.7^2)/10 = 0.16;
    # sigma of the mean sqrt(0.016) = 0.1264911; score bounds 0.7 -+ 1.959964*sigma = 0.4520820 .. 0.9479180;
    # Elo = -400*log10(1/s - 1) of each; LOS = Phi(0.2/sigma) = 0.9430769.
    est = elo_from_wdl(6, 2, 2)
    assert est.games == 10
    assert est.score == pytest.approx(0.7)
    assert est.elo == pytest.approx(147.1907141, abs=1e-6)
    assert est.lower == pytest.approx(-33.3993500, abs=1e-6)
    assert est.upper == pytest.approx(504.0332922, abs=1e-6)
    assert est.los == pytest.approx(0.9430769, abs=1e-6)


def test_equal_wins_and_losses_give_zero_elo_and_even_los():
    est = elo_from_wdl(7, 3, 7)
    assert est.elo == pytest.approx(0.0)
    assert est.los == pytest.approx(0.5)
    assert est.lower == pytest.approx(-est.upper)


def test_an_interval_past_score_zero_or_one_has_an_infinite_bound():
    est = elo_from_wdl(1, 0, 1)   # score 0.5 -+ 0.98: clipped to 0 and 1
    assert est.lower == -math.inf and est.upper == math.inf
    assert str(est) == "+0.0 [-inf, +inf] LOS 50.0%"


# --- Elo from game pairs ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ptnml, elo, error, los", [
    ([208, 485, 1102, 652, 358], 28.99, 7.05, 100.00),
    ([531, 1096, 2084, 1150, 663], 10.00, 5.16, 99.99),
    ([1909, 4418, 9199, 4508, 1964], 1.58, 2.42, 89.97),
    ([224, 309, 874, 347, 246], 7.12, 8.57, 94.84),
])
def test_pentanomial_elo_matches_published_fastchess_output(ptnml, elo, error, los):
    est = elo_from_pentanomial(ptnml)
    assert est.elo == pytest.approx(elo, abs=0.006)
    assert half_width(est) == pytest.approx(error, abs=0.006)
    assert 100 * est.los == pytest.approx(los, abs=0.006)
    assert est.games == 2 * sum(ptnml)


def test_pentanomial_interval_uses_the_pair_variance_worked_by_hand():
    # Pairs scoring 0, 1 (x6) and 2 points: per-game means 0, 0.5, 1; variance (2*0.25 + 2*0.25)/10 = 0.1 per pair;
    # sigma sqrt(0.1/10) = 0.1; upper score 0.5 + 0.1959964 -> 143.8913054 Elo. The same 20 games counted one by one
    # (10 wins and 10 losses if every 1-point pair was a win and a loss) give a wider interval: sigma sqrt(0.25/20).
    est = elo_from_pentanomial([2, 0, 6, 0, 2])
    assert est.elo == pytest.approx(0.0)
    assert est.upper == pytest.approx(143.8913054, abs=1e-6)
    assert est.lower == pytest.approx(-143.8913054, abs=1e-6)
    assert half_width(est) < half_width(elo_from_wdl(10, 0, 10))


# --- edge cases -------------------------------------------------------------------------------------------------------

def test_all_wins_give_infinite_elo_with_a_finite_exact_lower_bound():
    # No loss in 10 games: the chance of a non-win is below 1 - 0.025**(1/10) at 97.5%, so the score is at least
    # 0.025**(1/10) = 0.6915029 -> 140.2171616 Elo.
    est = elo_from_wdl(10, 0, 0)
    assert est.elo == math.inf and est.upper == math.inf
    assert est.lower == pytest.approx(140.2171616, abs=1e-6)
    assert est.los == 1.0
    assert str(est) == "+inf [+140.2, +inf] LOS 100.0%"


def test_all_losses_mirror_all_wins():
    est = elo_from_wdl(0, 0, 10)
    assert est.elo == -math.inf and est.lower == -math.inf
    assert est.upper == pytest.approx(-140.2171616, abs=1e-6)
    assert est.los == 0.0


def test_every_pair_split_is_not_reported_as_certainty():
    # Every pair 1-1 (each engine wins with black): zero variance, yet 5 pairs cannot pin the Elo to exactly 0.
    est = elo_from_pentanomial([0, 0, 5, 0, 0])
    assert est.elo == pytest.approx(0.0)
    assert est.lower < -100 and est.upper > 100
    assert est.los == 0.5


def test_no_games_give_nan_printed_as_not_available():
    for est in (elo_from_wdl(0, 0, 0), elo_from_pentanomial([0, 0, 0, 0, 0])):
        assert est.games == 0
        assert all(math.isnan(v) for v in (est.elo, est.lower, est.upper, est.los, est.score))
        assert str(est) == "n/a (no games)"


@pytest.mark.parametrize("counts", [[1, 2, 3], [1, 2, 3, 4, -5], [1, 2, 3, 4, 2.5]])
def test_bad_pentanomial_counts_are_refused_with_a_clear_message(counts):
    with pytest.raises(ValueError, match="pentanomial"):
        elo_from_pentanomial(counts)


def test_negative_wdl_counts_are_refused():
    with pytest.raises(ValueError, match="win/draw/loss"):
        elo_from_wdl(3, -1, 2)


# --- SPRT -------------------------------------------------------------------------------------------------------------

def test_sprt_bounds_are_wald_log_ratios():
    assert SPRT(0, 5).bounds() == pytest.approx((-math.log(19), math.log(19)))   # alpha = beta = 0.05
    # Published "(-2.25, 2.89)" for alpha 0.05, beta 0.1: log(0.1/0.95) and log(0.9/0.05).
    lower, upper = SPRT(0, 2, alpha=0.05, beta=0.1).bounds()
    assert (round(lower, 2), round(upper, 2)) == (-2.25, 2.89)


@pytest.mark.parametrize("ll, ld, wl, dd, wd, ww, elo0, elo1, model, expected", [
    (365, 16618, 36029, 200, 16974, 390, 0, 2, "normalized", 2.25),
    (127, 4883, 10311, 401, 5150, 104, -1.75, 0.25, "normalized", 3.01),
    (223, 9863, 20279, 1000, 10037, 246, 0.5, 2.5, "logistic", -3.07),
    (871, 26175, 55003, 980, 26678, 821, 0, 2, "logistic", -4.98),
])
def test_sprt_llr_matches_fastchess_sprt_test(ll, ld, wl, dd, wd, ww, elo0, elo1, model, expected):
    llr = SPRT(elo0, elo1, model=model).llr([ll, ld, wl + dd, wd, ww])
    assert llr == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("ptnml, elo0, elo1, expected", [
    ([224, 309, 874, 347, 246], 0, 2, 0.53),      # "History Heuristic", Zeno current vs Zeno develop
    ([183, 319, 779, 398, 321], 15, 18, 2.08),    # "History Heuristic", Zeno current vs Zeno 1.0
])
def test_sprt_llr_matches_published_unfinished_fastchess_runs(ptnml, elo0, elo1, expected):
    # Printed as "LLR: 0.53 (18.2%) (-2.25, 2.89) [0.00, 2.00]": fastchess's default normalized model.
    sprt = SPRT(elo0, elo1, alpha=0.05, beta=0.1, model="normalized")
    assert round(sprt.llr(ptnml), 2) == expected
    assert sprt.decision(ptnml) is None


def test_sprt_accepts_h1_for_a_clearly_stronger_engine_and_h0_for_a_weaker_one():
    sprt = SPRT(0, 50)
    assert sprt.decision([2, 10, 30, 40, 30]) == "H1"
    assert sprt.decision([30, 40, 30, 10, 2]) == "H0"
    assert sprt.llr([2, 10, 30, 40, 30]) > 0 > sprt.llr([30, 40, 30, 10, 2])


def test_sprt_keeps_going_on_little_evidence_and_on_no_pairs():
    sprt = SPRT(0, 10)
    assert sprt.decision([1, 2, 3, 2, 1]) is None
    assert sprt.llr([0, 0, 0, 0, 0]) == 0.0
    assert sprt.decision([0, 0, 0, 0, 0]) is None


def test_sprt_llr_stays_finite_when_pair_classes_are_empty():
    assert math.isfinite(SPRT(0, 5).llr([0, 0, 0, 0, 12]))
    assert math.isfinite(SPRT(0, 5, model="normalized").llr([0, 0, 7, 0, 0]))


@pytest.mark.parametrize("kwargs, field", [
    (dict(elo0=5, elo1=0), "elo0 < elo1"),
    (dict(elo0=0, elo1=5, alpha=0), "alpha"),
    (dict(elo0=0, elo1=5, beta=1.5), "beta"),
    (dict(elo0=0, elo1=5, alpha=0.6, beta=0.5), "alpha \\+ beta"),
    (dict(elo0=0, elo1=5, model="bayesian"), "model"),
])
def test_bad_sprt_settings_are_refused_naming_the_setting(kwargs, field):
    with pytest.raises(ValueError, match=field):
        SPRT(**kwargs)
