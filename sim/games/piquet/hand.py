"""Piquet hands: the 32-card pack, the declarations of a hand and the contest between two.

A card is ``suit * 8 + rank`` with ranks 0..7 the seven, eight, nine, ten, jack, queen, king,
ace; a hand is held as four 8-bit masks, one per suit (bit ``r``: the card of rank ``r``). The
functions are compiled (numba) and called alike by the kernel, the reference path and the
exact enumerations, so every path reads one statement of the rules.

A hand's declarations: the **point** (its best suit: most cards, then the highest total at ace
11, court cards 10, others their pips), the **sequences** (runs of three or more in a suit:
tierce 3, quart 4, quint 15, sixieme 16, septieme 17, huitieme 18; the best by length, then top
card) and the **sets** (three or four cards of a rank from ``sets_from`` up: trio 3, quatorze
14; the best by kind, then rank). Carte blanche is a dealt hand without king, queen or jack.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)

RANK_NAMES = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_NAMES = "cdhs"
PIP = np.array([7, 8, 9, 10, 10, 10, 10, 11], dtype=np.int64)
SEQUENCE_SCORE = np.array([0, 0, 0, 3, 4, 15, 16, 17, 18], dtype=np.int64)
FACE_MASK = 0b01110000  # jack, queen, king
N_CARDS = 32


def card_name(code: int) -> str:
    return RANK_NAMES[code % 8] + SUIT_NAMES[code // 8]


def parse_card(text: str) -> int:
    """A card from its name, e.g. ``"Ah"``, ``"10s"``, ``"7c"``."""
    text = text.strip()
    rank, suit = text[:-1].upper(), text[-1:].lower()
    if rank == "T":
        rank = "10"
    if rank not in RANK_NAMES or suit not in SUIT_NAMES or not suit:
        raise ValueError(f"not a piquet card: {text!r} (ranks 7..10, J, Q, K, A; suits cdhs)")
    return SUIT_NAMES.index(suit) * 8 + RANK_NAMES.index(rank)


@numba.njit(cache=True)
def masks_of(cards) -> np.ndarray:
    """The four suit masks of a hand given as card codes."""
    masks = np.zeros(4, dtype=np.int64)
    for c in cards:
        masks[c // 8] |= 1 << (c % 8)
    return masks


@numba.njit(cache=True)
def suit_runs(mask):
    """(sum of the sequence scores of the suit's runs, longest run, its top rank)."""
    total = 0
    best = 0
    top = -1
    run = 0
    for r in range(9):
        if r < 8 and (mask >> r) & 1:
            run += 1
        else:
            if run >= 3:
                total += SEQUENCE_SCORE[run]
            if run > best or (run == best and run > 0):
                best = run
                top = r - 1
            run = 0
    return total, best, top


@numba.njit(cache=True)
def evaluate(masks, sets_from):
    """A hand's declarations, as integers:

    ``(point_len, point_value, seq_len, seq_top, seq_total, set_kind, set_rank, set_total,
    faces)``: the best suit's length and value; the best run's length and top rank (length
    below 3: no sequence); every sequence's score summed; the best set's size (3 or 4; 0:
    none) and rank; every set's score summed; the court cards held.
    """
    point_len = 0
    point_value = 0
    seq_len = 0
    seq_top = -1
    seq_total = 0
    faces = 0
    for s in range(4):
        m = masks[s]
        length = 0
        value = 0
        for r in range(8):
            if (m >> r) & 1:
                length += 1
                value += PIP[r]
        if length > point_len or (length == point_len and value > point_value):
            point_len = length
            point_value = value
        total, best, top = suit_runs(m)
        seq_total += total
        if best > seq_len or (best == seq_len and top > seq_top):
            seq_len = best
            seq_top = top
        faces += ((m & FACE_MASK) >> 4 & 1) + ((m & FACE_MASK) >> 5 & 1) + ((m & FACE_MASK) >> 6)
    set_kind = 0
    set_rank = -1
    set_total = 0
    for r in range(sets_from, 8):
        count = 0
        for s in range(4):
            count += (masks[s] >> r) & 1
        if count >= 3:
            set_total += 14 if count == 4 else 3
            if count > set_kind or (count == set_kind and r > set_rank):
                set_kind = count
                set_rank = r
    if seq_len < 3:
        seq_len = 0
        seq_top = -1
    return (point_len, point_value, seq_len, seq_top, seq_total, set_kind, set_rank, set_total,
            faces)


@numba.njit(cache=True)
def unopposed(masks, sets_from) -> int:
    """What a hand's declarations score if the other hand has nothing better: its point's
    length, all its sequences and all its sets (carte blanche apart)."""
    e = evaluate(masks, sets_from)
    return e[0] + e[4] + e[7]


@numba.njit(cache=True)
def contest(elder, younger, elder_blanche, younger_blanche, sets_from, blanche_points,
            repique_points):
    """The declaration scores of elder and younger hand, compared as the rules compare them.

    Returns ``(elder_points, younger_points, elder_repique, younger_repique, point_equal,
    sequence_equal)``. The better point scores its length; the better best sequence scores
    every sequence of its holder, and the better best set every set of its holder; equal
    points or equal best sequences score nothing. Carte blanche (elder's first: only one may
    declare it) scores ``blanche_points``. A player with 30 or more while the other has
    nothing, neither point nor sequence being equal, adds ``repique_points``.
    """
    return contest_evaluated(evaluate(elder, sets_from), evaluate(younger, sets_from),
                             elder_blanche, younger_blanche, blanche_points, repique_points)


@numba.njit(cache=True)
def contest_evaluated(e, y, elder_blanche, younger_blanche, blanche_points, repique_points):
    """:func:`contest` of two hands given by their :func:`evaluate` tuples (an enumeration
    that meets the same declarations many times evaluates each hand once)."""
    ep = 0
    yp = 0
    point_equal = e[0] == y[0] and e[1] == y[1]
    if (e[0], e[1]) > (y[0], y[1]):
        ep += e[0]
    elif (y[0], y[1]) > (e[0], e[1]):
        yp += y[0]
    sequence_equal = e[2] >= 3 and e[2] == y[2] and e[3] == y[3]
    if (e[2], e[3]) > (y[2], y[3]):
        ep += e[4]
    elif (y[2], y[3]) > (e[2], e[3]):
        yp += y[4]
    if (e[5], e[6]) > (y[5], y[6]):
        ep += e[7]
    elif (y[5], y[6]) > (e[5], e[6]):
        yp += y[7]
    if elder_blanche:
        ep += blanche_points
    elif younger_blanche:
        yp += blanche_points
    clean = not point_equal and not sequence_equal
    elder_repique = clean and ep >= 30 and yp == 0
    younger_repique = clean and yp >= 30 and ep == 0
    if elder_repique:
        ep += repique_points
    if younger_repique:
        yp += repique_points
    return ep, yp, elder_repique, younger_repique, point_equal, sequence_equal


def describe(cards, sets_from: int = 3) -> dict:
    """A hand's declarations in words and points (for tables and tests)."""
    e = evaluate(masks_of(np.asarray(cards, dtype=np.int64)), sets_from)
    return {"point": f"{e[0]} cards, {e[1]}", "sequence": (f"{e[2]} to the {RANK_NAMES[e[3]]}"
                                                           if e[2] else "none"),
            "sequences_score": int(e[4]),
            "set": f"{e[5]} {RANK_NAMES[e[6]]}s" if e[5] else "none",
            "sets_score": int(e[7]), "carte_blanche": e[8] == 0,
            "unopposed": int(e[0] + e[4] + e[7])}
