"""Cribbage's discard policy played as a strategy: the adapter that lets a
:class:`DiscardPolicy` answer on the reference path exactly as the kernel reads it."""

from __future__ import annotations

from sim.games.cribbage.policy import DiscardPolicy, choose
from sim.games.cribbage.rules import CribbageRules, CribbageView


class DiscardPlayers:
    """Every seat laying away by one :class:`DiscardPolicy` (its fields: the ``kind`` of keep,
    the ``crib_weight``, the ``play`` where the rules peg it and the dealer's ``dealer_play``
    if different). Playable on both paths: the kernel and the exact code read the policy
    (:meth:`as_table`), the reference path asks :meth:`decide`, which chooses by the same
    compiled chooser (:func:`~sim.games.cribbage.policy.choose`), and lays the cards in the
    play by ``play`` and ``dealer_play``."""

    name = "policy"

    def __init__(self, kind: str, crib_weight: float = 1.0, play: str = "greedy",
                 dealer_play: str = "") -> None:
        self.policy = DiscardPolicy(kind, crib_weight, play, dealer_play)
        self.play = self.policy.play
        self.dealer_play = self.policy.dealer_play or None

    def as_table(self, rules: CribbageRules) -> DiscardPolicy:
        """The policy the compiled kernel runs (the same under every rules)."""
        return self.policy

    def decide(self, view: CribbageView, rng: object) -> tuple[int, ...]:
        return choose(view, self.policy)
