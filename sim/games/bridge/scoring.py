"""Bridge scoring: contract bridge (the Laws' duplicate and rubber tables) and auction bridge
(seed 002), with a rubber ledger and the expected score of a contract.

A deal's score is a :class:`DealScore`: the declarer's trick points *below the line* (they count
towards game), his side's points *above the line*, and the defenders' points above the line.
Duplicate scoring turns a made contract's game or part score into a bonus at once; rubber
scoring leaves game and the rubber bonus to :class:`Rubber`, which adds deals up. See
``docs/rules/bridge.md`` for every value and the decisions taken where the texts are silent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

STRAINS = ("C", "D", "H", "S", "NT")
SCORINGS = ("duplicate", "rubber", "auction")
DOUBLINGS = ("", "X", "XX")
# Auction bridge: points per trick over book, undoubled (seed 002).
AUCTION_TRICK = {"NT": 10, "S": 9, "H": 8, "D": 7, "C": 6}


@dataclass(frozen=True)
class Contract:
    """A final contract.

    Attributes:
        level: tricks over the book of six contracted for (1..7).
        strain: ``"C"``, ``"D"``, ``"H"``, ``"S"`` or ``"NT"``.
        doubled: 0 undoubled, 1 doubled, 2 redoubled.
        vulnerable: the declarer's side is vulnerable (contract bridge only).
    """

    level: int
    strain: str
    doubled: int = 0
    vulnerable: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.level, bool) or not isinstance(self.level, int) \
                or not 1 <= self.level <= 7:
            raise ValueError(f"level: expected an integer 1..7, got {self.level!r}")
        if self.strain not in STRAINS:
            raise ValueError(f"strain: expected one of {', '.join(STRAINS)}, got {self.strain!r}")
        if self.doubled not in (0, 1, 2) or isinstance(self.doubled, bool):
            raise ValueError(f"doubled: expected 0, 1 or 2, got {self.doubled!r}")

    @property
    def needed(self) -> int:
        """Tricks the declarer must take."""
        return self.level + 6

    def __str__(self) -> str:
        vul = " vul" if self.vulnerable else ""
        return f"{self.level}{self.strain}{DOUBLINGS[self.doubled]}{vul}"


@dataclass(frozen=True)
class DealScore:
    """One deal's score: declarer's below and above the line, the defenders' above."""

    below: int = 0
    above: int = 0
    defenders: int = 0

    @property
    def net(self) -> int:
        """The declarer's side's score less the defenders' (positive: the declarer gains)."""
        return self.below + self.above - self.defenders


def contract_trick_points(strain: str, tricks: int, doubled: int = 0) -> int:
    """Contract bridge points for ``tricks`` tricks over book (20 a minor, 30 a major, 40 then
    30 at no-trump), doubled twice or four times."""
    if tricks <= 0:
        return 0
    if strain == "NT":
        base = 40 + 30 * (tricks - 1)
    else:
        base = (20 if strain in "CD" else 30) * tricks
    return base * (1, 2, 4)[doubled]


def contract_undertricks(down: int, doubled: int, vulnerable: bool) -> int:
    """The defenders' points for ``down`` undertricks (contract bridge)."""
    if down <= 0:
        return 0
    if doubled == 0:
        return (100 if vulnerable else 50) * down
    if vulnerable:
        points = 200 + 300 * (down - 1)
    else:  # 100 for the first, 200 for the second and third, 300 from the fourth on
        points = 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
    return points * doubled  # redoubled: twice the doubled penalty


def contract_honours(contract: Contract, in_one_hand: int) -> int:
    """Rubber bridge honours for ``in_one_hand`` trump honours (aces at no-trump) in one hand:
    four trump honours 100, five 150, four aces at no-trump 150."""
    if contract.strain == "NT":
        return 150 if in_one_hand == 4 else 0
    return {4: 100, 5: 150}.get(in_one_hand, 0)


def score_contract(contract: Contract, tricks: int, scoring: str = "duplicate") -> DealScore:
    """The contract bridge score of a deal in which the declarer took ``tricks`` (0..13).

    Duplicate (``scoring="duplicate"``) adds the game bonus (300, vulnerable 500) or the part
    score bonus (50) to a made contract; rubber (``"rubber"``) leaves them to :class:`Rubber`.
    Honours are scored by :class:`Rubber` (they belong to rubber bridge).
    """
    if not 0 <= tricks <= 13:
        raise ValueError(f"tricks: expected 0..13, got {tricks}")
    if scoring not in ("duplicate", "rubber"):
        raise ValueError(f"scoring: expected 'duplicate' or 'rubber', got {scoring!r}")
    c = contract
    if tricks < c.needed:
        return DealScore(defenders=contract_undertricks(c.needed - tricks, c.doubled,
                                                        c.vulnerable))
    below = contract_trick_points(c.strain, c.level, c.doubled)
    over = tricks - c.needed
    if c.doubled == 0:
        above = contract_trick_points(c.strain, c.level + over) - contract_trick_points(
            c.strain, c.level)
    else:
        above = over * (200 if c.vulnerable else 100) * c.doubled + 50 * c.doubled
    if c.level == 6:
        above += 750 if c.vulnerable else 500
    elif c.level == 7:
        above += 1500 if c.vulnerable else 1000
    if scoring == "duplicate":
        above += (500 if c.vulnerable else 300) if below >= 100 else 50
    return DealScore(below=below, above=above)


