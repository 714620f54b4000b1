"""houseedge: the house edge of banking and betting games, by Monte Carlo and exactly.

The engine's layers are its folders: :mod:`sim.core` (leaves), :mod:`sim.risk` (bankroll and
ruin), :mod:`sim.games` (one package per game), :mod:`sim.engine` (experiments, the runner,
checkpoints), :mod:`sim.outputs` (report, page, charts); :mod:`sim.api` is the Python API and
:mod:`sim.cli` the ``houseedge`` command.
"""

__version__ = "0.1.0"
