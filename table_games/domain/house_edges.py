"""The table games' house edges in one catalogue: exact where the game allows it, otherwise a seeded
simulation with its 95% confidence interval, and the published figure beside each.

Sources of the figures:

* roulette, sic bo, big wheel: exact, computed here from the engines (:func:`roulette.house_edge`, …);
* baccarat, three card poker: exact, stored (``bench/table_exact_odds.py``, ``bench/table_poker_exact.py``;
  the unit tests recompute them);
* blackjack, Texas Hold'em Bonus, pai gow poker: simulations, stored with their standard error, seeds and
  command; Caribbean stud: exact enumeration, stored (``bench/table_house_edges.py --write``).

Stored figures live in ``house_edges.json`` beside this module (``computed`` = what the benches printed,
``published`` = the outside reference figures with their sources, ``stored_exact`` = other games' exact
figures). Nothing is simulated at request time. Edges are fractions of the first bet (the ante, the main
bet) unless the entry says otherwise.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("house_edges.json")
KEYS = {"caribbean": "caribbean_stud", "paigow": "pai_gow_poker", "holdem": "holdem_bonus"}
TITLES = {"caribbean": "Caribbean stud (ante; call 2×; 100/50/20/7/5/4/3/2/1)",
          "paigow": "Pai gow poker (53 cards, house way vs house way, copies to the banker)",
          "holdem": "Texas Hold'em Bonus (ante; flop 2×, turn 1×, river 1×; ante pays with a straight+)"}


def load() -> dict[str, Any]:
    """The stored figures (a fresh copy)."""
    return json.loads(DATA.read_text())


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return load()


def published(game: str) -> dict[str, Any]:
    """The published reference figures of ``game`` ("caribbean_stud" | "pai_gow_poker" | "holdem_bonus")."""
    return _data()["published"][game]


def figure(game: str, variant: str | None = None) -> dict[str, Any]:
    """A stored computed figure: ``figure("caribbean_stud", "optimal")``, ``figure("pai_gow_poker", "9-1")``,
    ``figure("holdem_bonus")``. Raises ``KeyError`` for an unknown game or variant."""
    c = _data()["computed"][game]
    if game == "caribbean_stud":
        return c["strategies"][variant or "optimal"]
    if game == "pai_gow_poker":
        return c["house_ways"][variant or "9-1"]
    return c


def _entry(game: str, bet: str, edge: float, *, method: str, ci95: list[float] | None = None,
           strategy: str | None = None, published_edge: float | None = None, source: str | None = None) -> dict:
    return {"game": game, "bet": bet, "strategy": strategy, "house_edge": edge, "ci95": ci95, "method": method,
            "published": published_edge, "published_source": source}


def catalogue() -> list[dict[str, Any]]:
    """Every game's main-bet house edge, as JSON-ready dicts: ``game``, ``bet``, ``strategy`` (or None),
    ``house_edge`` (fraction of the bet), ``ci95`` ([lo, hi] for a simulation, None when exact), ``method``
    ("exact" | "simulation"), ``published`` (the outside figure or None) and ``published_source``."""
    from table_games.domain import bigwheel, roulette, sicbo

    d = _data()
    out = [_entry("roulette", "any bet (single zero)", float(roulette.house_edge("red")), method="exact"),
           _entry("sic_bo", "small / big", float(sicbo.house_edge("small")), method="exact"),
           _entry("big_wheel", "1 (24 stops)", float(bigwheel.house_edge("1")), method="exact")]
    for game, bets in d["stored_exact"].items():
        for bet, e in bets.items():
            if not bet.startswith("_"):
                out.append(_entry(game, bet, e["house_edge"], method=e["method"], strategy=e.get("strategy"),
                                  published_edge=e.get("published")))
    for name, e in d["stored_simulated"]["blackjack"].items():
        if name.startswith("_"):
            continue
        out.append(_entry("blackjack", "main bet", e["house_edge"], method="simulation", ci95=e["ci95"],
                          strategy=f"basic strategy, {name}"))
    cs, pub = d["computed"]["caribbean_stud"], d["published"]["caribbean_stud"]
    for name in ("optimal", "AKJ83_or_better", "pair_or_better"):
        e = cs["strategies"][name]
        out.append(_entry("caribbean_stud", "ante (with the call)", e["house_edge"], method="exact", strategy=name,
                          published_edge=pub.get(name), source=pub["source"][0]))
    pg, pub = d["computed"]["pai_gow_poker"], d["published"]["pai_gow_poker"]
    for way, e in pg["house_ways"].items():
        for side in ("player", "banker"):
            out.append(_entry("pai_gow_poker", side, e[side]["house_edge"], method="simulation",
                              ci95=e[side]["ci95"], strategy=f"house way {way} vs house way {way}",
                              published_edge=pub[side], source=pub["source"][0]))
    hb, pub = d["computed"]["holdem_bonus"], d["published"]["holdem_bonus"]
    out.append(_entry("holdem_bonus", "ante (with flop, turn, river)", hb["house_edge"], method="simulation",
                      ci95=hb["ci95"], strategy="S1 (holdem_bonus_sim)", published_edge=pub["optimal"],
                      source=pub["source"][0]))
    return out