def auction_honours(strain: str, hands: tuple[int, int]) -> int:
    """Auction bridge honours of one side holding ``hands`` = (in one partner's hand, in the
    other's) of the trump honours A K Q J 10, or of the aces at no-trump (seed 002).

    Three honours are worth two tricks, four four tricks, five five tricks, at the undoubled
    value of a trick of the trump suit; four in one hand count double (eight tricks), four in
    one hand and the fifth in partner's nine, five in one hand ten. At no-trump three aces
    count 30, four 40, four in one hand 100, and two each ("easy aces") nothing.
    """
    a, b = max(hands), min(hands)
    total = a + b
    if strain == "NT":
        if a == 4:
            return 100
        return {3: 30, 4: 40}.get(total, 0)
    trick = AUCTION_TRICK[strain]
    if a == 5:
        tricks = 10
    elif a == 4:
        tricks = 9 if b == 1 else 8
    else:
        tricks = {3: 2, 4: 4, 5: 5}.get(total, 0)
    return tricks * trick


def score_auction(contract: Contract, tricks: int,
                  honours: tuple[tuple[int, int], tuple[int, int]] = ((0, 0), (0, 0))
                  ) -> DealScore:
    """The auction bridge score of a deal (seed 002).

    Args:
        contract: the contract (``vulnerable`` plays no part in auction bridge).
        tricks: tricks the declarer took.
        honours: ((declarer, dummy), (left, right)) counts of the trump honours, or of the
            aces at no-trump, held in each hand; each side scores its own.
    """
    if not 0 <= tricks <= 13:
        raise ValueError(f"tricks: expected 0..13, got {tricks}")
    c = contract
    ours, theirs = auction_honours(c.strain, honours[0]), auction_honours(c.strain, honours[1])
    if tricks < c.needed:
        per = (50, 100, 200)[c.doubled]
        return DealScore(above=ours, defenders=theirs + per * (c.needed - tricks))
    below = AUCTION_TRICK[c.strain] * (tricks - 6) * (1, 2, 4)[c.doubled]
    above = ours
    if c.doubled:
        # 50 for fulfilling a doubled contract and 50 an overtrick; redoubled, 100 each.
        above += 50 * c.doubled * (1 + tricks - c.needed)
    if tricks == 12:
        above += 50
    elif tricks == 13:
        above += 100
    return DealScore(below=below, above=above, defenders=theirs)


def score(contract: Contract, tricks: int, scoring: str = "duplicate") -> DealScore:
    """The score of a deal under ``scoring``: ``"duplicate"``, ``"rubber"`` or ``"auction"``
    (no honours)."""
    if scoring == "auction":
        return score_auction(contract, tricks)
    return score_contract(contract, tricks, scoring)


def expected_score(contract: Contract, tricks: Mapping[int, Fraction | float],
                   scoring: str = "duplicate") -> Fraction | float:
    """The expected net score (declarer's side less the defenders') of a contract, given the
    distribution of the tricks it takes (tricks -> probability, summing to 1)."""
    total = sum(tricks.values())
    if abs(float(total) - 1.0) > 1e-9:
        raise ValueError(f"trick probabilities must sum to 1, got {float(total)}")
    return sum(p * score(contract, t, scoring).net for t, p in tricks.items())


@dataclass
class Rubber:
    """A rubber in progress: games, below-the-line scores and totals of sides 0 and 1.

    Contract bridge: game is 100 trick points below the line, a side with a game is
    vulnerable, the rubber bonus is 700 won two games to none and 500 two to one. Auction
    bridge: game is 30, the rubber bonus 250. Trick points below the line carry to the next
    deal until a game is made; a game starts every side afresh below the line.
    """

    scoring: str = "contract"
    games: list[int] = field(default_factory=lambda: [0, 0])
    below: list[int] = field(default_factory=lambda: [0, 0])
    totals: list[int] = field(default_factory=lambda: [0, 0])
    winner: int | None = None

    def __post_init__(self) -> None:
        if self.scoring not in ("contract", "auction"):
            raise ValueError(f"scoring: expected 'contract' or 'auction', got {self.scoring!r}")

    def vulnerable(self, side: int) -> bool:
        """A side that has won a game (contract bridge)."""
        return self.games[side] > 0

    def play(self, side: int, level: int, strain: str, tricks: int, doubled: int = 0,
             honours: tuple[tuple[int, int], tuple[int, int]] | None = None) -> DealScore:
        """Score a deal declared by ``side`` (0 or 1) and return its score.

        Args:
            honours: ((declarer, dummy), (left, right)) honour counts per hand; contract
                bridge scores the best one hand of each side, auction both hands together.
        """
        if self.winner is not None:
            raise ValueError("the rubber is over")
        if self.scoring == "contract":
            contract = Contract(level, strain, doubled, self.vulnerable(side))
            deal = score_contract(contract, tricks, "rubber")
            if honours is not None:
                deal = DealScore(deal.below, deal.above + contract_honours(
                    contract, max(honours[0])), deal.defenders + contract_honours(
                    contract, max(honours[1])))
            game, bonus = 100, (700, 500)
        else:
            deal = score_auction(Contract(level, strain, doubled), tricks,
                                 honours or ((0, 0), (0, 0)))
            game, bonus = 30, (250, 250)
        other = 1 - side
        self.totals[side] += deal.below + deal.above
        self.totals[other] += deal.defenders
        self.below[side] += deal.below
        if self.below[side] >= game:
            self.games[side] += 1
            self.below = [0, 0]
            if self.games[side] == 2:
                self.winner = side
                self.totals[side] += bonus[0] if self.games[other] == 0 else bonus[1]
        return deal

    @property
    def net(self) -> int:
        """Side 0's total less side 1's: what side 0 wins on the rubber."""
        return self.totals[0] - self.totals[1]
