"""A plain-Python faro strategy built into a :class:`FaroTable`.

A faro view holds the case keeper's whole count (thirteen ranks, up to 33 cards each), far too
many views to ask about, and a table holds less: each bet slot's stake by the cards left of
the ranks it covers, a high-card stake and a calling-the-turn stake. So a strategy says what it
reads, as a class attribute naming view fields and items of ``remaining``::

    reads = ("remaining[6]",)              # the sevens left
    reads = ("remaining[0]", "winner_void")

The engine then asks it about every count of the declared ranks (the other fields are not
shown: a read of one is a refusal) and packs the answers. Without a declaration the strategy
stays on the reference path and the report says so.

Why the packing is faithful: a table slot ``(ranks, coppered)`` bets ``stakes[k]`` where ``k``
is the count left of its ranks; the strategy's bet on those ranks is taken in every view, and
the packing fails unless it is a function of that count alone (a bet on ranks outside the
declared ones must be the same in every view). The reference deal settles what the strategy
names and nothing else, so the two agree turn by turn.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from sim.core.tabulate import NotTabulable, Tabulation, ask, cached, tabulation
from sim.games.faro.kernel import FaroTable
from sim.games.faro.rules import CallTurnBet, FaroRules, FaroView, HighCardBet, RankBet

MAX_VIEWS = 50_000  # counts of the declared ranks asked about, at most
_ITEM = re.compile(r"^remaining\[(\d{1,2})\]$")
TABLE_FIELDS = ("winner_void",)  # besides items of remaining


def declared_reads(strategy: Any) -> tuple[tuple[int, ...], bool]:
    """(the ranks of ``remaining`` read, whether ``winner_void`` is read) of the declaration.

    Raises:
        NotTabulable: no declaration, or one naming what a table cannot hold.
    """
    reads = getattr(strategy, "reads", None)
    if reads is None:
        raise NotTabulable("it does not declare the view fields it reads (a class attribute "
                           "such as reads = (\"remaining[6]\",)), and a faro view is too large "
                           "to ask about whole")
    if isinstance(reads, str):
        reads = (reads,)
    ranks, void = [], False
    for field in reads:
        match = _ITEM.match(str(field))
        if match and int(match.group(1)) < 13:
            ranks.append(int(match.group(1)))
        elif field == "winner_void":
            void = True
        elif field == "remaining":
            raise NotTabulable("it declares remaining whole; a table holds a stake by the "
                               "cards left of a bet's ranks: declare the ranks read, e.g. "
                               "remaining[6]")
        else:
            raise NotTabulable(f"it declares view field {field}, which a table cannot hold")
    return tuple(sorted(set(ranks))), void


def _view(rules: FaroRules, counts: dict[int, int], void: bool) -> FaroView:
    totals = [int(t) for t in rules.rank_totals()]
    remaining = tuple(counts.get(r, totals[r]) for r in range(13))
    return FaroView(turn=0, turns=rules.n_turns, remaining=remaining,
                    cards_left=rules.n_cards, last_turn=None, winner_void=void,
                    can_call_turn=False)


def _normalise(answer: Any) -> tuple:
    bets = []
    for bet in answer or ():
        units = getattr(bet, "units", None)
        if isinstance(units, bool) or not isinstance(units, (int, float)) or not units > 0:
            raise NotTabulable(f"it answers {bet!r}, which the rules do not allow (the "
                               "reference path reports it)")
        if isinstance(bet, RankBet):
            bets.append(("rank", sum(1 << int(r) for r in bet.ranks), bool(bet.coppered),
                         float(bet.units)))
        elif isinstance(bet, HighCardBet):
            bets.append(("high", float(bet.units)))
        elif isinstance(bet, CallTurnBet):
            raise NotTabulable("it calls the turn, whose order depends on every card left: a "
                               "table holds only the built-in call-turn")
        else:
            raise NotTabulable(f"it answers {bet!r}, which is not a faro bet")
    return tuple(bets)


def build(rules: FaroRules, strategy: Any) -> FaroTable:
    """The strategy as a :class:`FaroTable` (see the module notes).

    Raises:
        NotTabulable: why it cannot be one.
    """
    ranks, reads_void = declared_reads(strategy)
    totals = [int(t) for t in rules.rank_totals()]
    domains = [range(totals[r] + 1) for r in ranks]
    n_views = 1
    for d in domains:
        n_views *= len(d)
    if n_views > MAX_VIEWS:
        raise NotTabulable(f"its declared ranks give {n_views:,} views, more than "
                           f"{MAX_VIEWS:,} to ask about")
    voids = (False, True) if reads_void else (False,)
    items = {"remaining": set(ranks)}
    asked = []  # (void, counts, rank bets by slot, high-card units) of every view
    order: list[tuple[int, bool]] = []  # slots in the order the strategy first names them
    for void in voids:
        for combo in itertools.product(*domains):
            counts = dict(zip(ranks, combo))
            answer = ask(strategy, "decide", _view(rules, counts, void),
                         TABLE_FIELDS if reads_void else (), items=items, normalise=_normalise,
                         describe=lambda v: f"cards left {v.remaining}")
            named: dict[tuple[int, bool], float] = {}
            high_units = 0.0
            for bet in answer:
                if bet[0] == "high":
                    high_units += bet[1]
                    continue
                _, mask, coppered, units = bet
                if (mask, coppered) in named:
                    raise NotTabulable("it names two bets on the same ranks in one turn")
                named[(mask, coppered)] = units
                if (mask, coppered) not in order:
                    order.append((mask, coppered))
            asked.append((void, counts, named, high_units))
    masks, coppered_flags, stakes = [], [], []
    read_mask = sum(1 << r for r in ranks)
    for slot in order:
        mask, coppered = slot
        by_key: dict[tuple[bool, int], float] = {}
        for void, counts, named, _ in asked:
            # A slot covering a rank not read has one stake for every view.
            k = -1 if mask & ~read_mask else sum(counts[r] for r in ranks if mask >> r & 1)
            units = named.get(slot, 0.0)
            if by_key.setdefault((void, k), units) != units:
                raise NotTabulable(_depends(mask))
        if mask & ~read_mask:
            units = {by_key[(void, -1)] for void in voids}
            if len(units) > 1:
                raise NotTabulable(_void_differs(mask))
            row: tuple[float, ...] = (0.0, units.pop())
        else:
            most = sum(totals[r] for r in range(13) if mask >> r & 1)
            cells = []
            for k in range(most + 1):
                values = {by_key[(void, k)] for void in voids}
                if len(values) > 1:
                    raise NotTabulable(_void_differs(mask))
                cells.append(values.pop())
            row = tuple(cells)
        masks.append(mask)
        coppered_flags.append(coppered)
        stakes.append(row)
    high: dict[bool, set[float]] = {}
    for void, _, _, high_units in asked:
        high.setdefault(void, set()).add(high_units)
    if any(len(v) > 1 for v in high.values()):
        raise NotTabulable("its high-card stake depends on the cards left, which a table "
                           "cannot hold")
    high = {void: v.pop() for void, v in high.items()}
    high_card = high.get(False, 0.0)
    if high_card:
        if reads_void and high.get(True, 0.0):
            raise NotTabulable("it bets high card on a turn whose winning card is void")
        if rules.last_winner_void and not reads_void:
            raise NotTabulable("it bets high card without reading winner_void, and the last "
                               "turn of this variant has no winning card")
    return FaroTable(tuple(masks), tuple(coppered_flags), tuple(stakes), high_card=high_card)


def _ranks(mask: int) -> str:
    return "{" + ", ".join(str(r) for r in range(13) if mask >> r & 1) + "}"


def _void_differs(mask: int) -> str:
    return (f"its bet on ranks {_ranks(mask)} differs on the turn whose winning card is "
            "void, which a table cannot hold")


def _depends(mask: int) -> str:
    return (f"its bet on ranks {_ranks(mask)} depends on more than the cards left of those "
            "ranks, which a table cannot hold")


def tabulate(rules: FaroRules, strategy: Any) -> Tabulation[FaroTable]:
    """The strategy as a kernel table, or the reason it stays on the reference path (built
    once per rules and strategy)."""
    return cached(rules, strategy, lambda: tabulation(lambda: build(rules, strategy)))
