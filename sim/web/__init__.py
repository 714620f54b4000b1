"""``houseedge serve``: the what-if page, a local web app on the engine's own code paths.

The page's state is a set of ``key=value`` settings (its URL's query): a game, a preset and
rule overrides, a strategy and its parameters, the simulation's seed, rounds and target, a
session, a swept parameter. :mod:`sim.web.state` turns them into an experiment validated by
:mod:`sim.engine.experiment` (so a bad value is the command line's own one-line message, shown
beside its control); :mod:`sim.web.tasks` computes what the page shows (exact values, odds
charts, simulations chunk by chunk with the runner's chunk function and checkpoints, risk, grids)
in worker processes (:mod:`sim.web.workers`) that are bounded in number, time and memory and
cancelled when the inputs change; :mod:`sim.web.app` serves the page and its endpoints.
"""
