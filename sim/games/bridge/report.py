"""What bridge shows beside its numbers: the survey's figures against the texts' exact
fractions, the exact odds tables (``houseedge exact``), the points and split charts, and the
cases ``houseedge bench`` measures."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import pandas as pd

from sim.core.estimate import frequency
from sim.core.stats import Stats
from sim.games.base import REFERENCE, BenchCase, Presentation
from sim.games.bridge import odds
from sim.games.bridge.play import best_line, contract_value, line_odds
from sim.games.bridge.players import TableDeclarer
from sim.games.bridge.rules import LINES, BridgeRules, BridgeTable

# The survey's columns: (name, counter of hits, counter of trials, exact probability).
_FIGURES = (
    ("west_holds_king", "given_king", "given_unseen", odds.holds_all(1)),
    ("west_holds_both", "given_both", "given_unseen", odds.holds_all(2)),
    ("west_holds_either", "given_any", "given_unseen", odds.holds_at_least_one(2)),
    ("split_5_as_3_2", ("split_5_2", "split_5_3"), "split_5_", odds.splits(5)[(3, 2)]),
    ("split_6_as_4_2", ("split_6_2", "split_6_4"), "split_6_", odds.splits(6)[(4, 2)]),
    ("split_6_as_3_3", ("split_6_3",), "split_6_", odds.splits(6)[(3, 3)]),
    ("pattern_4432", ("pattern_4432",), "pattern_", odds.patterns()[(4, 4, 3, 2)]),
)


class BridgeReport(Presentation[BridgeRules]):
    """Bridge's columns, exact tables, charts and bench cases."""

    printed_tables = ("texts", "lines", "contract")

    def columns(self, stats: Stats) -> dict[str, float]:
        c = stats.counters
        out: dict[str, float] = {}
        if "line_wins" in c:
            out["line_win_freq"] = stats.counter_rate("line_wins")
        if "given_unseen" not in c:
            return out
        for name, hits, trials, exact in _FIGURES:
            hit = c.get(hits, 0.0) if isinstance(hits, str) else sum(c.get(h, 0.0)
                                                                        for h in hits)
            n = sum(v for k, v in c.items() if k.startswith(trials)) \
                if trials.endswith("_") else c.get(trials, 0.0)
            share = frequency(hit, n, float(exact))
            out.update({f"sim_{name}": share.value, f"exact_{name}": share.exact,
                        f"z_{name}": share.z})
        dist = odds.hcp_distribution()
        share = frequency(sum(v for k, v in stats.net_hist.items() if k >= 13), stats.rounds,
                          float(sum(p for k, p in dist.items() if k >= 13)))
        out.update({"sim_hcp_13_plus": share.value, "exact_hcp_13_plus": share.exact,
                    "z_hcp_13_plus": share.z})
        return out

    def exact_tables(self, rules: BridgeRules) -> dict[str, pd.DataFrame]:
        """``texts`` (the source texts' figures beside the exact fractions), ``splits`` (every
        split of 0..13 outstanding cards), ``given`` (a given opponent holds named cards),
        ``patterns``, ``hcp`` (distribution and P(at least k)), ``lines`` (finesse and drop
        for every number missing) and ``contract`` (the rules' contract under each line)."""
        split_rows = [{"outstanding": n, "split": f"{a}-{b}", "exact": str(p),
                       "probability": float(p)}
                      for n in range(14) for (a, b), p in odds.splits(n).items()]
        given = [{"cards": k, "holds_all": str(odds.holds_all(k)),
                  "p_all": float(odds.holds_all(k)),
                  "holds_at_least_one": str(odds.holds_at_least_one(k)),
                  "p_at_least_one": float(odds.holds_at_least_one(k))} for k in range(1, 5)]
        pats = [{"pattern": "-".join(map(str, k)), "exact": str(p), "probability": float(p)}
                for k, p in odds.patterns().items()]
        dist = odds.hcp_distribution()
        tail = odds.hcp_at_least(dist)
        hcp = [{"points": k, "exact": str(p), "probability": float(p),
                "p_at_least": float(tail[k])} for k, p in dist.items()]
        lines = [{"missing": k, "finesse": str(line_odds("finesse", k)),
                  "p_finesse": float(line_odds("finesse", k)),
                  "drop": str(line_odds("drop", k)), "p_drop": float(line_odds("drop", k)),
                  "best": best_line(k)} for k in range(1, 11)]
        contract = []
        for line in LINES:
            p = line_odds(line, rules.missing)
            mean, var = contract_value(rules.contract, p, rules.sure_tricks, rules.scoring)
            contract.append({"contract": str(rules.contract), "scoring": rules.scoring,
                             "missing": rules.missing, "line": line, "p_make": float(p),
                             "expected_score": float(mean), "exact": str(mean),
                             "sd": math.sqrt(float(var))})
        mean, var = odds.mean_and_variance(dist)
        texts = odds.texts_figures() + [{"figure": "mean high-card points of a hand",
                                         "text": "(40 in the pack)", "exact": str(mean),
                                         "probability": float(mean)}]
        return {"texts": pd.DataFrame(texts), "splits": pd.DataFrame(split_rows),
                "given": pd.DataFrame(given), "patterns": pd.DataFrame(pats),
                "hcp": pd.DataFrame(hcp), "lines": pd.DataFrame(lines),
                "contract": pd.DataFrame(contract)}

    def exact_charts(self, rules: BridgeRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        from sim.games.bridge.charts import hcp_chart, split_chart

        draw = {"hcp": hcp_chart, "splits": split_chart}
        return {name: chart() for name, chart in draw.items() if names is None or name in names}

    def exact_chart_keys(self, rules: BridgeRules) -> dict[str, Any]:
        """The deal's odds are the same under every scoring: one chart each for all."""
        return {"hcp": (), "splits": ()}

    def run_charts(self, stats: Mapping[tuple[str, str], Stats],
                   rules: Mapping[str, BridgeRules]) -> dict[str, Any]:
        """``hcp.png`` and ``splits.png``: exact bars with the simulated shares of the survey
        rows as dots (only when a survey row ran)."""
        from sim.games.bridge.charts import hcp_chart, split_chart

        surveys = {k: s for k, s in stats.items() if "given_unseen" in s.counters and s.rounds}
        if not surveys:
            return {}
        hcp = {f"{v} / {s}": {int(p): c / st.rounds for p, c in st.net_hist.items()}
               for (v, s), st in surveys.items()}
        total = Stats.merge_all(surveys.values())
        simulated: dict[int, dict[tuple[int, int], float]] = {}
        for n in range(14):
            counts = {w: total.counters.get(f"split_{n}_{w}", 0.0) for w in range(n + 1)}
            whole = sum(counts.values())
            if whole:
                simulated[n] = {}
                for w, cnt in counts.items():
                    key = (max(w, n - w), min(w, n - w))
                    simulated[n][key] = simulated[n].get(key, 0.0) + cnt / whole
        return {"hcp.png": hcp_chart({f"simulated ({k})": v for k, v in hcp.items()}),
                "splits.png": split_chart(simulated)}

    def bench_cases(self) -> list[BenchCase]:
        rules = BridgeRules()
        return [BenchCase("full deals surveyed: points, pattern, splits (kernel)", "deals",
                          rules, BridgeTable("survey")),
                BenchCase("unseen cards dealt, drop line scored (kernel)", "deals", rules,
                          BridgeTable("drop")),
                BenchCase("full deals surveyed (reference path)", "deals", rules,
                          TableDeclarer("survey"), REFERENCE)]


REPORT = BridgeReport()
__all__ = ["REPORT", "BridgeReport"]
