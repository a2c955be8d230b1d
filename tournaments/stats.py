"""Match statistics: Elo with a 95% interval, likelihood of superiority (LOS), and the pentanomial SPRT.

Everything here is plain arithmetic on counts (no scipy), so the tournament runner can recompute it after every game.

Elo model: the logistic one of chess rating lists. A score s (points per game, 0..1) means an Elo difference
``-400 * log10(1/s - 1)``; the interval and LOS come from the normal approximation of the mean score, using the
variance of the observed results -- per game for win/draw/loss counts, per game pair for pentanomial counts. Games
come in pairs from one opening with colours swapped, and in Gomoku the colour matters a great deal, so the pair
variance is the honest one: the two games of a pair are not independent.

The SPRT is the generalized SPRT of fishtest (M. Van den Bergh, "Comments on Normalized Elo" and
"support_MLE_multinomial"), applied to game pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

NELO_PER_T = 800.0 / math.log(10.0)
"""Normalized Elo per unit of t-value (score excess over its standard deviation), as fishtest defines it."""

_REGULARIZE = 1e-3
"""fishtest's stand-in for an empty outcome class, so that every likelihood stays finite."""

MODELS = ("logistic", "normalized")
"""The Elo models the SPRT understands for elo0 and elo1."""


def score_to_elo(score: float) -> float:
    """The logistic Elo difference for a score (points per game, 0..1); +-inf at 1 and 0, NaN for NaN."""
    if math.isnan(score):
        return math.nan
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    """The expected score (points per game) of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _format_elo(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value, 1) + 0.0:+.1f}"  # + 0.0 turns a rounded -0.0 into 0.0


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference measured from results, from the first player's point of view.

    ``lower``/``upper`` bound the 95% interval (they can be infinite: a score bound at 0 or 1 has no finite Elo);
    ``los`` is the likelihood of superiority, the probability that the first player is truly the stronger; ``score``
    is points per game; ``games`` counts games (two per pair for pentanomial counts). With no games every number is
    NaN, printed as ``n/a``.
    """

    elo: float
    lower: float
    upper: float
    los: float
    score: float
    games: int

    def __str__(self) -> str:
        if self.games == 0:
            return "n/a (no games)"
        return (
            f"{_format_elo(self.elo)} [{_format_elo(self.lower)}, {_format_elo(self.upper)}]"
            f" LOS {100.0 * self.los:.1f}%"
        )


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _estimate(values: Sequence[float], counts: Sequence[int], games: int) -> EloEstimate:
    """Elo, interval and LOS from a sample where ``counts[i]`` samples scored ``values[i]`` (each 0..1)."""
    n = sum(counts)
    if n == 0:
        return EloEstimate(math.nan, math.nan, math.nan, math.nan, math.nan, 0)
    mean = sum(v * c for v, c in zip(values, counts)) / n
    variance = sum(c * (v - mean) ** 2 for v, c in zip(values, counts)) / n
    if variance > 0.0:
        sigma = math.sqrt(variance / n)
        low, high = mean - Z95 * sigma, mean + Z95 * sigma
        los = _normal_cdf((mean - 0.5) / sigma)
    else:
        # Every sample alike (all wins, or every pair split 1-1): the normal approximation would claim certainty.
        # Seeing no other result in n tries bounds its chance p by the exact binomial 97.5% limit,
        # 1 - 0.025**(1/n); the mean can then move by p times the largest step open to it, down or up.
        p_other = 1.0 - 0.025 ** (1.0 / n)
        low, high = mean - p_other * mean, mean + p_other * (1.0 - mean)
        los = 1.0 if mean > 0.5 else 0.0 if mean < 0.5 else 0.5
    return EloEstimate(
        elo=score_to_elo(mean),
        lower=score_to_elo(max(0.0, low)),
        upper=score_to_elo(min(1.0, high)),
        los=los,
        score=mean,
        games=games,
    )


def _check_counts(counts: Sequence[int], size: int, what: str) -> list[int]:
    if len(counts) != size:
        raise ValueError(f"{what} needs {size} counts, got {len(counts)}: {list(counts)!r}")
    if any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in counts):
        raise ValueError(f"{what} counts must be whole numbers >= 0, got {list(counts)!r}")
    return list(counts)


