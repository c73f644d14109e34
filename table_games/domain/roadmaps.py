"""Baccarat scoreboard roadmaps for one shoe: bead plate, big road and the three derived roads.

Input: the shoe's coups in order (:class:`~table_games.domain.baccarat.Coup`, or dicts with at least
``winner`` and optionally ``player_pair``/``banker_pair``/``natural``/``player_total``/``banker_total``).
Output: plain dicts/lists (JSON-ready), see :func:`scoreboard`.

Rules (the standard scoreboard):

* **bead plate** -- every coup, ties included, in a 6-row grid filled top-to-bottom, column by column;
* **big road** -- banker (B) and player (P) results only: a new column whenever the result changes; a tie
  never starts or breaks a column, it is *marked* on the last cell (``ties`` count; ties before the first
  B/P are carried onto the first cell); pairs are marked on the cell. Drawn on 6 rows: when a column
  cannot go down (bottom row, or the cell below is taken) it turns right along its row (a "dragon tail");
* **derived roads** -- big eye boy (k = 1), small road (k = 2), cockroach pig (k = 3) compare the big road's
  *logical* columns. For each big-road entry at column c, row r (0-based):
  - r ≥ 1: red if column c-k has an entry on row r, or has none on rows r and r-1 ("straight fall");
    blue if column c-k ends exactly at row r-1 -- i.e. blue iff ``len(col[c-k]) == r``;
  - r = 0 (a new column): red if columns c-1 and c-1-k have the same length, else blue;
  - an entry is made only once the reference column exists: a road starts at (column k, row 1) or at
    (column k+1, row 0), whichever comes first.
  Each derived road is drawn like the big road (new column on a colour change, dragon tails).

:func:`predictions` gives the marks each derived road would add if the next coup were banker / player.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

ROWS = 6
DERIVED = (("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3))
RED, BLUE = "red", "blue"
LETTER = {"banker": "B", "player": "P", "tie": "T"}


def _norm(coup: Any) -> dict[str, Any]:
    if isinstance(coup, Mapping):
        d = dict(coup)
    else:
        d = coup.to_dict()
    w = d["winner"]
    w = {"B": "banker", "P": "player", "T": "tie"}.get(w, w)
    if w not in LETTER:
        raise ValueError(f"not a baccarat result: {w!r}")
    d["winner"] = w
    return d


def place(columns: Sequence[Sequence[Any]], rows: int = ROWS) -> list[dict[str, int]]:
    """Grid positions of logical columns drawn on ``rows`` rows with dragon tails.

    Returns, in entry order, ``{"col": x, "row": y, "column": logical column, "index": index in column}``.
    """
    taken: set[tuple[int, int]] = set()
    out: list[dict[str, int]] = []
    start = -1
    for ci, column in enumerate(columns):
        x = start + 1
        while (x, 0) in taken:
            x += 1
        start = x
        y = 0
        turned = False
        for i in range(len(column)):
            if i > 0:
                if not turned and y + 1 < rows and (x, y + 1) not in taken:
                    y += 1
                else:
                    turned = True
                    x += 1
                    while (x, y) in taken:  # never overwrite (cannot happen on a well-formed road)
                        x += 1
            taken.add((x, y))
            out.append({"col": x, "row": y, "column": ci, "index": i})
    return out


def bead_plate(coups: Iterable[Any], rows: int = ROWS) -> list[dict[str, Any]]:
    out = []
    for i, c in enumerate(map(_norm, coups)):
        cell = {"col": i // rows, "row": i % rows, "result": LETTER[c["winner"]],
                "player_pair": bool(c.get("player_pair")), "banker_pair": bool(c.get("banker_pair"))}
        if "player_total" in c and "banker_total" in c:
            cell["total"] = c["banker_total"] if c["winner"] == "banker" else c["player_total"]
        out.append(cell)
    return out


def big_road_columns(coups: Iterable[Any]) -> list[list[dict[str, Any]]]:
    """The big road as logical columns of entries ``{"result", "ties", "player_pair", "banker_pair", "natural"}``."""
    columns: list[list[dict[str, Any]]] = []
    pending_ties = 0
    pending_pairs = [False, False]
    for c in map(_norm, coups):
        if c["winner"] == "tie":
            if columns:
                last = columns[-1][-1]
                last["ties"] += 1
                last["player_pair"] |= bool(c.get("player_pair"))
                last["banker_pair"] |= bool(c.get("banker_pair"))
            else:
                pending_ties += 1
                pending_pairs[0] |= bool(c.get("player_pair"))
                pending_pairs[1] |= bool(c.get("banker_pair"))
            continue
        entry = {"result": LETTER[c["winner"]], "ties": pending_ties,
                 "player_pair": bool(c.get("player_pair")) or pending_pairs[0],
                 "banker_pair": bool(c.get("banker_pair")) or pending_pairs[1], "natural": bool(c.get("natural"))}
        pending_ties, pending_pairs = 0, [False, False]
        if columns and columns[-1][0]["result"] == entry["result"]:
            columns[-1].append(entry)
        else:
            columns.append([entry])
    return columns


def derived_marks(lengths: Sequence[int], k: int) -> list[str]:
    """Derived-road marks from the big road's column lengths (see the module doc for the rule)."""
    marks: list[str] = []
    for c, n in enumerate(lengths):
        for r in range(n):
            if r == 0:
                if c - 1 - k >= 0:
                    marks.append(RED if lengths[c - 1] == lengths[c - 1 - k] else BLUE)
            elif c - k >= 0:
                marks.append(BLUE if lengths[c - k] == r else RED)
    return marks


