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

Several packs have too many profiles. For them :func:`moment_chain` gives the first two coups of
a bank exactly: the odds of a coup are linear in ``sum c(c - 1)`` and in the number of pairs of
one-card ranks, whose expectations after a random removal are hypergeometric moments; the
states after two coups are left unknown (*terminal*), so values needing more are not exact.
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


# ------------------------------------------------------------------ two coups, several packs
def _hyper_one(total: int, per_rank: int, left: int) -> float:
    """P(a rank of ``per_rank`` cards among ``total`` keeps exactly one card when ``left``
    of the total are left)."""
    return per_rank * comb(total - per_rank, left - 1) / comb(total, left) if left >= 1 else 0.0


def _hyper_two(total: int, per_rank: int, left: int) -> float:
    """P(two given ranks both keep exactly one card)."""
    if left < 2:
        return 0.0
    return per_rank ** 2 * comb(total - 2 * per_rank, left - 2) / comb(total, left)


def moment_chain(ranks: int, per_rank: int, banker_first: bool) -> Chain:
    """The first two coups of a bank from a fresh pack of ``ranks`` ranks of ``per_rank``
    cards, exactly, for any number of packs.

    States: the fresh pack; the pack after a jumelle (one rank two cards short); and, after a
    coup won by the banker that turned m other cards, a state per m whose odds are the
    expectation over the random removal. Only the fresh pack has known successors.
    """
    c0, n = per_rank, ranks * per_rank
    fresh = [c0] * ranks
    odds_fresh = coup_odds(fresh, banker_first)
    after_jumelle = coup_odds([c0 - 2] + [c0] * (ranks - 1), banker_first)
    n2 = n - 2
    matching = 2 * (c0 - 1)
    others = n2 - matching
    states = [odds_fresh, after_jumelle]
    to_win = []
    for m in range(others + 1):
        # The first two cards of different ranks, m others, then the banker's rank.
        p = (c0 * (ranks - 1) * c0 / (n * (n - 1))) * ranks * comb(others, m) / comb(n2, m) \
            * (c0 - 1) / (n2 - m)
        to_win.append(p)
        left = n2 - m - 1
        if left == 0:
            states.append(odds_fresh)
            continue
        if left == 1:
            states.append(CoupOdds(0.0, 0.0, 0.0, 1.0))
            continue
        kept = others - m
        q = (c0 - 1) * (c0 - 2) + (c0 - 2) * (c0 - 3) + (ranks - 2) * c0 * (c0 - 1) * (
            kept * (kept - 1) / (others * (others - 1)) if others > 1 else 0.0)
        fixed = (c0 - 1 == 1) + (c0 - 2 == 1)
        ones = (ranks - 2) * _hyper_one(others, c0, kept)
        pairs = fixed * (fixed - 1) + 2 * fixed * ones + (ranks - 2) * (ranks - 3) * _hyper_two(
            others, c0, kept)
        jumelle = q / (left * (left - 1))
        void = pairs / (left * (left - 1))
        half = (1.0 - jumelle - void) / 2
        states.append(CoupOdds(jumelle, half, half, void))
    size = len(states)
    to_jumelle = sparse.csr_matrix(([odds_fresh.jumelle], ([0], [1])), shape=(size, size))
    win_matrix = sparse.csr_matrix((to_win, ([0] * len(to_win), range(2, size))),
                                   shape=(size, size))
    terminal = np.ones(size, dtype=bool)
    terminal[0] = False
    return Chain(0, *(np.array([getattr(s, f) for s in states])
                      for f in ("jumelle", "banker", "table", "void")),
                 to_jumelle, win_matrix, terminal)


def chain_for(ranks: int, per_rank: int, reshuffle_each_coup: bool) -> Chain:
    """The chain for a pack rule: a single fresh-pack state when every coup is reshuffled,
    the profile chain when it is small enough, else the two-coup moment chain. Fair play does
    not depend on whose card is turned first (see the module's docstring), so one chain
    serves both orders."""
    if reshuffle_each_coup:
        return single_state_chain((per_rank,) * ranks, False)
    if profile_count(ranks, per_rank) <= PROFILE_LIMIT:
        return profile_chain(ranks, per_rank, False)
    return _moment_chain(ranks, per_rank)


@lru_cache(maxsize=16)
def _moment_chain(ranks: int, per_rank: int) -> Chain:
    return moment_chain(ranks, per_rank, False)
