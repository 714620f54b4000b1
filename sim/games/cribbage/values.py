"""The exact whole-deal value of a row: which rules and policies reach one, and why not.

A row's net is the followed seat's points in a deal: the pone's hand (and his pegging), or
the dealer's hand, crib and heels (and his pegging). Expectations add, so its exact mean is
the sum of exact means, each over every deal:

* a seat's hand under its policy: every six-card hand with its keep law and every starter
  (:func:`~.laws.seat_hand_moments`); the pone's row is his hand alone, so its standard
  deviation is exact too;
* the dealer's crib and both players' pegging under the two policies, which share the pack:
  :func:`~.joint.deal_values`, over every pair of hands;
* his heels: the starter is a jack 1 time in 13, whatever was kept.

The random keep (the first cards dealt) keeps a random hand and lays a random crib, whose
distributions are enumerated (:mod:`.exact`), and pegs as two random disjoint keeps
(:mod:`.play_exact`); with five cards dealt the pone's keep is walked over every deal of five
(:func:`~.policy.exact_policy_hand`).
"""

from __future__ import annotations

import math
from fractions import Fraction

from sim.games.base import ExactValue
from sim.games.cribbage.exact import hand_counts, mean_and_sd
from sim.games.cribbage.joint import deal_values
from sim.games.cribbage.laws import seat_hand_moments
from sim.games.cribbage.play_exact import random_keep_play
from sim.games.cribbage.policy import DiscardPolicy, crib_weight_of, exact_policy_hand
from sim.games.cribbage.rules import CribbageRules

HEELS = Fraction(2, 13)  # two for his heels, the starter a jack 4 times in 52
RANK_PLAYS = ("greedy", "cautious")  # play policies that read ranks only
FIRST_PLAY = ("no exact value: the first legal card is laid in the order held, and where keeps "
              "tie the order dealt also picks the keep, so the walk would carry ordered keeps: "
              "28,561 a player, a joint law of 816 million pairs (6.5 GB) and as many plays "
              "(about 7 minutes at the 2 million a second measured)")


def _plays(rules: CribbageRules, policy: DiscardPolicy) -> tuple[str, str]:
    """The pone's play policy and the dealer's."""
    return policy.play, policy.dealer_play or policy.play


def _points(points: Fraction | float, rules: CribbageRules, sd: float | None = None
            ) -> ExactValue:
    return ExactValue(mean_net=float(points), mean_initial_stake=None,
                      mean_total_wagered=None, sd_net=sd)


def _random_keep(rules: CribbageRules, policy: DiscardPolicy) -> ExactValue:
    hand, hand_sd = mean_and_sd(hand_counts(rules.hand_size))
    hands = hand * (2 if rules.team else 1)
    peg_pone = peg_dealer = Fraction(0)
    if rules.pegging:
        peg_pone, peg_dealer = random_keep_play(*_plays(rules, policy))
    if rules.seat == "pone":
        # one hand alone: its spread is the enumerated one (partners' hands share the pack)
        sd = hand_sd if not rules.team and not rules.pegging else None
        return _points(hands + peg_pone, rules, sd)
    crib = mean_and_sd(hand_counts(4, True))[0]
    return _points(hands + crib + HEELS + peg_dealer, rules)


def _joint(rules: CribbageRules, policy: DiscardPolicy) -> ExactValue:
    pone = (policy.kind, crib_weight_of(1, False, policy))
    dealer = (policy.kind, crib_weight_of(0, False, policy))
    own = pone if rules.seat == "pone" else dealer
    hand, second = seat_hand_moments(*own)
    if rules.seat == "pone" and not rules.pegging:
        return _points(hand, rules, math.sqrt(second - hand * hand))
    values = deal_values(pone, dealer)
    pegs = values.play(*_plays(rules, policy)) if rules.pegging else (0.0, 0.0)
    peg = pegs[0 if rules.seat == "pone" else 1]
    if rules.seat == "pone":
        return _points(float(hand) + peg, rules)
    return _points(float(hand) + values.crib + float(HEELS) + peg, rules)


def exact_value(rules: CribbageRules, policy: DiscardPolicy | None) -> ExactValue | None:
    """The exact mean points of the followed seat per deal (no stake, so no edge), and their
    standard deviation where it is known; None where no exact value is reached
    (:func:`unavailable` says why)."""
    if policy is None or unavailable(rules, policy):
        return None
    if policy.kind == "first":
        return _random_keep(rules, policy)
    if rules.cards_dealt == 5:
        seats = (1, 3) if rules.team else (1,)
        return _points(sum(exact_policy_hand(5, rules.hand_size, policy.kind,
                                             crib_weight_of(s, rules.team, policy))
                           for s in seats), rules)
    return _joint(rules, policy)


def unavailable(rules: CribbageRules, policy: DiscardPolicy) -> str:
    """Why a rule and policy have no exact value ("" where they have one)."""
    if rules.pegging and rules.cards_dealt != 6:
        return ("no exact value: the play is walked for six cards dealt (four kept), not "
                f"{rules.cards_dealt}")
    if rules.pegging and not set(_plays(rules, policy)) <= set(RANK_PLAYS):
        return FIRST_PLAY
    if policy.kind == "first":
        return ""
    if rules.cards_dealt == 5:
        if rules.seat == "pone" and not rules.pegging:
            return ""
        return ("no exact value: with five cards dealt only the pone's hand is walked; the "
                "dealer's crib takes one card from each player (and the pack)")
    if rules.cards_dealt == 7:
        return ("no exact value: the walk over pairs of hands is written for six cards dealt "
                "(15 keeps a hand); seven cards make 21 keeps and 133 million hands")
    return ""
