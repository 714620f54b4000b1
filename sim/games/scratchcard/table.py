"""Prize tables as data: loaded from CSV or TOML, validated, and named when shipped.

A prize table is a ticket price and tiers of prize amounts, each with either a count of winning
tickets in a print run (a printed game, drawn without replacement) or a probability (an online
card, independent draws). A tier is the total a ticket pays; rows with the same prize are merged
(real tables list one amount once per way of winning it).

Every problem is an :class:`~sim.core.errors.InputError` naming the file, the row (CSV line
number or TOML ``tiers[i]``) and what was expected, so a bad table stops a run before it starts.
"""

from __future__ import annotations

import csv
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, reduce
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.errors import InputError

DATA_DIR = Path(__file__).resolve().parents[3] / "experiments" / "data"
TABLES_FILE = "scratch_prize_tables.csv"
CLAIMS_FILE = "scratch_claims_snapshot.csv"

# Shipped name -> (file in DATA_DIR, game inside it or None for a one-game file).
SHIPPED: dict[str, tuple[str, str | None]] = {
    "oh-snap": (TABLES_FILE, "Oh, Snap! (#2604)"),
    "cash-payout": (TABLES_FILE, "Cash Payout (#2612)"),
    "true-north": (TABLES_FILE, "True North"),
    "lucky-lines-gold": (TABLES_FILE, "Lucky Lines Gold"),
    "deal-em": (TABLES_FILE, "Deal 'Em pull-tab"),
    "online-example": ("online_example.toml", None),
}

# Probabilities of one table may exceed 1 by rounding of published figures, no more.
PROBABILITY_SLACK = 1e-9


@dataclass(frozen=True)
class PrizeTable:
    """A scratchcard game: its price and prize tiers (winning tiers only, prize descending).

    Attributes:
        name: the game's name.
        price: the price of one ticket.
        prizes: the prize of each winning tier.
        counts: winning tickets of each tier in the print run (printed game), else None.
        probabilities: the probability of each tier (online card), else None.
        print_run: tickets printed (printed game), else None.
        source: where the figures come from.
        origin: the file (and game) the table was read from.
    """

    name: str
    price: float
    prizes: tuple[float, ...]
    counts: tuple[int, ...] | None = None
    probabilities: tuple[float, ...] | None = None
    print_run: int | None = None
    source: str = ""
    origin: str = ""

    @property
    def printed(self) -> bool:
        return self.counts is not None

    def tier_probabilities(self) -> np.ndarray:
        """The probability that one ticket pays each tier (counts / print run when printed)."""
        if self.counts is not None:
            return np.array(self.counts, dtype=float) / self.print_run
        return np.array(self.probabilities, dtype=float)

    def losing_tickets(self) -> int:
        """Tickets of the print run that pay nothing (printed games)."""
        if self.counts is None or self.print_run is None:
            raise ValueError("an online card has no print run")
        return self.print_run - sum(self.counts)

    def money_step(self) -> Fraction:
        """The largest amount that divides the price and every prize (the grid of totals)."""
        return money_step([self.price, *self.prizes])


