"""Piquet strategies: how each player exchanges.

A piquet strategy speaks for both players: ``decide(view, rng)`` sees a
:class:`~sim.games.piquet.PiquetView` (the hand as card codes, the seat, how many cards may be
taken, the rules) and returns the cards to discard. The built-ins are exchange policies as data
(:class:`~sim.games.piquet.ExchangePolicy`: keep values for the point suit, runs and sets, and
how many cards each seat takes), which the compiled kernel plays and the exact exchange table
reads, played on the reference path by :class:`~sim.games.piquet.players.ExchangePlayers`;
``params`` override any field, e.g. ``{ elder_take = 4, sets = 10 }``, and ``younger`` any of
younger hand's, e.g. ``{ younger = { younger_take = 2 } }``.
"""

from __future__ import annotations

from sim.games.piquet.players import ExchangePlayers
from strategies.base import configuration

# What each policy of sim.games.piquet.rules.POLICIES keeps.
_POLICIES = {
    "lowest": "Take every card allowed, discarding the lowest ranks.",
    "point": "Take every card allowed, keeping the point suit whole.",
    "combinations": "Take every card allowed, keeping the point suit, runs and pairs towards "
                    "sets.",
    "cautious": "Keep combinations; elder takes three, younger one.",
}
Lowest, Point, Combinations, Cautious = (
    configuration("piquet", policy, ExchangePlayers, description, policy=policy)
    for policy, description in _POLICIES.items())