def _columns_of(marks: Sequence[str]) -> list[list[str]]:
    cols: list[list[str]] = []
    for m in marks:
        if cols and cols[-1][0] == m:
            cols[-1].append(m)
        else:
            cols.append([m])
    return cols


def derived_road(lengths: Sequence[int], k: int, rows: int = ROWS) -> dict[str, Any]:
    marks = derived_marks(lengths, k)
    cols = _columns_of(marks)
    cells = [{"col": p["col"], "row": p["row"], "colour": cols[p["column"]][p["index"]]} for p in place(cols, rows)]
    return {"marks": marks, "columns": [len(c) for c in cols], "cells": cells}


def predictions(lengths: Sequence[int], last_result: str | None) -> dict[str, dict[str, str | None]]:
    """The mark each derived road would add if the next coup were banker / player (the "ask" buttons).

    ``lengths`` are the big road's column lengths, ``last_result`` the result of its last column ("B"/"P").
    """
    out: dict[str, dict[str, str | None]] = {}
    for result, label in (("B", "banker"), ("P", "player")):
        nxt = list(lengths)
        if last_result == result:
            nxt[-1] += 1
        else:
            nxt.append(1)
        out[label] = {}
        for name, k in DERIVED:
            before, after = derived_marks(lengths, k), derived_marks(nxt, k)
            out[label][name] = after[-1] if len(after) > len(before) else None
    return out


def scoreboard(coups: Sequence[Any], rows: int = ROWS) -> dict[str, Any]:
    """Every roadmap for one shoe, JSON-ready::

        {"coups": n, "counts": {"banker", "player", "tie", "player_pair", "banker_pair"},
         "bead_plate": [{"col", "row", "result", "player_pair", "banker_pair", "total"?}],
         "big_road": {"columns": [[{"result", "ties", "player_pair", "banker_pair", "natural"}]],
                      "cells": [{"col", "row", "result", "ties", "player_pair", "banker_pair"}]},
         "big_eye_boy" / "small_road" / "cockroach_pig": {"marks": [...], "columns": [lengths],
                                                          "cells": [{"col", "row", "colour"}]},
         "predictions": {"banker": {road: colour|None}, "player": {...}}}
    """
    norm = [_norm(c) for c in coups]
    columns = big_road_columns(norm)
    lengths = [len(c) for c in columns]
    cells = []
    for p in place(columns, rows):
        e = columns[p["column"]][p["index"]]
        cells.append({"col": p["col"], "row": p["row"], "result": e["result"], "ties": e["ties"],
                      "player_pair": e["player_pair"], "banker_pair": e["banker_pair"]})
    board: dict[str, Any] = {
        "coups": len(norm),
        "counts": {"banker": sum(c["winner"] == "banker" for c in norm),
                   "player": sum(c["winner"] == "player" for c in norm),
                   "tie": sum(c["winner"] == "tie" for c in norm),
                   "player_pair": sum(bool(c.get("player_pair")) for c in norm),
                   "banker_pair": sum(bool(c.get("banker_pair")) for c in norm)},
        "bead_plate": bead_plate(norm, rows),
        "big_road": {"columns": columns, "cells": cells},
    }
    for name, k in DERIVED:
        board[name] = derived_road(lengths, k, rows)
    board["predictions"] = predictions(lengths, columns[-1][0]["result"] if columns else None)
    return board
