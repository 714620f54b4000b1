"""The first coups of a large pack exactly, by counting the card orders that deal them.

Several packs have far too many profiles for the chain of :mod:`.chain` (six packs: 24 cards a
rank, C(37, 13) = 3.6e9 profiles, and over 4e8 reachable after a single coup, since the cards
turned before a match can take any part of the eleven other ranks). A bank that passes after a
few coups needs only the law of those coups, and that law can be counted without ever naming
a composition.

**Patterns.** Deal a pack of R ranks of C cards (N = RC) in a uniformly random order of its
cards. A *history* is a word over J and W: ``J`` a jumelle (two cards of one rank), ``W`` a
coup decided by its first card's rank: two cards of ranks x != y, then a *segment* of cards of
neither rank, then a card of rank x. Exchanging a coup's first two cards maps the orders where
its first card's rank is matched first one to one onto those where the second's is, leaving
every other coup alone; so a history's W may be read as "the banker won" (or "lost") with the
same probability, jointly with everything after. After the history a *probe* asks what follows:
nothing; ``V`` two cards z != w of which no card is left (the pack runs out: a void coup); ``O``
exactly one card left (a card z, then none: a void); ``E`` no card left (a fresh pack, no
void). A jumelle next is the history extended by J.

**Counting.** Fix which special cards share a rank (a *labelling*: a set partition of the
pattern's rank variables with x != y in every decided coup and z != w in V). Its s distinct
ranks can be chosen in (R)_s ways. For segment lengths m_1..m_k the card orders matching the
pattern number the sum over the ranks placed in each segment of prod_i m_i! / prod_(c,i)
j_ci! x prod_c (C)_(k_c), where class c holds k_c cards in all (its special cards s_c and its
segment cards) and may appear in segment i only if it is not one of that coup's two ranks;
each order of L cards has probability 1/(N)_L. Summing the rank splits with the exponential
series sum_j (C)_(s + j) t^j / j! = (C)_s (1 + t)^(C - s) gives

    P = (R)_s prod_c (C)_(s_c) sum_m prod_i m_i! [t^m] prod_c (1 + sum_(i in A_c) t_i)^(C - s_c)
        / (N)_(L0 + |m|)

with A_c the segments open to class c and L0 the special cards; a class whose cards must all
be dealt (V's ranks, or every class under O and E) has (sum_(i in A_c) t_i)^(C - s_c) instead.
The R - s ranks of no special card are one class of (R - s)C cards open to every segment.
Classes open to the same segments merge (their powers add), and the factor open to all k
segments, (1 + t_1 + .. + t_k)^F, sums in closed form by Vandermonde's identity (sum over
a_1 + .. + a_k = u of prod_i C(alpha_i + a_i, a_i) = C(|alpha| + u + k - 1, u)):

    P = (R)_s prod_c (C)_(s_c) sum_alpha Q_alpha prod_i alpha_i!
        sum_u (F)_u C(|alpha| + u + k - 1, u) / (N)_(L0 + |alpha| + u)

where Q is the product of the other factors, a polynomial of a few dozen terms a segment.
Every term is positive; the sums are taken in logarithms, so nothing overflows for eight packs.

**The tree chain.** The histories a bank can meet form a tree; a node is a history after which
cards are left, and its coup's odds are conditional probabilities: jumelle P(hJ)/P'(h), void
(P(h, V) + P(h, O))/P'(h) and banker or table each half the rest, with P'(h) = P(h) - P(h, E).
A child reached with the pack emptied starts afresh (the fresh pack is the root). A chain over
the nodes is exact for any policy that decides by the bank's run and money, which are functions
of the history; a node whose children are not built is terminal (a bank going on from it has
no exact value). The labellings of a pattern grow like Bell numbers in its rank variables, so
nodes are kept to histories of at most :data:`MAX_DECIDED` decided coups and
:data:`MAX_HISTORY` coups in all (a few hundred labellings, tenths of a second).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from math import lgamma

import numpy as np
from scipy import sparse
from scipy.special import gammaln, logsumexp

from sim.games.lansquenet.chain import Chain

PROBES = ("", "V", "O", "E")
MAX_DECIDED = 2  # decided coups (segments) a history may hold
MAX_HISTORY = 4  # coups a history may hold
DEFAULT_HISTORIES = frozenset({"JJ", "JW", "WJ", "WW"})  # every history of up to two coups


def _log_falling(n: int, k: int) -> float:
    """log of n (n - 1) .. (n - k + 1); -inf where k > n."""
    if k > n:
        return -np.inf
    return lgamma(n + 1) - lgamma(n - k + 1)


@dataclass(frozen=True)
class Pattern:
    """A history and a probe as rank variables: the cards each variable deals, the pairs that
    must differ, the two ranks of each decided coup (closed to its segment), and the variables
    (or, with ``empty``, all ranks) whose every card is dealt."""

    cards: tuple[int, ...]
    distinct: tuple[tuple[int, int], ...]
    segments: tuple[tuple[int, int], ...]
    exhausted: frozenset[int]
    empty: bool


def pattern(history: str, probe: str = "") -> Pattern:
    """The rank variables of ``history`` followed by ``probe`` (see the module's docstring)."""
    cards: list[int] = []
    distinct: list[tuple[int, int]] = []
    segments: list[tuple[int, int]] = []
    for coup in history:
        if coup == "J":
            cards.append(2)
        elif coup == "W":
            x, y = len(cards), len(cards) + 1
            cards += [2, 1]
            distinct.append((x, y))
            segments.append((x, y))
        else:
            raise ValueError(f"history: J or W coups, got {history!r}")
    exhausted: set[int] = set()
    if probe == "V":
        z, w = len(cards), len(cards) + 1
        cards += [1, 1]
        distinct.append((z, w))
        exhausted = {z, w}
    elif probe == "O":
        cards.append(1)
    elif probe not in ("", "E"):
        raise ValueError(f"probe: one of {PROBES}, got {probe!r}")
    return Pattern(tuple(cards), tuple(distinct), tuple(segments), frozenset(exhausted),
                   probe in ("O", "E"))


def _labellings(variables: int, distinct: tuple[tuple[int, int], ...]) -> Iterator[list[int]]:
    """Every set partition of the variables (as a label per variable, in first-seen order)
    that keeps each distinct pair apart."""
    apart: dict[int, list[int]] = {}
    for a, b in distinct:
        apart.setdefault(max(a, b), []).append(min(a, b))
    labels = [0] * variables

    def walk(i: int, used: int) -> Iterator[list[int]]:
        if i == variables:
            yield labels
            return
        for label in range(used + 1):
            if any(labels[j] == label for j in apart.get(i, ())):
                continue
            labels[i] = label
            yield from walk(i + 1, max(used, label + 1))

    yield from walk(0, 0)


def _signature(p: Pattern, labels: list[int], ranks: int, per_rank: int) -> tuple | None:
    """What the probability of one labelling depends on: per class (segments open to it, its
    special cards, whether all its cards are dealt), then the pool's; None if impossible."""
    count = max(labels, default=-1) + 1
    if count > ranks:
        return None
    special = [0] * count
    for v, c in enumerate(p.cards):
        special[labels[v]] += c
    if max(special, default=0) > per_rank:
        return None
    k = len(p.segments)
    full = (1 << k) - 1
    masks = [full] * count
    for i, (x, y) in enumerate(p.segments):
        masks[labels[x]] &= ~(1 << i)
        masks[labels[y]] &= ~(1 << i)
    dealt = [p.empty] * count
    for v in p.exhausted:
        dealt[labels[v]] = True
    classes = tuple(sorted(zip(masks, special, dealt)))
    pool = (ranks - count) * per_rank
    return classes, count, pool


def _times_power(q: np.ndarray, mask: int, exponent: int, constant: bool
                 ) -> tuple[np.ndarray, float]:
    """q times (c + sum_(i in mask) t_i)^exponent (c = 1 or 0), by one shifted add per term of
    the power (exact sums of positive terms, no transform noise); the power's coefficients are
    divided by the largest, whose log is returned."""
    k = q.ndim
    shape = [exponent + 1 if mask >> i & 1 else 1 for i in range(k)]
    grids = np.indices(shape).reshape(k, -1)
    rest = exponent - grids.sum(axis=0)
    keep = rest >= 0 if constant else rest == 0
    grids, rest = grids[:, keep], rest[keep]
    log_coef = (gammaln(exponent + 1) - gammaln(rest + 1)
                - gammaln(grids + 1).sum(axis=0))
    scale = float(log_coef.max())
    coef = np.exp(log_coef - scale)
    out = np.zeros(tuple(a + b - 1 for a, b in zip(q.shape, shape)))
    for shift, c in zip(grids.T.tolist(), coef.tolist()):
        out[tuple(slice(s, s + n) for s, n in zip(shift, q.shape))] += c * q
    return out, scale


@lru_cache(maxsize=4096)
def _classes_probability(log_k: float, special: int, open_power: tuple[tuple[int, int], ...],
                         dealt_power: tuple[tuple[int, int], ...], k: int, n: int) -> float:
    """(R)_s prod (C)_(s_c) (as ``log_k``) times the sum over segment lengths, for classes
    merged by the segments open to them: ``open_power[mask]`` cards that may stay in the pack,
    ``dealt_power[mask]`` cards that must all be dealt (see the module's docstring)."""
    full = (1 << k) - 1
    opened, dealt = dict(open_power), dict(dealt_power)
    if dealt.get(0, 0) > 0:
        return 0.0  # cards that must be dealt where no segment may take them
    if k == 0:
        return float(np.exp(log_k - _log_falling(n, special)))
    q = np.ones((1,) * k)
    log_scale = 0.0
    factors = [(m, e, True) for m, e in opened.items() if m not in (0, full) and e]
    factors += [(m, e, False) for m, e in dealt.items() if e]
    for mask, e, constant in factors:
        q, scale = _times_power(q, mask, e, constant)
        log_scale += scale
    free = opened.get(full, 0)
    idx = np.indices(q.shape).reshape(k, -1)
    coef = q.reshape(-1)
    live = coef > 0
    idx, coef = idx[:, live], coef[live]
    d = idx.sum(axis=0)
    # Per total d of the other factors' segment cards: sum_u (F)_u C(d + u + k - 1, u) /
    # (N - L0 - d)_u, the u cards of the factor open to every segment.
    ds = np.arange(int(d.max()) + 1)[:, None]
    us = np.arange(free + 1)[None, :]
    left = n - special - ds
    with np.errstate(invalid="ignore"):
        log_terms = (gammaln(free + 1) - gammaln(free - us + 1)
                     + gammaln(ds + us + k) - gammaln(us + 1) - gammaln(ds + k)
                     - gammaln(left + 1) + gammaln(np.maximum(left - us, 0) + 1))
    log_terms = np.where(us <= left, log_terms, -np.inf)
    log_sum_u = logsumexp(log_terms, axis=1)
    log_weight = (gammaln(idx + 1).sum(axis=0) - lgamma(n + 1) + gammaln(n - special - d + 1)
                  + log_sum_u[d])
    return float(np.exp(log_k + log_scale + logsumexp(np.log(coef) + log_weight)))


@lru_cache(maxsize=1024)
def history_probability(ranks: int, per_rank: int, history: str, probe: str = "") -> float:
    """P(the first coups of a fresh pack of ``ranks`` ranks of ``per_rank`` cards deal
    ``history``, then ``probe``), summed over every labelling (see the module's docstring)."""
    p = pattern(history, probe)
    k = len(p.segments)
    full = (1 << k) - 1
    n = ranks * per_rank
    total = 0.0
    seen: dict[tuple, int] = {}
    for labels in _labellings(len(p.cards), p.distinct):
        sig = _signature(p, labels, ranks, per_rank)
        if sig is not None:
            seen[sig] = seen.get(sig, 0) + 1
    for (classes, count, pool), times in seen.items():
        log_k = _log_falling(ranks, count) + sum(_log_falling(per_rank, s)
                                                  for _, s, _ in classes)
        if log_k == -np.inf:
            continue
        special = sum(s for _, s, _ in classes)
        open_power: dict[int, int] = {}
        dealt_power: dict[int, int] = {}
        for mask, s, dealt in classes:
            target = dealt_power if dealt else open_power
            target[mask] = target.get(mask, 0) + per_rank - s
        target = dealt_power if p.empty else open_power
        target[full] = target.get(full, 0) + pool
        total += times * _classes_probability(log_k, special,
                                              tuple(sorted(open_power.items())),
                                              tuple(sorted(dealt_power.items())), k, n)
    return total


def prefix_closed(histories: frozenset[str]) -> frozenset[str]:
    """The histories with every prefix of each (the root ``""`` among them)."""
    return frozenset(h[:i] for h in histories for i in range(len(h) + 1)) | {""}


def reachable(history: str) -> bool:
    """Whether the patterns of a node ``history`` are within the counting's budget."""
    return len(history) <= MAX_HISTORY and history.count("W") <= MAX_DECIDED


@lru_cache(maxsize=32)
def tree_chain(ranks: int, per_rank: int, histories: frozenset[str]) -> Chain:
    """The chain over ``histories`` (closed under prefixes; see the module's docstring).

    Raises:
        ValueError: a history beyond :data:`MAX_DECIDED` decided coups or
            :data:`MAX_HISTORY` coups.
    """
    nodes = sorted(prefix_closed(histories), key=lambda h: (len(h), h))
    far = [h for h in nodes if not reachable(h)]
    if far:
        raise ValueError(f"histories {far}: beyond {MAX_DECIDED} decided coups or "
                         f"{MAX_HISTORY} coups")
    index = {h: i for i, h in enumerate(nodes)}
    size = len(nodes)

    def prob(history: str, probe: str = "") -> float:
        return history_probability(ranks, per_rank, history, probe)

    jum, win, void = np.zeros(size), np.zeros(size), np.zeros(size)
    rows: dict[str, tuple[list[int], list[int], list[float]]] = {"J": ([], [], []),
                                                                  "W": ([], [], [])}
    terminal = np.zeros(size, dtype=bool)
    for h, i in index.items():
        left = 1.0 if not h else prob(h) - prob(h, "E")  # P(h) with cards left
        if left <= 0.0:
            continue
        jum[i] = prob(h + "J") / left
        void[i] = (prob(h, "V") + prob(h, "O")) / left
        win[i] = max(0.0, 1.0 - jum[i] - void[i]) / 2
        for coup in "JW":
            child = h + coup
            if child not in index:
                terminal[i] = True
                continue
            # The odds of the outcome, split by whether it leaves cards (so a row sums to its
            # outcome's odds to the last bit: the walks compare the two).
            r, c, v = rows[coup]
            odds = jum[i] if coup == "J" else win[i]
            reached = prob(child)
            emptied = prob(child, "E") / reached if reached > 0.0 else 0.0
            r += [i, i]
            c += [index[child], 0]
            v += [odds * (1.0 - emptied), odds * emptied]
    to_jumelle, to_win = (sparse.csr_matrix((rows[o][2], (rows[o][0], rows[o][1])),
                                            shape=(size, size)) for o in "JW")
    return Chain(0, jum, win, win.copy(), void, to_jumelle, to_win, terminal)
