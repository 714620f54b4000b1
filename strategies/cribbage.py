"""Cribbage discard policies: which cards each player lays away to the crib.

A cribbage strategy answers a :class:`~sim.games.cribbage.CribbageView` (the cards dealt to a
seat, whether it deals) with the cards it lays away. Every seat of the table plays the same
strategy. The built-ins are :class:`~sim.games.cribbage.DiscardPolicy` data that the compiled
kernel runs; the same compiled chooser answers on the reference path.
"""

from __future__ import annotations

from sim.games.cribbage import CribbageRules, CribbageView, DiscardPolicy, choose
from strategies.base import register


class PolicyStrategy:
    """A discard policy, playable on both paths; ``play`` is how it lays its cards where the
    rules peg the play (``"first"``, ``"greedy"`` or ``"cautious"``), ``dealer_play`` how the
    dealer lays his if differently (one policy against another in the play)."""

    name = "policy"

    def __init__(self, policy: DiscardPolicy) -> None:
        self.policy = policy
        self.play = policy.play
        self.dealer_play = policy.dealer_play or None

    def kernel_table(self, rules: CribbageRules) -> DiscardPolicy:
        """The policy the compiled kernel runs."""
        return self.policy

    def decide(self, view: CribbageView, rng: object) -> tuple[int, ...]:
        return choose(view, self.policy)


@register("cribbage", "first-cards")
class FirstCards(PolicyStrategy):
    """Keep the first cards dealt: a random keep (its value is known exactly)."""

    name = "first-cards"

    def __init__(self, play: str = "greedy", dealer_play: str = "") -> None:
        super().__init__(DiscardPolicy("first", play=play, dealer_play=dealer_play))


@register("cribbage", "highest-count")
class HighestCount(PolicyStrategy):
    """Keep the cards of the highest pip count (the naive keep)."""

    name = "highest-count"

    def __init__(self, play: str = "greedy", dealer_play: str = "") -> None:
        super().__init__(DiscardPolicy("count", play=play, dealer_play=dealer_play))


@register("cribbage", "best-hand")
class BestHand(PolicyStrategy):
    """Keep the cards with the best expected hand over every starter."""

    name = "best-hand"

    def __init__(self, play: str = "greedy", dealer_play: str = "") -> None:
        super().__init__(DiscardPolicy("hand", play=play, dealer_play=dealer_play))


@register("cribbage", "hand-and-crib")
class HandAndCrib(PolicyStrategy):
    """Best expected hand plus the crib laid away for the dealer, minus it for the pone."""

    name = "hand-and-crib"

    def __init__(self, crib_weight: float = 1.0, play: str = "greedy",
                 dealer_play: str = "") -> None:
        super().__init__(DiscardPolicy("hand-crib", crib_weight, play, dealer_play))
