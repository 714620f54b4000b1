"""Seeding: one root seed; per chunk, a stream of cards and a stream for the strategy.

Common random numbers: the cards of chunk ``c`` come from ``SeedSequence(root,
spawn_key=(key("cards"), key(pack), c))``, where ``pack`` is the variant's pack key
(:meth:`sim.games.base.Game.pack_key`: what decides the cards, e.g. faro's packs, ranks and
suits), so every strategy of a variant, and every variant dealing the same pack, meets the same
cards round by round; differences between rows are then measured paired, with far smaller
errors. A strategy's own randomness (a mixed strategy, a coin it tosses) comes from a separate
stream keyed by the pack and the strategy's name, so a strategy that draws never shifts the
cards. Both travel together as :class:`Streams`, passed to ``Game.simulate`` where a seed was.

Every key is a name (the pack key, the strategy's name, a stream's name), never a position in
the file, so adding, removing or reordering rows leaves every other row's numbers as they were
(:func:`chunk_seed`, a stream per (variant, strategy, chunk), is keyed the same way). The
chunk size is fixed by the experiment and never by the number of jobs, so any chunk can be
recomputed alone and the same seed gives the same report however the chunks are scheduled.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

CARDS = "cards"
STRATEGY = "strategy"


def name_key(name: str) -> int:
    """A stable 128-bit integer standing for a name in a seed's spawn key."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:16], "little")


def chunk_seed(root: int, variant: str, strategy: str, chunk: int) -> np.random.SeedSequence:
    """The seed sequence of chunk ``chunk`` of the row (``variant``, ``strategy``), by name."""
    return np.random.SeedSequence(root, spawn_key=(name_key(variant), name_key(strategy), chunk))


@dataclass(frozen=True)
class Streams:
    """The two streams of one chunk: the cards (shared by every strategy of the pack) and
    the strategy's own randomness."""

    cards: np.random.SeedSequence
    strategy: np.random.SeedSequence


def chunk_streams(root: int, pack: str, strategy: str, chunk: int) -> Streams:
    """The streams of chunk ``chunk`` of a row whose variant deals pack ``pack`` (its pack key)
    and whose strategy is called ``strategy``: keyed by names, never by positions."""
    return Streams(
        np.random.SeedSequence(root, spawn_key=(name_key(CARDS), name_key(pack), chunk)),
        np.random.SeedSequence(root, spawn_key=(name_key(STRATEGY), name_key(pack),
                                                name_key(strategy), chunk)))


def streams(seed: Streams | np.random.SeedSequence) -> Streams:
    """``seed`` as :class:`Streams`: a plain SeedSequence (a test, a strategy check, the
    bench) deals its cards from itself and gives the strategy a stream spawned from it."""
    if isinstance(seed, Streams):
        return seed
    return Streams(seed, np.random.SeedSequence(
        seed.entropy, spawn_key=(*seed.spawn_key, name_key(STRATEGY))))


def _cards(seed: Streams | np.random.SeedSequence) -> np.random.SeedSequence:
    return seed.cards if isinstance(seed, Streams) else seed


def generator(seed: Streams | np.random.SeedSequence) -> np.random.Generator:
    """A numpy generator for the reference (pure Python / numpy) paths (from the cards'
    stream where given :class:`Streams`)."""
    return np.random.Generator(np.random.PCG64(_cards(seed)))


def strategy_generator(seed: Streams | np.random.SeedSequence) -> np.random.Generator:
    """The numpy generator a strategy is handed: its own stream, never the cards'."""
    return np.random.Generator(np.random.PCG64(streams(seed).strategy))


def kernel_state(seed: Streams | np.random.SeedSequence) -> np.ndarray:
    """Four 64-bit words seeding the compiled kernels' xoshiro256** generator (from the
    cards' stream where given :class:`Streams`).

    The all-zero state is the one state xoshiro cannot leave; SeedSequence makes it
    astronomically unlikely, and it is replaced all the same.
    """
    state = _cards(seed).generate_state(4, np.uint64)
    if not state.any():
        state[0] = np.uint64(0x9E3779B97F4A7C15)
    return state


@dataclass(frozen=True)
class Cards:
    """The cards of a chunk as a reference path deals them: from the cards' stream only, as a
    numpy generator or as the compiled kernels' xoshiro state (the kernel's own deals, card
    for card). The template hands a game this and the strategy's generator apart
    (:meth:`sim.games.base.Game.simulate_reference`), so no strategy can draw from it."""

    seed: np.random.SeedSequence

    def generator(self) -> np.random.Generator:
        return generator(self.seed)

    def kernel_state(self) -> np.ndarray:
        return kernel_state(self.seed)


def named_streams(root: int, stream: str, pack: str, strategy: str, *index: int) -> Streams:
    """The streams of the work called ``stream`` (e.g. "sessions"), at ``index`` (e.g. chunk,
    block), of a row dealing pack ``pack`` with strategy ``strategy``: keyed by names like the
    rounds' own (so the strategies of a pack meet the same cards), and apart from the rounds'
    streams and from every other name's."""
    work = name_key(stream)
    return Streams(
        np.random.SeedSequence(root, spawn_key=(work, name_key(CARDS), name_key(pack), *index)),
        np.random.SeedSequence(root, spawn_key=(work, name_key(STRATEGY), name_key(pack),
                                                name_key(strategy), *index)))
