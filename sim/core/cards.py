"""Card codes, packs and vectorised shuffles.

A card is a small integer ``code = rank * 4 + suit`` with ranks 0..12 (ace low: A, 2, ..., K)
and suits 0..3. A pack is a 1-D ``int8`` array of codes; several packs are simply repeated,
and a stripped pack keeps a subset of ranks and suits (small packs make exact enumeration
possible in tests).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

RANK_SYMBOLS = "A23456789TJQK"
SUIT_SYMBOLS = "cdhs"
N_RANKS = 13
N_SUITS = 4


def card_code(rank: int, suit: int) -> int:
    """The code of the card of ``rank`` (0 = ace .. 12 = king) and ``suit`` (0..3)."""
    return rank * N_SUITS + suit


def rank_of(codes: np.ndarray | int) -> np.ndarray | int:
    """Rank (0..12) of one code or of an array of codes."""
    return codes // N_SUITS


def card_name(code: int) -> str:
    """Two-character name, e.g. ``'Ks'`` for the king of spades."""
    return RANK_SYMBOLS[code // N_SUITS] + SUIT_SYMBOLS[code % N_SUITS]


def parse_rank(text: str | int) -> int:
    """A rank from its symbol ('A', '2'..'9', 'T' or '10', 'J', 'Q', 'K') or its number 1..13.

    Raises:
        ValueError: for anything else.
    """
    if isinstance(text, bool):
        raise ValueError(f"not a rank: {text!r}")
    if isinstance(text, int):
        if 1 <= text <= N_RANKS:
            return text - 1
        raise ValueError(f"rank number must be 1..13, got {text}")
    symbol = str(text).strip().upper()
    if symbol == "10":
        symbol = "T"
    if len(symbol) == 1 and symbol in RANK_SYMBOLS:
        return RANK_SYMBOLS.index(symbol)
    if symbol.isdigit() and 1 <= int(symbol) <= N_RANKS:
        return int(symbol) - 1
    raise ValueError(f"not a rank: {text!r} (expected A, 2-9, T or 10, J, Q, K)")


def make_pack(
    packs: int = 1,
    ranks: Iterable[int] | None = None,
    suits: int = N_SUITS,
) -> np.ndarray:
    """The codes of ``packs`` packs, optionally stripped to some ranks and fewer suits.

    Args:
        packs: how many packs are mixed together.
        ranks: the ranks kept (default: all 13).
        suits: how many suits are kept (1..4).

    Returns:
        A sorted ``int8`` array of card codes (a code appears once per pack).
    """
    if packs < 1:
        raise ValueError(f"packs must be at least 1, got {packs}")
    if not 1 <= suits <= N_SUITS:
        raise ValueError(f"suits must be 1..4, got {suits}")
    kept = sorted(set(range(N_RANKS) if ranks is None else ranks))
    if not kept or kept[0] < 0 or kept[-1] >= N_RANKS:
        raise ValueError(f"ranks must be a non-empty subset of 0..12, got {kept}")
    one = [card_code(r, s) for r in kept for s in range(suits)]
    return np.sort(np.tile(np.array(one, dtype=np.int8), packs))


def rank_counts(codes: Sequence[int] | np.ndarray) -> np.ndarray:
    """How many cards of each of the 13 ranks the codes hold."""
    return np.bincount(np.asarray(codes, dtype=np.int64) // N_SUITS, minlength=N_RANKS)


def shuffled_packs(rng: np.random.Generator, pack: np.ndarray, n: int) -> np.ndarray:
    """``n`` independent shuffles of ``pack``, one per row (``Generator.permuted`` on 2-D)."""
    return rng.permuted(np.broadcast_to(pack, (n, pack.size)), axis=1)


class PackRules:
    """Pack facts for a rules dataclass with ``packs``, ``rank_count`` and ``suits`` fields.

    The pack keeps the lowest ``rank_count`` ranks and ``suits`` suits of each of ``packs`` packs
    (the full pack, several packs mixed, or a small stripped pack for exact enumeration).
    """

    packs: int
    rank_count: int
    suits: int

    @property
    def n_cards(self) -> int:
        return self.packs * self.rank_count * self.suits

    @property
    def max_per_rank(self) -> int:
        """Cards of one rank in the pack."""
        return self.packs * self.suits

    def pack(self) -> np.ndarray:
        """The card codes of one fresh pack."""
        return make_pack(self.packs, range(self.rank_count), self.suits)

    def pack_ranks(self) -> np.ndarray:
        """The ranks of a fresh pack's cards (for games that look at ranks only)."""
        return rank_of(self.pack()).astype(np.int8)

    def rank_totals(self) -> np.ndarray:
        """Cards of each of the 13 ranks in a fresh pack."""
        return rank_counts(self.pack())
