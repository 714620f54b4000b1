"""Exact coup odds from any pack, and the pack's composition from coup to coup as a Markov chain.

**One coup.** From a pack holding ``c_r`` cards of rank r (N in all), the first two cards are of
ranks (r, r') with probability ``c_r (c_r' - [r = r']) / (N (N - 1))``. Equal ranks make a
jumelle. Otherwise ``a = c_r - 1`` and ``b = c_r' - 1`` cards can still match; every one of those
``a + b`` cards is equally likely to come first, so the second card's rank is matched first with
probability ``b / (a + b)``, and if ``a + b = 0`` the pack runs out (a void coup). Swapping the
two cards maps orderings one to one, so under fair play the banker's card and the table's are
matched first equally often from *every* composition, whichever is turned first: the banker's
whole advantage is the jumelle.

**A bank without reshuffle.** The composition after a coup depends on which other cards were
turned before the match, but only through the *profile* of the pack (how many ranks have 0, 1,
2, ... cards left): ranks are interchangeable. The profiles form a small Markov chain for a
pack with at most four cards a rank (2,380 profiles for one 52-card pack). A coup that turns m
other cards removes a uniformly random m-subset of them, so the chance of each resulting
profile is a product of binomial coefficients (:func:`_removals`), and the chance of turning
exactly m others and then a given matching card is ``1 / (C(N', m) (N' - m))``.

Several packs have too many profiles. For them :mod:`.patterns` counts the card orders that
deal each history of a bank's first coups, and its chain is the tree of those histories; the
histories beyond it are left unknown (*terminal*), so values needing them are not exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from itertools import product
from math import comb, factorial

import numpy as np
from scipy import sparse

PROFILE_LIMIT = 3000  # largest number of profiles built into a chain


@dataclass(frozen=True)
class CoupOdds:
    """The outcomes of one coup from a given pack.

    Attributes:
        jumelle: both cards of one rank. banker: the banker's card matched first.
        table: the table's card matched first. void: the pack runs out first.
    """

    jumelle: float
    banker: float
    table: float
    void: float

    def ev(self, take: float) -> float:
        """The banker's expected gain per unit of covered stake (``take``: the jumelle share)."""
        return take * self.jumelle + self.banker - self.table


def coup_odds(counts: tuple[int, ...] | list[int], banker_first: bool = False) -> CoupOdds:
    """Exact odds of a coup from a pack with ``counts[r]`` cards of rank r left.

    Raises:
        ValueError: an empty pack (a coup starts only after a reshuffle).
    """
    counts = [int(c) for c in counts if c]
    n = sum(counts)
    if n == 0:
        raise ValueError("counts: the pack is empty")
    if n == 1:
        return CoupOdds(0.0, 0.0, 0.0, 1.0)
    pairs = n * (n - 1)
    jumelle = sum(c * (c - 1) for c in counts) / pairs
    first = second = void = 0.0
    for i, ci in enumerate(counts):
        for j, cj in enumerate(counts):
            if i == j:
                continue
            p = ci * cj / pairs
            a, b = ci - 1, cj - 1
            if a + b == 0:
                void += p
            else:
                first += p * a / (a + b)
                second += p * b / (a + b)
    banker, table = (first, second) if banker_first else (second, first)
    return CoupOdds(jumelle, banker, table, void)