def elo_from_wdl(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo from win/draw/loss counts, with the per-game (trinomial) variance."""
    counts = _check_counts([losses, draws, wins], 3, "win/draw/loss")
    return _estimate((0.0, 0.5, 1.0), counts, sum(counts))


def elo_from_pentanomial(counts: Sequence[int]) -> EloEstimate:
    """Elo from game-pair counts: how many pairs scored 0, 0.5, 1, 1.5 and 2 points (per-pair variance)."""
    counts = _check_counts(counts, 5, "pentanomial")
    return _estimate((0.0, 0.25, 0.5, 0.75, 1.0), counts, 2 * sum(counts))


# --- the generalized SPRT -----------------------------------------------------------------------------------------

def _mean_var(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mean = sum(v * p for v, p in zip(values, probs))
    return mean, sum(p * (v - mean) ** 2 for v, p in zip(values, probs))


def _solve_secular(values: Sequence[float], probs: Sequence[float]) -> float:
    """The root x of sum p_i v_i / (1 + x v_i) = 0 between -1/max(v) and -1/min(v) (needs min(v) < 0 < max(v)).

    The sum falls strictly with x on that range, from +inf to -inf, so bisection always finds the one root.
    """
    low, high = -1.0 / max(values), -1.0 / min(values)
    for _ in range(200):
        mid = 0.5 * (low + high)
        if mid in (low, high):
            break
        if sum(p * v / (1.0 + mid * v) for v, p in zip(values, probs)) > 0.0:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def _mle_with_mean(values: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution closest (maximum likelihood) to the observed one whose mean score is s."""
    shifted = [v - s for v in values]
    x = _solve_secular(shifted, probs)
    return [p / (1.0 + x * a) for a, p in zip(shifted, probs)]


def _mle_with_t(values: Sequence[float], probs: Sequence[float], t: float) -> list[float]:
    """The maximum-likelihood distribution whose t-value (mean - 1/2) / sigma is t, by fixed-point iteration."""
    current = [1.0 / len(values)] * len(values)
    for _ in range(100):
        mu, var = _mean_var(values, current)
        sigma = math.sqrt(var)
        phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in values]
        x = _solve_secular(phi, probs)
        updated = [p / (1.0 + x * f) for f, p in zip(phi, probs)]
        done = max(abs(u - c) for u, c in zip(updated, current)) < 1e-12
        current = updated
        if done:
            break
    return current


@dataclass
class SPRT:
    """Sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1, over game pairs.

    ``model`` says which Elo elo0 and elo1 are in. ``"logistic"`` (the default, the same Elo as the results table)
    is fishtest's ``LLR_logistic``: the log-likelihood ratio of the two maximum-likelihood pentanomial
    distributions whose mean score is that of elo0 and of elo1. ``"normalized"`` is fishtest's ``LLR_normalized``
    (fishtest's own default): the hypotheses fix the normalized Elo, the score excess over its spread, which does
    not depend on the draw rate or on how much the colours decide.
    Empty pentanomial classes count as 1e-3 pairs, as in fishtest, so the ratio stays finite.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got elo0={self.elo0!r} elo1={self.elo1!r}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"SPRT {name} must lie strictly between 0 and 1, got {value!r}")
        if self.alpha + self.beta >= 1.0:
            raise ValueError(f"SPRT needs alpha + beta < 1, got {self.alpha!r} + {self.beta!r}")
        if self.model not in MODELS:
            raise ValueError(f"SPRT model must be one of {', '.join(MODELS)}; got {self.model!r}")

    def bounds(self) -> tuple[float, float]:
        """The LLR at which H0 (lower bound) or H1 (upper bound) is accepted."""
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)

    def llr(self, pentanomial: Sequence[int]) -> float:
        """The log-likelihood ratio of H1 over H0 for pair counts with 0, 0.5, 1, 1.5 and 2 points; 0 with no pairs."""
        counts = _check_counts(pentanomial, 5, "pentanomial")
        if sum(counts) == 0:
            return 0.0
        filled = [c if c > 0 else _REGULARIZE for c in counts]
        pairs = sum(filled)
        probs = [c / pairs for c in filled]
        values = (0.0, 0.25, 0.5, 0.75, 1.0)
        if self.model == "logistic":
            p0 = _mle_with_mean(values, probs, elo_to_score(self.elo0))
            p1 = _mle_with_mean(values, probs, elo_to_score(self.elo1))
        else:
            # A pair's score has sqrt(2) times the t-value of one game's (fishtest's convention).
            p0 = _mle_with_t(values, probs, math.sqrt(2.0) * self.elo0 / NELO_PER_T)
            p1 = _mle_with_t(values, probs, math.sqrt(2.0) * self.elo1 / NELO_PER_T)
        return pairs * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1))

    def decision(self, pentanomial: Sequence[int]) -> str | None:
        """``"H1"`` once the LLR reaches the upper bound, ``"H0"`` once it reaches the lower one, else None."""
        value = self.llr(pentanomial)
        lower, upper = self.bounds()
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"
        return None
