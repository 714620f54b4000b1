"""The risk table: per game x variant x strategy, one row for each method (exact, diffusion,
Monte Carlo), and the data behind the charts.

Columns: the session (bankroll, rounds, stops), ``p_ruin`` (within the session) with the MC's
``stderr_p_ruin`` and ``z_p_ruin_vs_exact``, ``p_ruin_long_run``, ``p_ahead``, how sessions
end, the session result's mean, SD and quantiles (with ``z_qNN_vs_exact``: the MC's share of
sessions at or below the exact quantile against the exact share), the bankroll for each target
risk within the session and in the long run, EV and SD per round and per hour, ``n0_rounds``
(rounds until the expected result equals one SD of it: (sigma / mu)^2) and ``score``.

``score`` is CVCX's SCORE: the EV per 100 rounds of a player who sizes his stake so that a
bankroll of 10,000 units has a long-run risk of ruin of e^-2 (13.5%), which is 10^6 (mu /
sigma)^2; a game whose drift is not positive has no such stake, and its score is 0 (the
best stake is none).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.core.progression import ProgressionSpec
from sim.core.stats import Z95
from sim.risk import chain, diffusion, exact
from sim.risk.exact import STOP_LOSS, STOP_WIN, SessionLaw
from sim.risk.law import ChainLaw, RoundLaw, steps_at_or_above
from sim.risk.montecarlo import SessionStats
from sim.risk.spec import SessionSpec

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
FAN_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
NAN = math.nan


def _pct(q: float) -> str:
    return f"{100 * q:g}".replace(".", "_")


@dataclass
class RiskResult:
    """Everything measured for one (variant, strategy): the rows and the charts' data."""

    variant: str
    strategy: str
    spec: SessionSpec
    law: RoundLaw | ChainLaw | None
    session: SessionLaw | None
    mc: SessionStats
    moments: tuple[float, float]  # (mu, sigma) per round the diffusion used
    rows: list[dict[str, Any]]
    bankrolls: np.ndarray
    curve_exact: np.ndarray | None
    curve_diffusion: np.ndarray
    curve_mc: np.ndarray


def _per_round(mu: float, sigma: float, pace: float) -> dict[str, float]:
    n0 = (sigma / mu) ** 2 if mu else math.inf
    score = 1e6 * (mu / sigma) ** 2 if mu > 0 and sigma > 0 else 0.0
    return {"ev_per_round": mu, "sd_per_round": sigma, "ev_per_hour": mu * pace,
            "sd_per_hour": sigma * math.sqrt(pace), "n0_rounds": n0, "n0_hours": n0 / pace,
            "score": score, "score_per_hour": score * pace / 100}


def _base(game: str, variant: str, strategy: str, method: str, spec: SessionSpec,
          progression: ProgressionSpec) -> dict[str, Any]:
    return {"game": game, "variant": variant, "strategy": strategy, "method": method,
            "progression": progression.name, "bankroll": spec.bankroll, "rounds": spec.rounds,
            "rounds_per_hour": spec.rounds_per_hour,
            "stop_win": NAN if spec.stop_win is None else spec.stop_win,
            "stop_loss": NAN if spec.stop_loss is None else spec.stop_loss}


def programmes(law: RoundLaw | ChainLaw) -> Any:
    """The module of exact programmes for ``law``: :mod:`sim.risk.exact` for rounds alike,
    :mod:`sim.risk.chain` for rounds a chain drives (the same functions)."""
    return chain if isinstance(law, ChainLaw) else exact


def _exact_row(law: RoundLaw | ChainLaw, session: SessionLaw, spec: SessionSpec
               ) -> dict[str, Any]:
    dp = programmes(law)
    row: dict[str, Any] = {
        "sessions": NAN, "p_ruin": session.p_ruin,
        "p_ruin_long_run": dp.long_run_ruin(law, spec.bankroll, spec.stop_win,
                                               spec.stop_loss),
        "p_ahead": session.p_ahead, "p_stop_win": float(session.reasons[STOP_WIN]),
        "p_stop_loss": float(session.reasons[STOP_LOSS]), "mean_result": session.mean,
        "sd_result": session.sd}
    for q in QUANTILES:
        row[f"q{_pct(q)}"] = session.quantile(q)
    for risk in spec.target_risks:
        row[f"bankroll_risk_{_pct(risk)}"] = dp.bankroll_for_risk(
            law, risk, spec.rounds, spec.stop_win, spec.stop_loss)
        row[f"bankroll_long_run_risk_{_pct(risk)}"] = (
            dp.bankroll_for_risk(law, risk, None) if law.mean > 0 else NAN)
    return row | _per_round(law.mean, law.sd, spec.rounds_per_hour)