@dataclass(frozen=True)
class Chain:
    """The pack from coup to coup.

    Attributes:
        start: the state of a fresh pack.
        jumelle, win, lose, void: per state, the probability of each outcome of its coup.
        to_jumelle, to_win: sparse (state, next state) probabilities of the outcome and the
            pack it leaves; rows of terminal states are empty.
        terminal: states whose following packs are not modelled (a value that needs them is
            not exact).
        profiles: the profile of each state (cards a rank -> ranks), or None.
    """

    start: int
    jumelle: np.ndarray
    win: np.ndarray
    lose: np.ndarray
    void: np.ndarray
    to_jumelle: sparse.csr_matrix
    to_win: sparse.csr_matrix
    terminal: np.ndarray
    profiles: tuple[tuple[int, ...], ...] | None = None

    @property
    def size(self) -> int:
        return self.jumelle.shape[0]

    @cached_property
    def forward(self) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        """(to_jumelle, to_win) transposed, to carry probability vectors forward."""
        return self.to_jumelle.T.tocsr(), self.to_win.T.tocsr()

    def state_of(self, counts: list[int] | tuple[int, ...], ranks: int) -> int | None:
        """The state of a pack with ``counts[r]`` cards of each of the first ``ranks`` ranks
        (None where the chain has no such state)."""
        if sum(counts[:ranks]) == 0:
            return self.start
        if self.profiles is None:
            return None
        profile = [0] * len(self.profiles[0])
        for c in counts[:ranks]:
            profile[c] += 1
        try:
            return self.profiles.index(tuple(profile))
        except ValueError:
            return None


def single_state_chain(counts: tuple[int, ...], banker_first: bool) -> Chain:
    """Reshuffle before every coup: every coup is dealt from a fresh pack."""
    odds = coup_odds(counts, banker_first)
    one = sparse.csr_matrix(np.ones((1, 1)))
    return Chain(0, np.array([odds.jumelle]), np.array([odds.banker]), np.array([odds.table]),
                 np.array([odds.void]), one * odds.jumelle, one * odds.banker,
                 np.zeros(1, dtype=bool))


# ------------------------------------------------------------------ the profile chain
def profile_count(ranks: int, per_rank: int) -> int:
    """How many profiles a pack of ``ranks`` ranks with ``per_rank`` cards each has."""
    return comb(ranks + per_rank, per_rank)


@cache
def _class_removals(cards: int, ranks: int, base: int) -> tuple[np.ndarray, ...]:
    """Ways for ``ranks`` ranks of ``cards`` cards each to lose cards to a random removal:
    (profile code of what is left, cards removed, number of card subsets)."""
    codes, removed, ways = [], [], []
    for split in product(range(ranks + 1), repeat=cards + 1):  # split[d]: ranks losing d
        if sum(split) != ranks:
            continue
        multinomial = factorial(ranks)
        for k in split:
            multinomial //= factorial(k)
        w = multinomial
        for d, k in enumerate(split):
            w *= comb(cards, d) ** k
        codes.append(sum(k * base ** (cards - d) for d, k in enumerate(split)))
        removed.append(sum(d * k for d, k in enumerate(split)))
        ways.append(float(w))
    return (np.array(codes, dtype=np.int64), np.array(removed, dtype=np.int64),
            np.array(ways, dtype=np.float64))


@cache
def _removals(profile: tuple[int, ...], base: int) -> tuple[np.ndarray, ...]:
    """Every way a random removal of cards can leave a pack of this profile: (code of the
    profile left, cards removed, number of card subsets doing it)."""
    codes = np.zeros(1, dtype=np.int64)
    removed = np.zeros(1, dtype=np.int64)
    ways = np.ones(1, dtype=np.float64)
    for cards, ranks in enumerate(profile):
        if not ranks:
            continue
        c, m, w = _class_removals(cards, ranks, base)
        codes = (codes[:, None] + c[None, :]).ravel()
        removed = (removed[:, None] + m[None, :]).ravel()
        ways = (ways[:, None] * w[None, :]).ravel()
    return codes, removed, ways


