"""Pontoon: every rule a variant can change, the presets, and the pack.

See ``docs/rules/pontoon.md`` for the game and the decisions taken where the source is silent.
Decisions of this module that the rules page leaves open, each fixed here once:

* a hand whose best total is 21, or that holds five cards, takes no more cards (player or
  banker); "total" always means the best total, an ace counting 11 where that does not bust.
  The sources' "a player may buy or twist while his total is under 21" is read so by default;
  ``soft_21_draws`` takes the other reading for punters: a soft 21 in three or four cards
  (the ace counted as one gives 11) may still twist or buy, towards a five card trick (the
  banker stands on any 21 in both readings);
* the banker "sees the stakes": by default (``banker_reads = "multiple"``) his tables read a
  hand's stake as a multiple of its initial stake; ``"stake"`` takes the other reading, the
  amount of the initial stake too, as its level among the punters' distinct stakes;
* a hard 13 is two cards without an ace totalling 13; burning it (where allowed) throws both
  cards in face up and deals two new cards face down, once a deal, on the original hand only;
* busted and burnt cards are set aside face up, each bust hand or burnt pair a pile of its own;
  at the end of the deal the banker gathers the piles (each punter hand, each set-aside pile, his
  own hand) and puts them under the pack. With ``gathering = "fixed"`` he takes them in one order
  every deal: the set-aside piles as thrown in, each punter's hands in seat and hand order, then
  his own. With ``"varied"`` (the default: real hands are not gathered the same way twice) the
  order of the piles is uniformly random each deal, drawn from the card stream; a pile keeps its
  cards' order. Where the pack is shuffled before the next deal the order does not matter and
  nothing is drawn. (The source's "bust cards to the bottom at once" differs only if the stock
  runs through within one deal, which one pack heads-up never does.) With "fixed" and no
  shuffle the deals are a function of the pack's order alone, so they can fall into a cycle
  holding no pontoon that repeats to the end of a run: the kernel detects and counts it;
* every hand is shown at settlement, so all cards of a finished deal have been seen;
* if the stock runs out during a deal (many seats and splits, or stripped packs), a hand that
  would take a card stands as it is and the banker stands; a split or a burn needs two cards in
  the stock;
* a pontoon of any hand that ranks as one (the banker's, or a player's) makes the pack shuffled
  before the next deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.core.cards import RANK_SYMBOLS, make_pack, rank_counts, rank_of
from sim.core.errors import RuleError
from sim.core.validation import check_fields

SPLIT_RULES = ("any", "aces", "none")
RESHUFFLE_RULES = ("pontoon", "every-deal")
GATHERING_RULES = ("varied", "fixed")
BANKER_READS = ("multiple", "stake")
FULL_RANKS = RANK_SYMBOLS  # "A23456789TJQK"
MAX_PLAYERS = 7
MAX_HANDS = 4  # splits: at most four hands from one seat
MAX_CARDS = 5  # five cards end a hand (a five card trick if 21 or under)

# Card values by rank index (0 = ace .. 12 = king): ace 1 (or 11), court cards ten.
VALUES = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], dtype=np.int64)
ACE = 0
TEN_RANKS = (9, 10, 11, 12)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _multiple(x: object, step: float = 0.5, low: float = 0.0, high: float = 10.0) -> bool:
    return _is_number(x) and low <= x <= high and float(x / step).is_integer()


@dataclass(frozen=True)
class PontoonRules:
    """Every rule a pontoon variant can change (defaults: the British home game).

    Attributes:
        packs: how many 52-card packs are mixed.
        ranks: the ranks kept in the pack, as symbols (``"A23456789TJQK"``: all; fewer for exact
            enumeration in tests).
        suits: how many suits are kept (1..4).
        infinite_deck: cards are drawn with replacement from the pack's composition (no memory,
            no running out): the mode of the infinite-deck exact analysis.
        players: punters at the table besides the banker (1..7).
        min_stake: the smallest initial stake (agreed before the game).
        max_stake: the largest initial stake.
        banker_wins_ties: equal hands go to the banker (False: they push).
        pontoon_pays: multiple of the stake paid to a player's pontoon.
        five_card_trick_pays: multiple of the stake paid to a player's five card trick.
        banker_pontoon_collects: multiple of the initial stake the banker's pontoon collects.
        banker_five_card_trick: the banker's five card trick beats everything but a pontoon.
        banker_five_card_trick_collects: multiple of the stake it collects from each hand.
        banker_hits_soft_17: the banker must draw to a soft 17, whatever his policy (a
            casino dealer's rule; his policy decides every other total).
        stick_min: the smallest total a player may stick on.
        max_buys: cards a hand may buy (0..3).
        first_buy_max: the first buy adds at most this multiple of the initial stake (1 or 2);
            each later buy adds at least the initial stake and at most the previous buy.
        buy_fifth_card: a fifth card may be bought (False: only twisted).
        split_pairs: ``"any"`` pair, ``"aces"`` only, or ``"none"``.
        max_hands: the most hands a seat may split into (1..4).
        split_unequal_tens: two ten-cards of different ranks may be split.
        split_pontoon_counts: an ace and a ten after a split is a pontoon (False: a 21).
        burn_hard_13: a hard 13 in the first two cards may be burnt.
        reshuffle: ``"pontoon"`` (shuffle only after a deal with a pontoon) or ``"every-deal"``.
        bank_passes: a punter with a pontoon from an unsplit hand, the banker having none,
            takes the bank from the next deal.
        soft_21_draws: a punter's soft 21 in three or four cards may still twist or buy (the
            total read with the ace as one is under 21); False: no card on any 21.
        gathering: the order in which the used hands go under the pack when it is not
            shuffled: ``"varied"`` (a random order of the piles each deal) or ``"fixed"``
            (set-aside piles, punters' hands, the banker's, every deal).
        banker_reads: what the banker's tables read of a hand's stake: ``"multiple"`` (of
            its initial stake, buys included) or ``"stake"`` (the multiple and the amount of
            the initial stake, so a stake placed by first card tells him about that card).
    """

    packs: int = 1
    ranks: str = FULL_RANKS
    suits: int = 4
    infinite_deck: bool = False
    players: int = 1
    min_stake: float = 1.0
    max_stake: float = 4.0
    banker_wins_ties: bool = True
    pontoon_pays: float = 2.0
    five_card_trick_pays: float = 2.0
    banker_pontoon_collects: float = 2.0
    banker_five_card_trick: bool = True
    banker_five_card_trick_collects: float = 2.0
    banker_hits_soft_17: bool = False
    stick_min: int = 15
    max_buys: int = 3
    first_buy_max: int = 2
    buy_fifth_card: bool = True
    split_pairs: str = "any"
    max_hands: int = MAX_HANDS
    split_unequal_tens: bool = False
    split_pontoon_counts: bool = True
    burn_hard_13: bool = False
    reshuffle: str = "pontoon"
    bank_passes: bool = True
    gathering: str = "varied"
    soft_21_draws: bool = False
    banker_reads: str = "multiple"

    def __post_init__(self) -> None:
        booleans = ("infinite_deck", "banker_wins_ties", "banker_five_card_trick",
                    "buy_fifth_card", "split_unequal_tens", "split_pontoon_counts",
                    "burn_hard_13", "bank_passes", "banker_hits_soft_17", "soft_21_draws")
        checks = [(name, isinstance(getattr(self, name), bool), "true or false")
                  for name in booleans]
        checks += [
            ("packs", _is_int(self.packs) and 1 <= self.packs <= 8, "an integer 1..8"),
            ("ranks", isinstance(self.ranks, str) and len(self.ranks) >= 1
             and all(c in FULL_RANKS for c in self.ranks)
             and len(set(self.ranks)) == len(self.ranks),
             f"distinct rank symbols from {FULL_RANKS!r}"),
            ("suits", _is_int(self.suits) and 1 <= self.suits <= 4, "an integer 1..4"),
            ("players", _is_int(self.players) and 1 <= self.players <= MAX_PLAYERS,
             f"an integer 1..{MAX_PLAYERS}"),
            ("min_stake", _is_number(self.min_stake) and 0 < self.min_stake < float("inf"),
             "a positive number"),
            ("max_stake", _is_number(self.max_stake) and _is_number(self.min_stake)
             and self.min_stake <= self.max_stake < float("inf"),
             "a number at least min_stake"),
            ("pontoon_pays", _multiple(self.pontoon_pays), "a multiple of 0.5 in 0..10"),
            ("five_card_trick_pays", _multiple(self.five_card_trick_pays),
             "a multiple of 0.5 in 0..10"),
            ("banker_pontoon_collects", _multiple(self.banker_pontoon_collects, low=0.5),
             "a multiple of 0.5 in 0.5..10"),
            ("banker_five_card_trick_collects",
             _multiple(self.banker_five_card_trick_collects, low=0.5),
             "a multiple of 0.5 in 0.5..10"),
            ("stick_min", _is_int(self.stick_min) and 12 <= self.stick_min <= 21,
             "an integer 12..21"),
            ("max_buys", _is_int(self.max_buys) and 0 <= self.max_buys <= 3, "an integer 0..3"),
            ("first_buy_max", _is_int(self.first_buy_max) and self.first_buy_max in (1, 2),
             "1 or 2 (times the initial stake)"),
            ("split_pairs", self.split_pairs in SPLIT_RULES,
             " or ".join(repr(r) for r in SPLIT_RULES)),
            ("max_hands", _is_int(self.max_hands) and 1 <= self.max_hands <= MAX_HANDS,
             f"an integer 1..{MAX_HANDS}"),
            ("reshuffle", self.reshuffle in RESHUFFLE_RULES,
             " or ".join(repr(r) for r in RESHUFFLE_RULES)),
            ("gathering", self.gathering in GATHERING_RULES,
             " or ".join(repr(r) for r in GATHERING_RULES)),
            ("banker_reads", self.banker_reads in BANKER_READS,
             " or ".join(repr(r) for r in BANKER_READS)),
        ]
        check_fields(self, checks)
        if not self.infinite_deck and self.n_cards < 2 * (self.players + 1):
            raise RuleError("ranks", self.ranks,
                            detail=f"a pack of {self.n_cards} cards cannot deal two cards to "
                            f"{self.players + 1} hands")

    # ------------------------------------------------------------------ the pack
    @property
    def rank_indices(self) -> tuple[int, ...]:
        """The kept ranks as indices 0 (ace) .. 12 (king), ascending."""
        return tuple(sorted(FULL_RANKS.index(c) for c in self.ranks))

    @property
    def n_cards(self) -> int:
        return self.packs * self.suits * len(self.ranks)

    def pack(self) -> np.ndarray:
        """The card codes of one fresh pack."""
        return make_pack(self.packs, self.rank_indices, self.suits)

    def rank_counts(self) -> np.ndarray:
        """Cards of each of the 13 ranks in a full pack of these rules."""
        return rank_counts(self.pack()).astype(np.int64)

    def pack_ranks(self) -> np.ndarray:
        """The ranks of the pack's cards, sorted (suits do not matter in pontoon)."""
        return rank_of(self.pack()).astype(np.int8)

    def rank_probabilities(self) -> np.ndarray:
        """Probability of each rank on a draw from the full pack (the infinite deck's law)."""
        counts = self.rank_counts()
        return counts / counts.sum()

    # ----------------------------------------------------------------- derived
    @property
    def splits_allowed(self) -> bool:
        return self.split_pairs != "none" and self.max_hands > 1

    def may_split_rank(self, rank: int) -> bool:
        """Pairs of this rank may be split (before the limit of hands and the stock)."""
        return self.splits_allowed and (self.split_pairs == "any" or rank == ACE)


PRESETS = {
    "british-home": PontoonRules(),
    "ties-push": PontoonRules(banker_wins_ties=False),
    "no-fifth-card-buy": PontoonRules(buy_fifth_card=False),
    "aces-only-split": PontoonRules(split_pairs="aces"),
    "reshuffle-every-deal": PontoonRules(reshuffle="every-deal"),
    # The online casino game: eight packs shuffled every deal, one double (a buy of exactly the
    # stake) on two to four cards, three hands at most, the dealer's pontoon and five card
    # trick collecting single stakes, the dealer hitting soft 17, no bank to pass.
    "pontoon-rtg": PontoonRules(packs=8, reshuffle="every-deal", max_buys=1, first_buy_max=1,
                                max_hands=3, banker_pontoon_collects=1.0,
                                banker_five_card_trick_collects=1.0, banker_hits_soft_17=True,
                                bank_passes=False),
}