def money_step(amounts: Sequence[float]) -> Fraction:
    """The greatest common divisor of some amounts of money (exact, as a fraction)."""
    fracs = [Fraction(a).limit_denominator(10**6) for a in amounts if a]
    if not fracs:
        return Fraction(1)
    numerators = reduce(math.gcd, (f.numerator for f in fracs))
    denominators = reduce(lambda a, b: a * b // math.gcd(a, b), (f.denominator for f in fracs))
    return Fraction(numerators, denominators)


# ----------------------------------------------------------------------------- parsing
class _Rows:
    """Builds the error messages of one file: ``"<file>: <where>: <what>"``."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def error(self, where: str, message: str) -> InputError:
        return InputError(f"{self.origin}: {where}: {message}" if where
                          else f"{self.origin}: {message}")

    def number(self, row: Mapping[str, Any], key: str, where: str, *, minimum: float = 0.0,
               positive: bool = False, integer: bool = False) -> float:
        raw = row.get(key)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            raise self.error(where, f"{key}: missing")
        if isinstance(raw, bool):
            raise self.error(where, f"{key}: expected a number, got {raw!r}")
        try:
            value = float(raw.replace(",", "")) if isinstance(raw, str) else float(raw)
        except (TypeError, ValueError):
            raise self.error(where, f"{key}: expected a number, got {raw!r}") from None
        if not math.isfinite(value):
            raise self.error(where, f"{key}: expected a finite number, got {raw!r}")
        if integer and not value.is_integer():
            raise self.error(where, f"{key}: expected a whole number, got {raw!r}")
        if positive and value <= 0:
            raise self.error(where, f"{key}: expected a positive number, got {raw!r}")
        if value < minimum:
            raise self.error(where, f"{key}: expected a number >= {minimum:g}, got {raw!r}")
        return value


def table_from_rows(rows: Sequence[tuple[str, Mapping[str, Any]]], origin: str,
                    header: Mapping[str, Any] | None = None) -> PrizeTable:
    """Validate tiers given as (where, row) pairs; ``header`` holds game-level keys (TOML).

    Game-level keys (``price``, ``print_run``, ``game``/``name``, ``source``) come from the
    header or, in a CSV, from every row, where they must agree.
    """
    chk = _Rows(origin)
    header = dict(header or {})
    if not rows:
        raise chk.error("", "no prize tiers")
    levels: dict[str, Any] = {}

    def level(key: str, row: Mapping[str, Any], where: str, **kw: Any) -> float | None:
        source = header if key in header else row
        if source.get(key) in (None, ""):
            return None
        value = chk.number(source, key, "" if source is header else where, **kw)
        if key in levels and levels[key] != value:
            raise chk.error(where, f"{key}: {value:g} differs from {levels[key]:g} on an "
                                   "earlier row (one game has one value)")
        levels[key] = value
        return value

    kinds = set()
    tiers: dict[float, list[float]] = {}
    for where, row in rows:
        level("price", row, where, positive=True)
        level("print_run", row, where, positive=True, integer=True)
        prize = chk.number(row, "prize", where)
        has_count = row.get("count") not in (None, "")
        has_prob = row.get("probability") not in (None, "")
        if has_count == has_prob:
            raise chk.error(where, "expected exactly one of count (printed game) or "
                                   "probability (online card)")
        kind = "count" if has_count else "probability"
        kinds.add(kind)
        if len(kinds) > 1:
            raise chk.error(where, f"{kind}: a table is either all counts or all "
                                   "probabilities")
        if has_count:
            value = chk.number(row, "count", where, integer=True)
            run = levels.get("print_run")
            if run is None:
                raise chk.error(where, "print_run: missing (a table of counts needs the "
                                       "number of tickets printed)")
            if value > run:
                raise chk.error(where, f"count: {value:,.0f} is above the print run "
                                       f"{run:,.0f}")
        else:
            value = chk.number(row, "probability", where)
            if value > 1:
                raise chk.error(where, f"probability: expected a number in [0, 1], got "
                                       f"{row['probability']!r}")
        tiers.setdefault(prize, [0.0, where])[0] += value
        total = sum(v for v, _ in tiers.values())
        if has_count and total > levels["print_run"]:
            raise chk.error(where, f"count: the counts reach {total:,.0f}, above the print run "
                                   f"{levels['print_run']:,.0f}")
        if has_prob and total > 1 + PROBABILITY_SLACK:
            raise chk.error(where, f"probability: the probabilities reach {total:.6g}, above 1")
    if "price" not in levels:
        raise chk.error("", "price: missing")
    winning = sorted((p for p in tiers if p > 0), reverse=True)
    if not winning:
        raise chk.error("", "no tier pays a prize")
    name = str(header.get("name") or header.get("game") or rows[0][1].get("game") or
               Path(origin.split("#")[0]).stem)
    source = str(header.get("source") or rows[0][1].get("source") or "")
    if "count" in kinds:
        return PrizeTable(name, levels["price"], tuple(winning),
                          counts=tuple(int(tiers[p][0]) for p in winning),
                          print_run=int(levels["print_run"]), source=source, origin=origin)
    return PrizeTable(name, levels["price"], tuple(winning),
                      probabilities=tuple(tiers[p][0] for p in winning), source=source,
                      origin=origin)


def _read_csv(path: Path, origin: str) -> list[tuple[int, dict[str, str]]]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            if reader.fieldnames is None:
                raise InputError(f"{origin}: empty file")
            reader.fieldnames = [f.strip().lower() for f in reader.fieldnames]
            return [(reader.line_num, row) for row in reader]
    except FileNotFoundError:
        raise InputError(f"{origin}: file not found") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{origin}: cannot read: {exc}") from None


def _select_game(rows: list[tuple[int, dict[str, str]]], game: str | None, origin: str,
                 what: str) -> list[tuple[int, dict[str, str]]]:
    names = list(dict.fromkeys(r.get("game", "") for _, r in rows))
    if all(not r.get("game") for _, r in rows):
        return rows  # a one-game file without a game column
    if game is None:
        if len(names) > 1:
            raise InputError(f"{origin}: holds {len(names)} games ({', '.join(names)}); "
                             f"name one as {origin}#<game>")
        return rows
    chosen = [(n, r) for n, r in rows if r.get("game", "") == game]
    if not chosen:
        raise InputError(f"{origin}: no {what} of the game {game!r} "
                         f"(games: {', '.join(names)})")
    return chosen


_SPEC = re.compile(r"^(?P<path>.*?\.(?:csv|toml))(?:#(?P<game>.*))?$", re.IGNORECASE)


def split_spec(spec: str) -> tuple[Path, str | None]:
    """``"path.csv#Game"`` -> (path, "Game"); a shipped name -> its file and game."""
    if spec in SHIPPED:
        file, game = SHIPPED[spec]
        return DATA_DIR / file, game
    match = _SPEC.match(spec.strip())
    if not match:
        raise InputError(f"{spec!r}: expected a shipped table ({', '.join(SHIPPED)}) or a "
                         ".csv or .toml file (path.csv#Game to pick one game)")
    return Path(match["path"]).expanduser(), match["game"] or None


@lru_cache(maxsize=64)
def _load(path: str, game: str | None, mtime: float) -> PrizeTable:
    file = Path(path)
    origin = f"{file}#{game}" if game else str(file)
    if file.suffix.lower() == ".toml":
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8-sig"))
        except FileNotFoundError:
            raise InputError(f"{origin}: file not found") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise InputError(f"{origin}: cannot read: {exc}") from None
        tiers = data.get("tiers")
        if not isinstance(tiers, list) or not all(isinstance(t, dict) for t in tiers):
            raise InputError(f"{origin}: tiers: expected an array of tables [[tiers]]")
        header = {k: v for k, v in data.items() if k != "tiers"}
        return table_from_rows([(f"tiers[{i}]", t) for i, t in enumerate(tiers)], origin,
                               header)
    rows = _select_game(_read_csv(file, origin), game, origin, "prize rows")
    return table_from_rows([(f"row {n}", r) for n, r in rows], origin)


def load_table(spec: str) -> PrizeTable:
    """The prize table named by a shipped name, ``path.csv``, ``path.csv#Game`` or
    ``path.toml`` (read once per process while the file is unchanged).

    Raises:
        InputError: missing or unreadable file, or a table that fails validation (the message
            names the file and the row).
    """
    path, game = split_spec(spec)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        raise InputError(f"{path}: file not found") from None
    return _load(str(path.resolve()), game, mtime)


# ----------------------------------------------------------------------------- claims
@dataclass(frozen=True)
class Claims:
    """Prizes claimed per tier of a printed game at one date (same order as the table)."""

    claimed: tuple[int, ...]
    date: str = ""
    origin: str = ""


@lru_cache(maxsize=64)
def _load_claims(path: str, game: str, table: PrizeTable, mtime: float) -> Claims:
    origin = f"{path}#{game}"
    rows = _select_game(_read_csv(Path(path), origin), game, origin, "claims")
    chk = _Rows(origin)
    claimed: dict[float, int] = {}
    dates = set()
    for n, row in rows:
        where = f"row {n}"
        prize = chk.number(row, "prize", where)
        if prize not in table.prizes:
            raise chk.error(where, f"prize: {prize:g} is not a tier of {table.name!r} "
                                   f"(tiers: {', '.join(f'{p:g}' for p in table.prizes)})")
        count = chk.number(row, "claimed", where, integer=True)
        claimed[prize] = claimed.get(prize, 0) + int(count)
        limit = table.counts[table.prizes.index(prize)]
        if claimed[prize] > limit:
            raise chk.error(where, f"claimed: {claimed[prize]:,} prizes of {prize:g} claimed, "
                                   f"but only {limit:,} were printed")
        dates.add(row.get("snapshot_date", ""))
    missing = [p for p in table.prizes if p not in claimed]
    if missing:
        raise chk.error("", f"no claims row for the prize tier {missing[0]:g}")
    return Claims(tuple(claimed[p] for p in table.prizes), ", ".join(sorted(d for d in dates if d)),
                  origin)


def load_claims(spec: str, table: PrizeTable) -> Claims:
    """Claims of ``table``'s game: ``"shipped"`` (the shipped snapshot), ``path.csv`` or
    ``path.csv#Game`` (columns ``prize, claimed``; optional ``game, snapshot_date``).

    Raises:
        InputError: the file is missing, a row is malformed, a prize is not a tier, more
            prizes are claimed than printed, or a tier has no row.
    """
    if not table.printed:
        raise InputError(f"{table.origin}: claims apply to a printed game, and "
                         f"{table.name!r} is an online card")
    if spec == "shipped":
        path, game = DATA_DIR / CLAIMS_FILE, table.name
    else:
        path, game = split_spec(spec)
        game = game or table.name
    try:
        mtime = path.stat().st_mtime
    except OSError:
        raise InputError(f"{path}: file not found") from None
    return _load_claims(str(path.resolve()), game, table, mtime)