def _profiles(ranks: int, per_rank: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []

    def walk(prefix: list[int], left: int) -> None:
        if len(prefix) == per_rank:
            out.append(tuple(prefix + [left]))
            return
        for k in range(left + 1):
            walk(prefix + [k], left - k)

    walk([], ranks)
    return out


@lru_cache(maxsize=16)
def profile_chain(ranks: int, per_rank: int, banker_first: bool) -> Chain:
    """The exact chain of pack profiles for a pack of ``ranks`` ranks of ``per_rank`` cards.

    Raises:
        ValueError: more than :data:`PROFILE_LIMIT` profiles.
    """
    if profile_count(ranks, per_rank) > PROFILE_LIMIT:
        raise ValueError(f"{profile_count(ranks, per_rank)} pack profiles: too many for the "
                         "exact chain")
    base = ranks + 1
    profiles = _profiles(ranks, per_rank)
    power = base ** np.arange(per_rank + 1)
    code_of = {sum(k * base ** c for c, k in enumerate(p)): i for i, p in enumerate(profiles)}
    lookup = np.full(base ** (per_rank + 1), -1, dtype=np.int64)
    for code, i in code_of.items():
        lookup[code] = i
    full = code_of[ranks * base ** per_rank]
    lookup[ranks] = full  # an empty pack (every rank at 0) is reshuffled before a coup
    size = len(profiles)
    jum, win, lose, void = (np.zeros(size) for _ in range(4))
    j_rows, j_cols, j_vals = [], [], []
    w_ptr, w_cols, w_vals = [0], [], []
    binomials = [np.array([comb(k, m) for m in range(k + 1)], dtype=np.float64)
                 for k in range(ranks * per_rank + 1)]
    for i, prof in enumerate(profiles):
        n = sum(c * k for c, k in enumerate(prof))
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        if n == 1:
            void[i] = 1.0
        code = sum(k * base ** c for c, k in enumerate(prof))
        for a in range(1, per_rank + 1):
            if n < 2 or not prof[a]:
                continue
            p1 = a * prof[a] / n
            if a >= 2:  # jumelle: one rank loses two cards
                p = p1 * (a - 1) / (n - 1)
                jum[i] += p
                j_rows.append(i)
                j_cols.append(lookup[code - power[a] + power[a - 2]])
                j_vals.append(p)
            for b in range(1, per_rank + 1):
                free = prof[b] - (a == b)
                if free <= 0:
                    continue
                p2 = p1 * b * free / (n - 1)
                if a + b == 2:  # neither rank can be matched: the pack runs out
                    void[i] += p2
                    continue
                others = list(prof)
                others[a] -= 1
                others[b] -= 1
                rest_code, m, ways = _removals(tuple(others), base)
                # P(these m other cards first, then one given matching card), per subset.
                per_card = p2 * ways / binomials[n - 2][m] / (n - 2 - m)
                # The first card's rank matched first leaves it a - 2 and the second b - 1;
                # the first card is the table's unless the banker's is turned first.
                banker_rank_left, table_rank_left = (a - 1, b - 1) if banker_first \
                    else (b - 1, a - 1)
                win[i] += per_card.sum() * banker_rank_left
                lose[i] += per_card.sum() * table_rank_left
                if banker_rank_left:
                    left_a, left_b = (a - 2, b - 1) if banker_first else (a - 1, b - 2)
                    cols.append(lookup[rest_code + power[left_a] + power[left_b]])
                    vals.append(per_card * banker_rank_left)
        if cols:
            row = np.bincount(np.concatenate(cols), weights=np.concatenate(vals),
                              minlength=size)
            nonzero = np.flatnonzero(row)
            w_cols.append(nonzero)
            w_vals.append(row[nonzero])
            w_ptr.append(w_ptr[-1] + nonzero.size)
        else:
            w_ptr.append(w_ptr[-1])
    to_jumelle = sparse.csr_matrix((j_vals, (j_rows, j_cols)), shape=(size, size))
    to_win = sparse.csr_matrix(
        (np.concatenate(w_vals) if w_vals else np.zeros(0),
         np.concatenate(w_cols) if w_cols else np.zeros(0, dtype=np.int64), np.array(w_ptr)),
        shape=(size, size))
    return Chain(full, jum, win, lose, void, to_jumelle, to_win, np.zeros(size, dtype=bool),
                 tuple(profiles))
