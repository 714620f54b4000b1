"""Detecting a sharper: how unlikely is an observed run of banker wins under fair play?

An observed table is a CSV file, one row per coup in order, with either

* a column ``outcome``: ``W`` (the banker's card matched first), ``L`` (the table's), ``J``
  (jumelle) or ``V`` (void: the pack ran out), or the words win, loss, jumelle, void; or
* a column ``cards``: the ranks turned in the coup, in order, separated by spaces (``Q Q``,
  ``10 7 5 10``); the outcome follows from the rules (whose card is turned first), and the
  cards are counted against the pack;

and optionally a column ``bank`` naming the bank each coup belongs to (rows of a bank are
consecutive). Without it, a new bank starts after every loss. A run is a stretch of coups won
by one bank (jumelles included); the test statistic is the longest. Under fair play, with
every bank left to ride and a fresh pack for each bank, the probability of a run at least that
long in that many decided coups is exact (:func:`p_longest_run`); it is the p-value of the
observation. Passing the bank only cuts runs short, so the p-value is conservative for a table
where banks were passed. A second check needs no model of the pack: among decided coups that
were not jumelles, the banker's card is matched first with probability exactly one half, coup
by coup, whatever the pack holds (see :mod:`.chain`), so the count of W is binomial. A third
counts jumelles: where the pack before each coup is known (a ``cards`` file, or a fresh pack
every coup), each coup is a jumelle with a known chance given what went before, so their
number follows a Poisson-binomial law exactly; a portee like the source's, two jumelles in
four coups, shows up there.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats as scipy_stats

from sim.core.cards import RANK_SYMBOLS, parse_rank
from sim.core.errors import InputError
from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.games.lansquenet.coup import RUN_CAP
from sim.games.lansquenet.exact import full_cover_table, run_lengths
from sim.games.lansquenet.kernel import simulate_table
from sim.games.lansquenet.rules import BankerPolicy, LansquenetRules, split_coups

OUTCOME_WORDS = {"w": "W", "win": "W", "l": "L", "loss": "L", "lose": "L", "j": "J",
                 "jumelle": "J", "v": "V", "void": "V"}


@dataclass(frozen=True)
class Observed:
    """Coups seen at a table, in order: one letter per coup (J, W, L, V), its bank, and the
    chance of a jumelle from the pack it was dealt from (None where the pack is unknown)."""

    source: str
    outcomes: str
    banks: tuple[int, ...]
    jumelle_odds: tuple[float, ...] | None = None

    @property
    def decided(self) -> int:
        return sum(o != "V" for o in self.outcomes)

    def runs(self) -> list[int]:
        """The run of every bank seen: coups won running (a bank cut off counts its run)."""
        runs: list[int] = []
        current, last_bank = 0, None
        for outcome, bank in zip(self.outcomes, self.banks):
            if bank != last_bank and last_bank is not None:
                runs.append(current)
                current = 0
            last_bank = bank
            if outcome in "JW":
                current += 1
            elif outcome == "L":
                runs.append(current)
                current = 0
                last_bank = None
        if last_bank is not None:
            runs.append(current)
        return runs


class _Pack:
    """Counts the cards dealt from the pack in use, to reject what a pack cannot deal."""

    def __init__(self, rules: LansquenetRules, where: str) -> None:
        self.totals = [int(c) for c in rules.rank_totals()]
        self.rules, self.where = rules, where
        self.fresh()

    def fresh(self) -> None:
        self.left = list(self.totals)

    def deal(self, cards: Sequence[int], row: int) -> None:
        for r in cards:
            if self.left[r] <= 0:
                raise InputError(f"{self.where}: row {row}: cards: more {RANK_SYMBOLS[r]}s than "
                                 f"the pack holds ({self.totals[r]}) since it was shuffled")
            self.left[r] -= 1

    @property
    def empty(self) -> bool:
        return not any(self.left)

    def jumelle(self) -> float:
        """P(the next two cards are of one rank)."""
        n = sum(self.left)
        return sum(c * (c - 1) for c in self.left) / (n * (n - 1)) if n > 1 else 0.0


def _outcome_of_cards(cards: list[int], rules: LansquenetRules, where: str, row: int) -> str:
    if not cards:
        raise InputError(f"{where}: row {row}: cards: no cards")
    coups = split_coups(tuple(cards), rules.banker_first)
    if len(coups) != 1:
        raise InputError(f"{where}: row {row}: cards: the coup was decided at card "
                         f"{len(coups[0][0])} of {len(cards)}; one coup per row")
    return coups[0][1] or "V"


def read_observed(path: str | Path, rules: LansquenetRules) -> Observed:
    """Read and check an observed table.

    Raises:
        InputError: naming the file and the row: a missing file or column, an unknown value
            or rank, a coup that is not one coup, more cards of a rank than the pack holds, a
            void coup from a pack that could not have run out, a bank going on after a loss.
    """
    where = str(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            rows = list(reader)
            header = [f for f in reader.fieldnames or [] if f]
    except FileNotFoundError:
        raise InputError(f"{where}: file not found") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{where}: cannot read: {exc}") from None
    column = {f.strip().lower(): f for f in header}
    if "outcome" not in column and "cards" not in column:
        raise InputError(f"{where}: expected a column 'outcome' or 'cards', got "
                         f"{', '.join(header) or 'none'}")
    if not rows:
        raise InputError(f"{where}: no coups (expected one row per coup after the header)")
    pack = _Pack(rules, where)
    known = "cards" in column or rules.reshuffle == "coup"
    odds: list[float] = []
    outcomes: list[str] = []
    banks: list[int] = []
    labels: dict[str, int] = {}
    fresh = True  # the next coup is the first from a fresh pack
    last_label, lost = None, False
    for row_number, row in enumerate(rows, start=2):  # row 1 is the header
        label = (row.get(column["bank"]) or "").strip() if "bank" in column else None
        new_bank = (label != last_label) if label is not None else lost or not banks
        if label is not None and new_bank and label in labels:
            raise InputError(f"{where}: row {row_number}: bank: {label!r} appears again after "
                             "another bank (rows of a bank are consecutive)")
        if label is not None and not new_bank and lost:
            raise InputError(f"{where}: row {row_number}: bank: {label!r} goes on after a loss "
                             "(the bank passes when the banker loses)")
        if new_bank:
            labels[label if label is not None else str(len(labels))] = len(labels)
            if rules.reshuffle == "bank":
                pack.fresh()
                fresh = True
        if rules.reshuffle == "coup" or pack.empty:
            pack.fresh()
            fresh = True
        odds.append(pack.jumelle())
        if "cards" in column:
            text = (row.get(column["cards"]) or "").replace(",", " ").split()
            try:
                cards = [parse_rank(t) for t in text]
            except ValueError as exc:
                raise InputError(f"{where}: row {row_number}: cards: {exc}") from None
            if any(r >= rules.rank_count for r in cards):
                raise InputError(f"{where}: row {row_number}: cards: the pack of these rules "
                                 f"has ranks A..{RANK_SYMBOLS[rules.rank_count - 1]} only")
            outcome = _outcome_of_cards(cards, rules, where, row_number)
            pack.deal(cards, row_number)
            if outcome == "V" and not pack.empty:
                raise InputError(f"{where}: row {row_number}: cards: no card matched, yet the "
                                 "pack still holds cards")
        else:
            raw = (row.get(column["outcome"]) or "").strip().lower()
            if raw not in OUTCOME_WORDS:
                raise InputError(f"{where}: row {row_number}: outcome: expected W, L, J or V, "
                                 f"got {raw!r}")
            outcome = OUTCOME_WORDS[raw]
            if outcome == "V" and fresh:
                raise InputError(f"{where}: row {row_number}: outcome: a void coup from a fresh "
                                 "pack (the pack cannot run out on its first coup)")
        outcomes.append(outcome)
        banks.append(len(labels) - 1)
        fresh = outcome == "V"
        if outcome == "V":
            pack.fresh()
        last_label, lost = label, outcome == "L"
    return Observed(where, "".join(outcomes), tuple(banks), tuple(odds) if known else None)


# ------------------------------------------------------------------ probabilities
def p_at_least(successes: int, odds: Sequence[float]) -> float:
    """P(at least ``successes`` of independent trials with these chances succeed): the
    Poisson-binomial tail, by dynamic programming (counts at or above the threshold pooled)."""
    if successes <= 0:
        return 1.0
    dist = np.zeros(successes + 1)
    dist[0] = 1.0
    for p in odds:
        top = dist[-1]
        dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
        dist[0] *= 1 - p
        dist[-1] += top * p  # reaching the threshold is for good
    return float(min(1.0, dist[-1]))


def p_longest_run(coups: int, run: int, runs: np.ndarray) -> float:
    """P(a run of at least ``run`` banker wins in ``coups`` decided coups of fair play), every
    bank left to ride until it loses and opened on a fresh pack.

    Args:
        runs: P(a bank wins exactly k running before it loses), k = 0, 1, ... (at least
            ``run`` entries).
    """
    if run <= 0:
        return 1.0
    if run > coups:
        return 0.0
    runs = np.asarray(runs, dtype=np.float64)[:run]
    at_least = 1.0 - np.concatenate([[0.0], np.cumsum(runs)])  # P(R >= k), k = 0..run
    # clear[t]: P(a bank ends after coup t and no run so far reached ``run``).
    clear = np.zeros(coups + 1)
    clear[0] = 1.0
    for t in range(1, coups + 1):
        k = np.arange(min(run, t))
        clear[t] = float(np.dot(clear[t - k - 1], runs[k]))
    # The coups after the last bank's end are wins of a bank still riding, fewer than ``run``.
    last = np.arange(max(0, coups - run + 1), coups + 1)
    ok = float(np.dot(clear[last], at_least[coups - last]))
    return min(1.0, max(0.0, 1.0 - ok))


@dataclass(frozen=True)
class CheatReport:
    """What an observed table says about the fairness of its banks."""

    coups: int
    decided: int
    wins: int
    losses: int
    jumelles: int
    voids: int
    longest_run: int
    p_value: float  # P(a run at least that long in that many decided coups | fair play)
    p_binomial: float  # two-sided: the banker's card matched first W times in W + L coups
    jumelles_expected: float  # under fair play, given the packs (NaN where unknown)
    p_jumelles: float  # P(at least that many jumelles | fair play) (NaN where unknown)
    run_model: str  # "exact" or the simulation's size

    def rows(self) -> list[dict[str, object]]:
        return [{"measure": k, "value": v} for k, v in self.__dict__.items()]


def analyse(observed: Observed, runs: np.ndarray, run_model: str) -> CheatReport:
    """The fairness checks of an observed table, given the fair run-length distribution."""
    wins, losses = observed.outcomes.count("W"), observed.outcomes.count("L")
    longest = max(observed.runs(), default=0)
    decided = observed.decided
    binomial = scipy_stats.binomtest(wins, wins + losses, 0.5).pvalue if wins + losses else 1.0
    jumelles = observed.outcomes.count("J")
    odds = observed.jumelle_odds
    return CheatReport(len(observed.outcomes), decided, wins, losses, jumelles,
                       observed.outcomes.count("V"), longest,
                       p_longest_run(decided, longest, runs), float(binomial),
                       float(sum(odds)) if odds is not None else math.nan,
                       p_at_least(jumelles, odds) if odds is not None else math.nan, run_model)


def fair_runs(rules: LansquenetRules, max_run: int = RUN_CAP, banks: int = 4_000_000
              ) -> tuple[np.ndarray, str]:
    """P(a fair bank left to ride wins exactly k running), k < ``max_run``, then the tail;
    exact where the pack's chain reaches, else from ``banks`` simulated banks (fixed seed).
    Returns the distribution and how it was obtained."""
    runs = run_lengths(rules, max_run)
    if not np.isnan(runs).any():
        return runs, "exact"
    table = full_cover_table(rules, BankerPolicy())
    stats = simulate_table(rules, table, ProgressionSpec(), banks,
                           kernel_state(np.random.SeedSequence(20260401)))
    hist = np.array([stats.counters.get(f"run_{k}", 0.0) for k in range(RUN_CAP)]
                    + [stats.counters.get(f"run_ge_{RUN_CAP}", 0.0)]) / banks
    runs = np.zeros(max_run + 1)
    seen = min(max_run, RUN_CAP)  # longer runs are beyond the simulation's histogram
    runs[:seen] = hist[:seen]
    runs[max_run] = max(0.0, 1.0 - runs[:max_run].sum())
    return runs, f"simulated, {banks:,} banks"


def check_file(path: str | Path, rules: LansquenetRules) -> CheatReport:
    """Read an observed table and test it against fair play under ``rules``."""
    observed = read_observed(path, rules)
    longest = max(observed.runs(), default=0)
    runs, model = fair_runs(rules, max(RUN_CAP, longest + 1))
    return analyse(observed, runs, model)


# ------------------------------------------------------------------ the source's story
def pounds_shillings_pence(pence: int) -> tuple[int, int, int]:
    """Old British money: 12 pence a shilling, 20 shillings a pound."""
    return pence // 240, pence % 240 // 12, pence % 12


def story_rows(runs: np.ndarray, coups_in_evening: int = 200) -> list[dict[str, object]]:
    """The source's Cunard banker: 18 wins running from sixpence; how often a fair bank does
    it, and how common six or seven is ("not unfrequent")."""
    pounds, shillings, pence = pounds_shillings_pence(6 * 2 ** 17)
    at_least = 1.0 - np.concatenate([[0.0], np.cumsum(runs[:-1])])
    rows: list[dict[str, object]] = [{
        "measure": "stake at the 18th turn-up from 6d, doubled 17 times",
        "value": f"GBP {pounds:,} {shillings}s {pence}d (the source prints 3,236 16s)"}]
    for k in (6, 7, 18):
        p = float(at_least[k])
        rows.append({"measure": f"P(a fair bank wins {k} or more running)",
                     "value": f"{p:.6g} (1 bank in {1 / p:,.0f})" if p > 0 else "0"})
        rows.append({"measure": f"P(a run of {k} or more in {coups_in_evening} coups)",
                     "value": f"{p_longest_run(coups_in_evening, k, runs):.6g}"})
    return rows


# ------------------------------------------------------------------ the chart
def bank_value_chart(policies, ax=None):
    """The banker's exact result of a bank, and his chance of a profit, by when he passes it
    (rows of :func:`policy_rows`); the edge per stake met on a second axis."""
    from sim.core.plotting import new_axes

    fig, ax = new_axes(ax, (8, 4.2))
    rows = policies[policies["policy"].str.startswith("pass after")]
    k = rows["policy"].str.extract(r"(\d+)")[0].astype(int).to_numpy()
    ax.bar(k, rows["banker_result"], color="C0", alpha=0.8,
           label="banker's mean result of a bank (opening stakes)")
    ax.plot(k, rows["p_profit"], "o-", color="C1", label="P(the bank ends in profit)")
    ax.set_xticks(k)
    ax.set_xlabel("the banker passes the bank after this many coups won")
    ax.set_ylabel("opening stakes / probability")
    twin = ax.twinx()
    twin.plot(k, rows["edge_per_stake_met"] * 100, "s--", color="C2", ms=4,
              label="edge per stake met, %")
    twin.set_ylabel("banker's edge per stake met, %", color="C2")
    twin.set_ylim(0, max(0.1, float(rows["edge_per_stake_met"].max()) * 130))
    handles = [h for a in (ax, twin) for h in a.get_legend_handles_labels()[0]]
    labels = [lab for a in (ax, twin) for lab in a.get_legend_handles_labels()[1]]
    ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.12, 1.0), fontsize="small",
              frameon=False)
    ax.set_title("A bank's value by when it is passed (exact)")
    ax.grid(alpha=0.3)
    return fig


def run_length_chart(distributions: Mapping[str, Sequence[float]],
                     exact: Sequence[float] | None = None, ax=None, title: str | None = None):
    """P(a bank ends after k coups won running), one line per distribution (a fair bank, a
    sharper's...), on a log scale, with the exact fair distribution as a dashed line.

    Returns the Figure (``ax`` given: its figure), like the charts of :mod:`sim.outputs.charts`.
    """
    from sim.core.plotting import new_axes

    fig, ax = new_axes(ax, (7.5, 4.2))
    shown: list[float] = []
    last = 0
    for i, (label, probs) in enumerate(distributions.items()):
        probs = np.asarray(probs, dtype=np.float64)
        k = np.flatnonzero(probs > 0)
        if not len(k):
            continue
        ax.plot(k, probs[k], "o-", ms=3.5, lw=1.2, color=f"C{i}", label=label)
        shown += list(probs[k])
        last = max(last, int(k[-1]))
    if exact is not None:
        exact = np.asarray(exact, dtype=np.float64)
        k = np.flatnonzero(np.isfinite(exact) & (exact > 1e-12))
        if len(k):
            # The axis reaches the runs seen (or, alone, the runs of chance above 1e-9): an
            # exact tail down to 1e-12 would leave the simulated points in a corner.
            if not distributions:
                last = int(k[exact[k] > 1e-9][-1]) if (exact[k] > 1e-9).any() else int(k[-1])
            k = k[k <= last + 2]
            ax.plot(k, exact[k], "--", color="black", lw=1, label="fair bank, exact")
            shown += list(exact[k])
    ax.set_yscale("log")
    if shown:
        ax.set_ylim(min(shown) / 3, min(1.0, max(shown) * 2))
    ax.set_xlim(-0.5, last + 2.5)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("coups won running before the bank ends (last point: that many or more)")
    ax.set_ylabel("probability (log)")
    ax.set_title(title or "Run lengths of a bank")
    ax.grid(alpha=0.3)
    from sim.core.plotting import legend_outside

    legend_outside(ax)
    return fig
