"""Double-entry bookkeeping of the money at a table.

Every movement of money is a transfer between two named accounts (a player's seat, the bank,
the layout where stakes lie), so the total is conserved by construction and any seat's result
can be read at the end. The reference paths of the games keep their money here; tests check
that the layout is empty after each round and that the accounts sum to zero.
"""

from __future__ import annotations

from collections import defaultdict


class Ledger:
    """Balances of named accounts, starting at zero, moved only by transfers."""

    def __init__(self) -> None:
        self._balances: defaultdict[str, float] = defaultdict(float)

    def transfer(self, source: str, target: str, amount: float) -> None:
        """Move ``amount`` from ``source`` to ``target`` (a negative amount moves it back)."""
        self._balances[source] -= amount
        self._balances[target] += amount

    def balance(self, account: str) -> float:
        return self._balances[account]

    def total(self) -> float:
        """The sum of all balances: zero, always."""
        return sum(self._balances.values())

    def balances(self) -> dict[str, float]:
        return dict(self._balances)
