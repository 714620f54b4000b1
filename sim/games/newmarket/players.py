"""Newmarket's policies played as a strategy: the adapter that lets a table of named policies
(:class:`NewmarketTable`) answer on the reference path exactly as the kernel reads it."""

from __future__ import annotations

from sim.games.newmarket.rules import (
    POLICY_NAMES,
    NewmarketRules,
    NewmarketTable,
    NewmarketView,
)


def policy_suit(policy: str, view: NewmarketView) -> int:
    """The suit a named policy begins with (the kernel's ``choose_suit`` in plain Python):
    ``longest``, ``shortest``, ``boodle`` (a suit holding a live boodle card, else the
    longest) or ``lowest`` (the suit of the lowest card); ties go to the lower suit."""
    def count(s: int) -> int:
        return sum(c // 13 == s for c in view.hand)

    def key(s: int) -> float:
        if policy == "longest":
            return count(s)
        if policy == "shortest":
            return -count(s)
        if policy == "boodle":
            live = any(b // 13 == s and b in view.hand for b in view.boodle_live)
            return 100 * live + count(s)
        return -min(c % 13 for c in view.hand if c // 13 == s)

    if policy not in POLICY_NAMES:
        raise ValueError(f"unknown policy {policy!r} (known: {', '.join(POLICY_NAMES)})")
    best = None
    for s in sorted(view.allowed):
        if best is None or key(s) > key(best):
            best = s
    return best


class SuitPolicyPlayers:
    """Every seat begins a new run by the named ``policy``, seat 0 by its own where ``seat0``
    names one; playable on both paths: the kernel reads the seats' policies as a
    :class:`NewmarketTable` (:meth:`as_table`), the reference path asks :meth:`decide`, which
    chooses as the kernel does (:func:`policy_suit`)."""

    name = "policies"

    def __init__(self, policy: str, seat0: str | None = None) -> None:
        for key, given in (("policy", policy), ("seat0", seat0)):
            if given is not None and given not in POLICY_NAMES:
                raise ValueError(f"{key}: unknown policy {given!r} (known: "
                                 f"{', '.join(POLICY_NAMES)})")
        self.policy = policy
        self.seat0 = seat0 or policy

    def decide(self, view: NewmarketView, rng: object) -> int:
        return policy_suit(self.seat0 if view.seat == 0 else self.policy, view)

    def as_table(self, rules: NewmarketRules) -> NewmarketTable:
        """The seats' policies as the compiled kernel reads them."""
        others = POLICY_NAMES.index(self.policy)
        return NewmarketTable((POLICY_NAMES.index(self.seat0),) + (others,) * (
            rules.players - 1))