def _diffusion_row(mu: float, sigma: float, spec: SessionSpec) -> dict[str, Any]:
    b, n = spec.bankroll, spec.rounds
    stops = spec.stop_win is not None or spec.stop_loss is not None
    row: dict[str, Any] = {
        "sessions": NAN, "p_ruin": diffusion.session_ruin(mu, sigma, b, n, spec.stop_win,
                                                          spec.stop_loss),
        "p_ruin_long_run": (0.0 if spec.stop_loss is not None and spec.stop_loss < b else
                            diffusion.long_run_ruin(mu, sigma, b, spec.stop_win)),
        "p_ahead": NAN if stops else 1 - diffusion.result_cdf(mu, sigma, b, n, 0.0),
        "mean_result": NAN, "sd_result": NAN}
    for q in QUANTILES:
        row[f"q{_pct(q)}"] = NAN if stops else diffusion.result_quantile(mu, sigma, b, n, q)
    for risk in spec.target_risks:
        row[f"bankroll_risk_{_pct(risk)}"] = NAN if stops else diffusion.bankroll_for_risk(
            mu, sigma, risk, n)
        row[f"bankroll_long_run_risk_{_pct(risk)}"] = diffusion.bankroll_for_risk(
            mu, sigma, risk, None)
    return row | _per_round(mu, sigma, spec.rounds_per_hour)


def _binomial_z(observed: float, expected: float, n: int) -> float:
    var = expected * (1 - expected) / n
    if var <= 0:
        return 0.0 if abs(observed - expected) < 1e-12 else NAN
    return (observed - expected) / math.sqrt(var)


def _least_mc_bankroll(mc: SessionStats, risk: float) -> float:
    """The least lattice bankroll b whose MC risk (the running minimum reaching -b) is at
    most ``risk``; NaN beyond the grid."""
    values = mc.bins.values
    below = np.cumsum(mc.min_hist) / mc.sessions  # P(minimum <= values[i])
    for i in range(values.size - 1, 0, -1):  # bin 0 holds the clipped tail
        if values[i] >= 0:
            continue
        if below[i] <= risk:
            return float(-values[i])
    return NAN


def _mc_row(mc: SessionStats, session: SessionLaw | None, spec: SessionSpec
            ) -> dict[str, Any]:
    n = mc.sessions
    p = mc.p_ruin
    row: dict[str, Any] = {
        "sessions": n, "p_ruin": p, "stderr_p_ruin": math.sqrt(p * (1 - p) / n),
        "p_ruin_long_run": NAN, "p_ahead": mc.p_ahead, "p_stop_win": mc.fraction(STOP_WIN),
        "p_stop_loss": mc.fraction(STOP_LOSS), "mean_result": mc.mean_result,
        "sd_result": mc.sd_result, "stderr_mean_result": mc.sd_result / math.sqrt(n),
        "mean_rounds_played": mc.mean_rounds}
    for q in QUANTILES:
        row[f"q{_pct(q)}"] = mc.quantile(q)
    for risk in spec.target_risks:
        row[f"bankroll_risk_{_pct(risk)}"] = _least_mc_bankroll(mc, risk)
    if session is not None:
        row["z_p_ruin_vs_exact"] = _binomial_z(p, session.p_ruin, n)
        se = session.sd / math.sqrt(n)
        row["z_mean_vs_exact"] = (mc.mean_result - session.mean) / se if se > 0 else NAN
        for q in QUANTILES:
            x = session.quantile(q)
            row[f"z_q{_pct(q)}_vs_exact"] = _binomial_z(mc.cdf(x), session.cdf(x), n)
    return row | _per_round(mc.round_mean, mc.round_sd, spec.rounds_per_hour)


def measure(game_name: str, variant: str, strategy_name: str, progression: ProgressionSpec,
            spec: SessionSpec, law: RoundLaw | ChainLaw | None, mc: SessionStats
            ) -> RiskResult:
    """Exact (where there is a round's exact ``law``, or the chain that drives the rounds),
    diffusion (with the exact long-run mean and SD where known) and the Monte Carlo
    sessions ``mc`` for one (variant, strategy)."""
    return with_sessions(session_model(game_name, variant, strategy_name, progression, spec,
                                       law, mc), game_name, variant, strategy_name,
                         progression, spec, mc)


def session_model(game_name: str, variant: str, strategy_name: str,
                  progression: ProgressionSpec, spec: SessionSpec,
                  law: RoundLaw | ChainLaw | None, mc: SessionStats) -> ModelRisk:
    """The exact and diffusion part of a row's risk: from the law's own moments where there
    is an exact law, else from the Monte Carlo sessions' (a job of the runner once the
    sessions are played)."""
    mu, sigma = (law.mean, law.sd) if law is not None else (mc.round_mean, mc.round_sd)
    return model_risk(game_name, variant, strategy_name, progression, spec, law, mu, sigma)


def with_sessions(model: ModelRisk, game_name: str, variant: str, strategy_name: str,
                  progression: ProgressionSpec, spec: SessionSpec, mc: SessionStats
                  ) -> RiskResult:
    """A row's risk whole: the model's rows and curves with the Monte Carlo sessions' beside
    them (their z against the model's exact session law)."""
    rows = [dict(row) for row in model.rows]
    rows.append(_base(game_name, variant, strategy_name, "mc", spec, progression)
                | _mc_row(mc, model.session, spec) | {"moments": "mc"})
    curve_mc = np.array([mc.ruin_at(float(b)) for b in model.bankrolls])
    return RiskResult(variant, strategy_name, spec, None, model.session, mc, model.moments,
                      rows, model.bankrolls, model.curve_exact, model.curve_diffusion,
                      curve_mc)


