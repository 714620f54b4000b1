"""Why newmarket has no exact value: how far the mathematics reaches, and the count that stops it.

*The round reduces to one deal's law.* Every deal adds fresh stakes to all four boodle cards,
so each deal begins with money on every one of them: what a player sees when he chooses a
suit (the ``boodle`` policy reads which cards hold money) is the same at the start of every
deal, and a deal's course depends only on its cards and its dealer. The layout is left clear
exactly when all four boodle cards are played in one deal, which ends the round. So, given for
each dealer the law of one deal's outcome (which seat goes out first, and which seat, or
nobody, plays each boodle card), seat 0's expected result is a small linear system: a chain on
the dealer (and the deal count, for the 200-deal cap), in which the money seat 0 collects from
a card is, by linearity, every stake laid on it since it was last played.

*One deal's law is out of reach.* It is a sum over every way the cards can fall: who holds
each card, ``52! / (11!^2 10!^3)`` = about 1.06e33 deals to four hands and the dummy. The
rules keep no symmetry to divide that by: the lowest diamond begins; the text's boodle cards
are one of each suit at four different ranks; the colour rule pairs the suits; runs climb the
ranks; and where the four kings are the boodle cards and any suit may follow (``kings-suit``),
clubs, hearts and spades would be interchangeable but for the policies' ties, which go to the
lower suit (and a factor of six would not help). Nor is any row simpler than another: every
policy plays deterministically once the cards are dealt, so the deal itself is the state.
"""

from __future__ import annotations

from math import factorial, prod

from sim.games.newmarket.rules import NewmarketRules

N = 52

# What the kernel takes to play one deal (shuffle included): CPU time on one core, four
# players, every seat playing ``longest``, in both shipped variants.
SECONDS_PER_DEAL = 1.2e-6


def hand_sizes(players: int) -> tuple[int, ...]:
    """The sizes of the players' hands and the dummy's: the pack is dealt one card at a
    time to every player and then the dummy, so the first hands may get a card more."""
    hands = players + 1
    return tuple(N // hands + (h < N % hands) for h in range(hands))


def deal_count(players: int) -> int:
    """The ways to deal the pack to the players and the dummy: ``52!`` over the product of
    the hands' factorials (only who holds each card matters to the play)."""
    return factorial(N) // prod(factorial(k) for k in hand_sizes(players))


def unavailable_reason(rules: NewmarketRules) -> str:
    """Why a round has no exact value, in one line: the deals one deal's law sums over and
    the time the kernel would take to play them all."""
    count = deal_count(rules.players)
    years = count * SECONDS_PER_DEAL / (365.25 * 86400)
    return (f"no exact value: one deal's law sums over {count:.2e} deals to {rules.players} "
            f"hands and the dummy, with no symmetry to divide by: ~{years:.0e} years at the "
            f"kernel's {SECONDS_PER_DEAL * 1e6:.2g} microseconds a deal").replace("e+", "e")


__all__ = ["SECONDS_PER_DEAL", "deal_count", "hand_sizes", "unavailable_reason"]
