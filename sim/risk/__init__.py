"""Sessions, bankroll and risk of ruin: exactly (a dynamic programme over the bankroll), by
the diffusion approximation, and from Monte Carlo sessions on the games' kernels.

:mod:`.spec` the ``[session]`` table; :mod:`.law` a round's net result on a lattice (and
rounds a chain drives, a progression's unit); :mod:`.exact` the dynamic programmes;
:mod:`.chain` the same where a chain drives the rounds; :mod:`.diffusion` the Brownian
approximation;
:mod:`.montecarlo` the statistics of Monte Carlo sessions (played by the engine's
:mod:`sim.engine.session_play`); :mod:`.table` the ``risk.csv`` rows; :mod:`.report` its files;
:mod:`.charts` the fan chart, ruin against bankroll and the session-result chart.
"""

from sim.risk.law import RoundLaw
from sim.risk.spec import SessionSpec, parse_session

__all__ = ["RoundLaw", "SessionSpec", "parse_session"]
