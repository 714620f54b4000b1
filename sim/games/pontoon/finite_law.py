"""The exact law of a heads-up deal's net from a finite pack shuffled every deal.

The mean of a deal (:mod:`sim.games.pontoon.independent`) values each hand alone; its law
cannot, for the hands of a split seat settle against one banker and draw from one pack. It
is the same recursion over the cards left, carrying the joint law of the banker's final
score and the net still to come instead of the expected net. Three facts keep it exact and
finite, for a banker who draws on his own cards only and a stock no deal can exhaust:

* **Any order that respects the decisions** (the pack is exchangeable): the banker's two
  cards may be drawn after every hand (his pontoon, settled before anyone plays, has the
  chance it has from the punter's two cards: the chance of a pontoon from the cards left is
  a martingale); a split's structure (every second card, splitting again on a match) may be
  drawn before any of its hands is played; and the hands, once formed, may be played in any
  order, for each hand's draws are a stopping rule on its own cards and the chance of a
  sequence of blocks of cards depends only on the cards in them. So the hands of a structure
  are played in a canonical order (sorted by their two cards' values), and equal sets of hands
  from equal stocks are one state.
* **What is left of a deal** after some of its hands depends on the cards drawn only through
  the values left (hands whose splits are settled, and the banker, read values alone) and on
  the hands still to play. Its law is a table ``R[b, x]``: the chance that the banker ends on
  score ``b`` (his pontoon excluded) and the hands still to play net ``x`` (steps of the
  lattice, per unit of the seat's stake, the same for all its hands). With no hand left it is
  the banker's distribution from the cards left; a hand played from ``L`` to its end at
  ``L'`` (score ``s``, money ``m`` times the stake) adds ``m * pays[s, b]`` to ``x`` of the
  table after it, at ``L'``. These tables are cached by (values left, hands left).
* **The seat's law** is then a sum over its first two cards (a burn's new two, a split's
  structures) of the chance of each times its table summed over ``b``, plus the banker's
  pontoon, which settles the first two cards at once.

The tables after several hands of a split are many: one per set of values its earlier hands
drew. A seat splitting into two hands takes a fraction of a second; three and four hands
multiply the states by the values each hand may draw, and the law gives up (None) past the
work budget, which bounds the cached tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import types
from numba.typed import Dict, List

from sim.core import (
    intmap,
    jit,
    kernel_cache,  # noqa: F401  (compiled code cached by digest)
)
from sim.games.pontoon.banker_odds import R_SCORE, R_STOPS, banker_structure
from sim.games.pontoon.composition import (
    P_BURN,
    draw_p,
    pack_counts,
    put_back,
    take,
)
from sim.games.pontoon.hand import (
    BUY1,
    BUY_SUM,
    RI_BANKER_FIVE,
    RI_MAX_HANDS,
    RI_TIES_TO_BANKER,
    best_total,
    is_pontoon_pair,
    settle_banker_pontoon,
)
from sim.games.pontoon.hand_tree import (
    G_CODE,
    MAX_NODES,
    N_MONEY,
    N_SCORE,
    group_bankers,
    group_counts,
    node_chances,
    removed_code,
)
from sim.games.pontoon.independent import (
    _no_pontoon,
    applies,
    by_values,
    new_trees,
    settle_matrix,
    tree_of,
)
from sim.games.pontoon.rules import MAX_HANDS, VALUES, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.games.pontoon.walk import BIG_STOCK, table_move

DEFAULT_BUDGET = 400_000
_KEY = types.UniTuple(types.int64, 2)
_ROW = types.float64[::1]
_TABLE = types.float64[:, ::1]
HAND_RADIX = 201  # a hand's code is 1..200: its two values (0..9 each) and whether split


@jit.njit(cache=True)
def hand_code(c1, c2, split_hand):
    """A hand by the values of its two cards (ten-cards alike) and whether it is split."""
    return (min(c1, 9) * 10 + min(c2, 9)) * 2 + split_hand + 1


@jit.njit(cache=True)
def canonical(hands, n):
    """The hands ``hands[:n]`` in the order they are played here: the highest two-card totals
    first (any order is exact, and hands that stand on their two cards draw nothing, so the
    states after them are the states before), then by code."""
    keys = np.zeros(n, dtype=np.int64)
    for i in range(n):
        code = hands[i] - 1
        c1, c2 = code // 20, (code // 2) % 10
        total, _ = best_total(VALUES[c1] + VALUES[c2], c1 == 0 or c2 == 0)
        keys[i] = (31 - total) * HAND_RADIX + hands[i]
    return hands[:n][np.argsort(keys)]


@jit.njit(cache=True)
def _hands_code(hands, k, n):
    code = 0
    for i in range(n - 1, k - 1, -1):
        code = code * HAND_RADIX + hands[i]
    return code


@jit.njit(cache=True)
def _bankers(counts, code, leaves, groups, starts, chances, ctx, store):
    """Cache the banker's distributions for the cards left at the live leaves of a hand's
    tree played from ``counts`` (removed code ``code``)."""
    probs, _, _, _, _, btab, rule_i, params, _, _, _ = ctx
    _, _, _, fmemo, fvals, smemo, srows, sways = store
    need = np.empty(groups.shape[0], dtype=np.int64)
    n_need = 0
    for g in range(groups.shape[0]):
        if intmap.get(fmemo, code + groups[g, G_CODE]) >= 0:
            continue
        for k in range(starts[g], starts[g + 1]):
            if chances[leaves[k]] > 0.0:
                need[n_need] = g
                n_need += 1
                break
    bankers = group_bankers(counts, groups, need, n_need, probs, params, btab, rule_i, smemo,
                            srows, sways)
    for i in range(n_need):
        intmap.put(fmemo, code + groups[need[i], G_CODE], len(fvals))
        fvals.append(bankers[i].copy())


@jit.njit(cache=True)
def rest_table(counts, full, hands, n, ctx, store):
    """The index in ``tables`` of the law of what is left of a deal: the hands ``hands[:n]``
    (codes, in the order of :func:`canonical`) played in turn from the cards ``counts``
    (values only), then the banker; -1 past the work budget. See :func:`seat_law` for
    ``ctx`` and ``store``.

    Each level plays one hand from its tree: its leaves, grouped by the values they drew,
    settle against the table of what is left at their group's stock, a level up (computed
    first where it is missing), or, for the last hand, the banker's distribution there."""
    _, act, split, steps, support, _, rule_i, _, span, budget, trees = ctx
    memo, tables, lows, fmemo, fvals, _, _, _ = store
    scores = support.shape[0]
    stock = np.zeros((MAX_HANDS, 14), dtype=np.int64)  # each level's cards left
    code = np.zeros(MAX_HANDS, dtype=np.int64)  # and their removed code
    tree = np.zeros(MAX_HANDS, dtype=np.int64)
    group = np.zeros(MAX_HANDS, dtype=np.int64)  # the group each level is at
    opened = np.zeros(MAX_HANDS, dtype=np.bool_)
    chances = np.zeros((MAX_HANDS, MAX_NODES))
    acc = np.zeros((MAX_HANDS, scores, 2 * MAX_HANDS * span + 1))
    used = np.zeros((MAX_HANDS, 2), dtype=np.int64)  # the net columns each level touched
    shift = np.zeros(scores, dtype=np.int64)
    level = 0
    stock[0] = counts
    code[0] = removed_code(counts, full)
    while True:
        if not opened[level]:  # a level opens: its hand's tree and chances
            opened[level] = True
            code_ = hands[level] - 1
            t = tree_of(code_ // 20, (code_ // 2) % 10, code_ % 2, act, split, rule_i, trees)
            tree[level] = t
            node_chances(trees[1][t], stock[level], chances[level])
            used[level, 0], used[level, 1] = acc.shape[2], -1
            if level == n - 1:
                _bankers(stock[level], code[level], trees[2][t], trees[3][t], trees[4][t],
                         chances[level], ctx, store)
        t = tree[level]
        nodes, leaves, groups, starts = trees[1][t], trees[2][t], trees[3][t], trees[4][t]
        off = (n - level) * span  # the net of what is left from this hand on: x + off
        g = group[level]
        if g == groups.shape[0]:  # done: cache the table, hand it down a level
            first, last = used[level, 0], used[level, 1]
            if last < first:
                first, last = off, off
            index = len(tables)
            tables.append(acc[level, :, first:last + 1].copy())
            acc[level, :, first:last + 1] = 0.0
            lows.append(first - off)
            memo[(code[level], _hands_code(hands, level, n))] = index
            group[level], opened[level] = 0, False
            if len(tables) + len(fvals) > budget:
                return -1
            if level == 0:
                return index
            level -= 1
            continue
        at = code[level] + groups[g, G_CODE]
        first_leaf, last_leaf = starts[g], starts[g + 1]
        live = False
        for k in range(first_leaf, last_leaf):
            if chances[level, leaves[k]] > 0.0:
                live = True
                break
        if not live:
            group[level] += 1
            continue
        if level == n - 1:  # the banker is all that is left
            banker = fvals[intmap.get(fmemo, at)]
            for k in range(first_leaf, last_leaf):
                q = chances[level, leaves[k]]
                if q == 0.0:
                    continue
                m, s = nodes[leaves[k], N_MONEY], nodes[leaves[k], N_SCORE]
                for b in range(scores):
                    j = off + m * steps[s, b]
                    acc[level, b, j] += q * banker[support[b]]
                    used[level, 0] = min(used[level, 0], j)
                    used[level, 1] = max(used[level, 1], j)
            group[level] += 1
            continue
        key = (at, _hands_code(hands, level + 1, n))
        if key not in memo:  # work out what is left after this group first
            group_counts(stock[level], groups, g, stock[level + 1])
            code[level + 1] = at
            level += 1
            continue
        index = memo[key]
        table, x_lo = tables[index], lows[index]
        k = first_leaf
        while k < last_leaf:  # leaves of one score and money settle together
            m, s = nodes[leaves[k], N_MONEY], nodes[leaves[k], N_SCORE]
            q = 0.0
            while (k < last_leaf and nodes[leaves[k], N_MONEY] == m
                   and nodes[leaves[k], N_SCORE] == s):
                q += chances[level, leaves[k]]
                k += 1
            if q == 0.0:
                continue
            for b in range(scores):
                shift[b] = m * steps[s, b]
                base = x_lo + shift[b] + off
                for j in range(table.shape[1]):
                    acc[level, b, base + j] += q * table[b, j]
                used[level, 0] = min(used[level, 0], base)
                used[level, 1] = max(used[level, 1], base + table.shape[1] - 1)
        group[level] += 1


@jit.njit(cache=True)
def _settle_hands(law, r1, q, hands, n, counts, full, ctx, store):
    """Add ``q`` times the law of the hands ``hands[:n]`` and the banker, from the cards
    left, to seat law ``law[r1]``; False past the work budget."""
    ordered = canonical(hands, n)
    vc, vf = by_values(counts, full)
    key = (removed_code(vc, vf), _hands_code(ordered, 0, n))
    memo, tables, lows = store[0], store[1], store[2]
    if key in memo:
        index = memo[key]
    else:
        index = rest_table(vc, vf, ordered, n, ctx, store)
        if index < 0:
            return False
    table = tables[index]
    base = lows[index] + (law.shape[1] - 1) // 2
    for b in range(table.shape[0]):
        for j in range(table.shape[1]):
            law[r1, base + j] += q * table[b, j]
    return True


@jit.njit(cache=True)
def _split_law(law, r1, q0, c1, c2, counts, full, ctx, store):
    """Add a split pair's law to ``law[r1]``: every structure (second cards drawn as the
    reference deal draws them, splitting again on a match), then its hands from the cards
    left once it is complete; False past the work budget."""
    probs, act, split, _, _, _, rule_i, _, _, _, _ = ctx
    size = 2 * MAX_HANDS
    first = np.zeros(size, dtype=np.int64)  # the first card of the hand drawing at this level
    queue = np.zeros(size, dtype=np.int64)  # pending first cards, base 14, newest lowest
    cap = np.zeros(size, dtype=np.int64)
    done = np.zeros(size, dtype=np.int64)  # hands formed before this level
    card = np.zeros(size, dtype=np.int64)
    taken = np.zeros(size, dtype=np.int64)
    prob = np.zeros(size)
    formed = np.zeros((size + 1, MAX_HANDS), dtype=np.int64)
    first[0], queue[0], cap[0], prob[0] = c1, c2 + 1, rule_i[RI_MAX_HANDS] - 2, q0
    d = 0
    while d >= 0:
        if taken[d]:
            put_back(card[d], counts, False)
            taken[d] = 0
            card[d] += 1
        p = 0.0
        while card[d] < 13:
            p = draw_p(card[d], counts, probs, False)
            if p > 0.0:
                take(card[d], counts, False)
                taken[d] = 1
                break
            card[d] += 1
        if p == 0.0:
            d -= 1
            continue
        p *= prob[d]
        x, f, k = card[d], first[d], done[d]
        _, kind, _, _ = table_move(VALUES[f] + VALUES[x], f == 0 or x == 0, 2, 0, 0,
                                   VALUES[f] + 1, f, x, 1, 0, cap[d], BIG_STOCK, 1.0, act,
                                   split, rule_i, False)
        formed[d + 1] = formed[d]
        if kind == 4:  # a match: split again, the new card waits, the hand draws again
            first[d + 1], queue[d + 1] = f, (x + 1) + 14 * queue[d]
            cap[d + 1], done[d + 1] = cap[d] - 1, k
        else:
            formed[d + 1, k] = hand_code(f, x, 1)
            if queue[d] == 0:  # the structure is complete: its hands, then the banker
                if not _settle_hands(law, r1, p, formed[d + 1], k + 1, counts, full, ctx,
                                     store):
                    return False
                continue
            first[d + 1], queue[d + 1] = queue[d] % 14 - 1, queue[d] // 14
            cap[d + 1], done[d + 1] = cap[d], k + 1
        card[d + 1], taken[d + 1], prob[d + 1] = 0, 0, p
        d += 1
    return True


@jit.njit(cache=True)
def _two_cards_law(law, r1, q, a, b, burnt, counts, full, ctx, store):
    """Add the law of a seat's hand from two cards (a burnt hand's new ones) to ``law[r1]``:
    1 done, 0 past the budget, 2 a hard 13 to burn."""
    _, act, split, _, _, _, rule_i, params, _, _, _ = ctx
    _, kind, _, _ = table_move(VALUES[a] + VALUES[b], a == 0 or b == 0, 2, 0, 0, 2, a, b, 0,
                               burnt, rule_i[RI_MAX_HANDS] - 1, BIG_STOCK, 1.0, act, split,
                               rule_i, params[P_BURN] != 0)
    if kind == 3:
        return 2
    if kind == 4:
        return int(_split_law(law, r1, q, a, b, counts, full, ctx, store))
    hands = np.zeros(1, dtype=np.int64)
    hands[0] = hand_code(min(a, b), max(a, b), 0)  # an unsplit hand: its two cards, a set
    return int(_settle_hands(law, r1, q, hands, 1, counts, full, ctx, store))


@jit.njit(cache=True)
def seat_law(full, probs, act, split, btab, rule_i, steps, support, bp_steps, params, span,
             budget):
    """A heads-up deal's law by the punter's first card: ``law[r1, j]`` is the chance that
    the first card has rank ``r1`` and the deal nets ``j - (width - 1) / 2`` steps per unit of
    its stake; and the number of cached states (-1: past the work budget). ``bp_steps[p]``:
    the steps the banker's pontoon takes (``p`` 1: the punter's two cards are a pontoon)."""
    memo = Dict.empty(key_type=_KEY, value_type=types.int64)
    tables = List.empty_list(_TABLE)
    lows = List.empty_list(types.int64)
    fmemo = intmap.intmap()
    fvals = List.empty_list(_ROW)
    smemo = Dict.empty(key_type=types.int64, value_type=types.int64)
    srows = List.empty_list(types.int64[:, ::1])
    sways = List.empty_list(_ROW)
    store = (memo, tables, lows, fmemo, fvals, smemo, srows, sways)
    ctx = (probs, act, split, steps, support, btab, rule_i, params, span, budget, new_trees())
    half = MAX_HANDS * span
    law = np.zeros((13, 2 * half + 1))
    counts = pack_counts(full)
    for a in range(13):
        pa = draw_p(a, counts, probs, False)
        if pa == 0.0:
            continue
        take(a, counts, False)
        for b in range(13):
            pb = draw_p(b, counts, probs, False)
            if pb == 0.0:
                continue
            take(b, counts, False)
            q = pa * pb
            # The banker's pontoon: the punter's two cards settle at once.
            law[a, half + bp_steps[int(is_pontoon_pair(a, b))]] += q * (
                1.0 - _no_pontoon(counts, probs, False))
            state = _two_cards_law(law, a, q, a, b, 0, counts, full, ctx, store)
            if state == 2:  # burnt: two new cards, the stake stays by the first card
                for x in range(13):
                    px = draw_p(x, counts, probs, False)
                    if px == 0.0:
                        continue
                    take(x, counts, False)
                    for y in range(13):
                        py = draw_p(y, counts, probs, False)
                        if py == 0.0:
                            continue
                        take(y, counts, False)
                        state = _two_cards_law(law, a, q * px * py, x, y, 1, counts, full, ctx,
                                               store)
                        put_back(y, counts, False)
                        if state == 0:
                            return law, -1
                    put_back(x, counts, False)
            elif state == 0:
                return law, -1
            put_back(b, counts, False)
        put_back(a, counts, False)
    return law, len(tables) + len(fvals)


def _lattice_step(rules: PontoonRules) -> Fraction:
    """The step of a hand's net per unit of its money: every payment is a multiple of it."""
    pays = [Fraction(x).limit_denominator(2) for x in (
        1, rules.pontoon_pays, rules.five_card_trick_pays, rules.banker_pontoon_collects,
        rules.banker_five_card_trick_collects)]
    return Fraction(1, max(p.denominator for p in pays))


@dataclass(frozen=True)
class DealLaw:
    """The law of a heads-up deal's net (stake units; positive: the punter wins).

    Attributes:
        values: the distinct nets, ascending.
        probs: their chances.
        states: cached states of the recursion (a measure of its work).
    """

    values: np.ndarray
    probs: np.ndarray
    states: int

    @property
    def mean(self) -> float:
        return float(self.values @ self.probs)


# Laws by (rules, the tables' fingerprints, budget): tables are compared by identity, and a
# run asks for a row's law once for its sessions' grid and once for its risk report.
_LAWS: dict[tuple, DealLaw | None] = {}
KEEP = 64


def _law(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
         budget: int) -> DealLaw | None:
    from sim.games.pontoon.exact_deal import _inputs

    full, probs, act, split, stakes, _, btab, rule_i, rule_f, params = _inputs(
        rules, player, banker, budget)
    step = _lattice_step(rules)
    pays = settle_matrix(rule_i, rule_f)
    steps = np.rint(pays / float(step)).astype(np.int64)
    rows, _ = banker_structure(0, btab, False, bool(rule_i[RI_BANKER_FIVE]))
    support = np.unique(rows[rows[:, R_STOPS] == 1, R_SCORE])  # the scores he can end on
    ties = bool(rule_i[RI_TIES_TO_BANKER])
    bp_steps = np.array([round(settle_banker_pontoon(p, ties, rule_f) / float(step))
                         for p in (False, True)], dtype=np.int64)
    money = 1 + (int(BUY_SUM.max()) if (player.actions >= BUY1).any() else 0)
    span = money * int(np.abs(steps).max())
    span = max(span, int(np.abs(bp_steps).max()) // MAX_HANDS + 1)
    law, states = seat_law(full, probs, act, split, btab, rule_i, steps[:, support], support,
                           bp_steps, params, span, budget)
    if states < 0:
        return None
    half = (law.shape[1] - 1) // 2
    net: dict[float, float] = {}
    for r1, j in zip(*np.nonzero(law)):  # ten-cards drawn as one rank share one stake
        value = round(float(stakes[r1]) * float(step) * (int(j) - half), 9)
        net[value] = net.get(value, 0.0) + float(law[r1, j])
    values = np.array(sorted(net))
    return DealLaw(values, np.array([net[v] for v in values.tolist()]), states)


def reaches(rules: PontoonRules, player: PlayerTable, banker: BankerTable) -> bool:
    """Whether the law is computed here at all: heads-up, a finite pack shuffled every deal,
    a banker who draws on his own cards only, and a stock no deal can exhaust."""
    return (rules.players == 1 and not rules.infinite_deck and rules.reshuffle == "every-deal"
            and applies(rules, player, banker.under(rules), rules.n_cards))


def deal_law(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
             budget: int = DEFAULT_BUDGET) -> DealLaw | None:
    """The exact law of a heads-up deal's net from a full finite pack (every deal, where the
    pack is shuffled every deal); None where :func:`reaches` says no or past the work
    budget (``budget`` cached states)."""
    if not reaches(rules, player, banker):
        return None
    problems = player.problems(rules)
    if problems:
        raise ValueError(f"the table breaks the rules: {problems[0]}")
    banker = banker.under(rules)
    key = (rules, player.digest, banker.digest, budget)
    if key not in _LAWS:
        if len(_LAWS) >= KEEP:
            del _LAWS[next(iter(_LAWS))]
        _LAWS[key] = _law(rules, player, banker, budget)
    return _LAWS[key]


def clear_cache() -> None:
    """Forget every law computed so far (for timing a computation from scratch)."""
    _LAWS.clear()


__all__ = ["DEFAULT_BUDGET", "DealLaw", "clear_cache", "deal_law", "reaches"]
