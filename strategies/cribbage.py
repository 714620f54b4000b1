"""Cribbage discard policies: which cards each player lays away to the crib.

A cribbage strategy answers a :class:`~sim.games.cribbage.CribbageView` (the cards dealt to a
seat, whether it deals) with the cards it lays away. Every seat of the table plays the same
strategy. The built-ins are :class:`~sim.games.cribbage.DiscardPolicy` data that the compiled
kernel runs, played on the reference path by the same compiled chooser through
:class:`~sim.games.cribbage.players.DiscardPlayers`; each takes ``play`` (how its cards are
laid where the rules peg the play: ``"first"``, ``"greedy"`` or ``"cautious"``) and
``dealer_play`` (how the dealer lays his, if differently: one policy against another in the
play).
"""

from __future__ import annotations

from sim.games.cribbage.players import DiscardPlayers
from strategies.base import configuration

# The keeps that weigh no crib take the policy's crib weight as it is (it is unused by them).
FirstCards = configuration(
    "cribbage", "first-cards", DiscardPlayers,
    "Keep the first cards dealt: a random keep (its value is known exactly).",
    kind="first", crib_weight=1.0)
HighestCount = configuration(
    "cribbage", "highest-count", DiscardPlayers,
    "Keep the cards of the highest pip count (the naive keep).", kind="count", crib_weight=1.0)
BestHand = configuration(
    "cribbage", "best-hand", DiscardPlayers,
    "Keep the cards with the best expected hand over every starter.", kind="hand",
    crib_weight=1.0)
HandAndCrib = configuration(
    "cribbage", "hand-and-crib", DiscardPlayers,
    "Best expected hand plus the crib laid away for the dealer, minus it for the pone.",
    kind="hand-crib")
