"""The diffusion approximation: the session result as Brownian motion with the round's drift.

With mean mu and standard deviation sigma per round, S_t ~ mu t + sigma W_t. For a bankroll B
(ruin: S reaches -B) and theta = 2 mu / sigma^2:

* long run: P(ruin) = exp(-theta B) for mu > 0, else 1; with a stop-win at +W (two barriers)
  ``(exp(-theta B) - exp(-theta (B + W))) / (1 - exp(-theta (B + W)))`` (W / (B + W) at mu = 0);
* within T rounds (no stop-win): the first-passage law of drifted Brownian motion,
  ``Phi((-B - mu T) / (sigma sqrt T)) + exp(-theta B) Phi((-B + mu T) / (sigma sqrt T))``;
* the result after T rounds, stopped at ruin: an atom at -B of that probability, and on
  (-B, inf) the density by the method of images,
  ``[phi((y - mu T)/s) - exp(-theta B) phi((y + 2B - mu T)/s)] / s``, s = sigma sqrt T.

A continuous path cannot jump past a level: a stop-loss below the bankroll means no ruin at
all, and the lattice's overshoot is missing. The exact programme has both; the comparison
shows where the approximation holds (many small rounds, a bankroll of many SDs of a round).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr

NAN = math.nan


def long_run_ruin(mu: float, sigma: float, bankroll: float, stop_win: float | None = None
                  ) -> float:
    """P(ever ruined) of the diffusion."""
    if sigma <= 0:
        return 0.0 if mu >= 0 else 1.0
    theta = 2 * mu / sigma ** 2
    if stop_win is None:
        return 1.0 if mu <= 0 else math.exp(-theta * bankroll)
    top = bankroll + stop_win
    if abs(theta * top) < 1e-12:
        return stop_win / top
    # (e^{-tB} - e^{-t(B+W)}) / (1 - e^{-t(B+W)}), written to avoid overflow for t < 0
    return float(-math.expm1(-theta * stop_win) / -math.expm1(-theta * top)
                 * math.exp(-theta * bankroll)) if theta > 0 else float(
        math.expm1(theta * bankroll) / math.expm1(theta * top))


def _log_first(mu: float, sigma: float, bankroll: float, rounds: float) -> tuple[float, float]:
    s = sigma * math.sqrt(rounds)
    theta = 2 * mu / sigma ** 2
    a = log_ndtr((-bankroll - mu * rounds) / s)
    b = -theta * bankroll + log_ndtr((-bankroll + mu * rounds) / s)
    return float(a), float(b)


def session_ruin(mu: float, sigma: float, bankroll: float, rounds: float,
                 stop_win: float | None = None, stop_loss: float | None = None) -> float:
    """P(ruin within ``rounds``) of the diffusion; NaN with a stop-win (two barriers and a
    horizon: no closed form used here)."""
    if stop_loss is not None and stop_loss < bankroll:
        return 0.0
    if stop_win is not None:
        return NAN
    if sigma <= 0:
        return 1.0 if mu * rounds <= -bankroll else 0.0
    a, b = _log_first(mu, sigma, bankroll, rounds)
    return float(min(1.0, math.exp(a) + math.exp(b)))


def result_cdf(mu: float, sigma: float, bankroll: float, rounds: float, x: float) -> float:
    """P(session result <= x), the session stopped at ruin (no stops)."""
    if x < -bankroll:
        return 0.0
    if sigma <= 0:  # a sure path: it ends at mu T, or at ruin
        return 1.0 if max(mu * rounds, -bankroll) <= x else 0.0
    s = sigma * math.sqrt(rounds)
    theta = 2 * mu / sigma ** 2
    ruin = session_ruin(mu, sigma, bankroll, rounds)
    m = mu * rounds
    free = ndtr((x - m) / s) - ndtr((-bankroll - m) / s)
    log_img = -theta * bankroll
    image = math.exp(log_img + math.log(max(1e-300, ndtr((x + 2 * bankroll - m) / s)
                                            - ndtr((bankroll - m) / s))))
    return float(min(1.0, max(0.0, ruin + free - image)))


def result_quantile(mu: float, sigma: float, bankroll: float, rounds: float, q: float
                    ) -> float:
    """The q-quantile of the session result (the ruin atom at -bankroll included)."""
    if sigma <= 0:
        return max(mu * rounds, -bankroll)
    if result_cdf(mu, sigma, bankroll, rounds, -bankroll) >= q:
        return -bankroll
    hi = mu * rounds + 12 * sigma * math.sqrt(rounds) + 1.0
    return float(brentq(lambda x: result_cdf(mu, sigma, bankroll, rounds, x) - q,
                        -bankroll, hi, xtol=1e-9))


def bankroll_for_risk(mu: float, sigma: float, target: float, rounds: float | None) -> float:
    """The bankroll at which the diffusion's risk of ruin (ever, or within ``rounds``) is
    ``target``; NaN in the long run of a game with a non-positive drift."""
    if sigma <= 0:  # a sure path: any bankroll above its lowest point
        return (0.0 if mu >= 0 else NAN) if rounds is None else max(0.0, -mu * rounds)
    if rounds is None:
        if mu <= 0:
            return NAN
        return sigma ** 2 * math.log(1 / target) / (2 * mu)
    hi = max(1.0, abs(mu) * rounds) + 40 * sigma * math.sqrt(rounds)
    if session_ruin(mu, sigma, hi, rounds) > target:
        return NAN
    return float(brentq(lambda b: session_ruin(mu, sigma, b, rounds) - target, 1e-9, hi,
                        xtol=1e-9))


def ruin_curve(mu: float, sigma: float, bankrolls: np.ndarray, rounds: float,
               stop_win: float | None = None) -> np.ndarray:
    """Session ruin at each bankroll."""
    return np.array([session_ruin(mu, sigma, float(b), rounds, stop_win) for b in bankrolls])