@dataclass
class ModelRisk:
    """The risk of a session without Monte Carlo sessions: the exact rows and curve where
    there is an exact law, and the diffusion's from the moments given (``moments``: the
    mean and SD per round it used)."""

    session: SessionLaw | None
    rows: list[dict[str, Any]]
    bankrolls: np.ndarray
    curve_exact: np.ndarray | None
    curve_diffusion: np.ndarray
    moments: tuple[float, float] = (math.nan, math.nan)

    def arrays(self) -> dict[str, np.ndarray]:
        """Plain arrays (an NPZ file's), the rows as JSON text: no object is pickled."""
        out = {"rows": np.array(json.dumps(self.rows, allow_nan=True)),
               "bankrolls": self.bankrolls, "curve_diffusion": self.curve_diffusion,
               "moments": np.array(self.moments, dtype=np.float64)}
        if self.curve_exact is not None:
            out["curve_exact"] = self.curve_exact
        if self.session is not None:
            s = self.session
            out.update({"session_step": np.array(s.step), "session_low": np.array(s.low),
                        "session_probs": s.probs, "session_reasons": s.reasons,
                        "session_checkpoints": np.array(s.checkpoints, dtype=np.int64),
                        "session_at_checkpoint": s.at_checkpoint,
                        "session_ruin_by_round": s.ruin_by_round})
        return out

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> ModelRisk:
        """The model :meth:`arrays` wrote.

        Raises:
            KeyError, ValueError: not such arrays.
        """
        session = None
        if "session_probs" in data:
            session = SessionLaw(float(data["session_step"]), int(data["session_low"]),
                                 np.asarray(data["session_probs"], dtype=np.float64),
                                 np.asarray(data["session_reasons"], dtype=np.float64),
                                 tuple(int(c) for c in data["session_checkpoints"]),
                                 np.asarray(data["session_at_checkpoint"], dtype=np.float64),
                                 np.asarray(data["session_ruin_by_round"], dtype=np.float64))
        rows = json.loads(str(data["rows"]))
        if not isinstance(rows, list):
            raise ValueError("risk rows: a list expected")
        moments = tuple(float(x) for x in data["moments"])
        return cls(session, rows, np.asarray(data["bankrolls"]),
                   np.asarray(data["curve_exact"], dtype=np.float64)
                   if "curve_exact" in data else None,
                   np.asarray(data["curve_diffusion"], dtype=np.float64),
                   (moments[0], moments[1]))


def model_risk(game_name: str, variant: str, strategy_name: str, progression: ProgressionSpec,
               spec: SessionSpec, law: RoundLaw | ChainLaw | None, mu: float, sigma: float
               ) -> ModelRisk:
    """The exact (where there is a round's exact ``law``, or the chain that drives the
    rounds) and diffusion rows of the risk table and their ruin-against-bankroll curves; the
    diffusion uses ``mu`` and ``sigma`` per round (the law's own where there is one)."""
    dp = programmes(law) if law is not None else None
    session = (dp.session_law(law, spec.bankroll, spec.rounds, spec.stop_win,
                              spec.stop_loss, spec.checkpoint_rounds)
               if dp is not None else None)
    rows = []
    if law is not None and session is not None:
        rows.append(_base(game_name, variant, strategy_name, "exact", spec, progression)
                    | _exact_row(law, session, spec) | {"moments": "exact"})
    rows.append(_base(game_name, variant, strategy_name, "diffusion", spec, progression)
                | _diffusion_row(mu, sigma, spec)
                | {"moments": "exact" if law is not None else "mc"})
    bankrolls = np.array(spec.chart_bankrolls)
    curve_exact = None
    if dp is not None:
        if spec.stop_win is None and spec.stop_loss is None:
            table = dp.ruin_all_bankrolls(law, spec.rounds, float(bankrolls.max()))
            idx = [steps_at_or_above(b, law.step) for b in bankrolls]
            curve_exact = table[idx]
        else:
            curve_exact = np.array([dp.session_ruin(law, float(b), spec.rounds,
                                                    spec.stop_win, spec.stop_loss)
                                    for b in bankrolls])
    curve_diffusion = diffusion.ruin_curve(mu, sigma, bankrolls, spec.rounds, spec.stop_win)
    return ModelRisk(session, rows, bankrolls, curve_exact, curve_diffusion, (mu, sigma))


def ci95(p: np.ndarray, n: int) -> np.ndarray:
    """Half-widths of 95% intervals for MC proportions (normal, with a floor at 0.5/n)."""
    return Z95 * np.sqrt(np.maximum(p * (1 - p), 0.25 / n) / n)
