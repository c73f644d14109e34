"""Baccarat scoreboard roadmaps: bead plate, big road (ties, dragon tails), derived roads."""

from __future__ import annotations

import json

from table_games.domain import baccarat as B
from table_games.domain import roadmaps as R
from table_games.domain.rng import SeededRng

SEQ = "B B P P P T B P B B B B B B B".split()


def coups(seq):
    return [{"winner": w} for w in seq]


def test_bead_plate_fills_columns_top_to_bottom_with_ties():
    plate = R.bead_plate(coups(SEQ))
    assert len(plate) == 15
    assert [(c["col"], c["row"], c["result"]) for c in plate[:7]] == [
        (0, 0, "B"), (0, 1, "B"), (0, 2, "P"), (0, 3, "P"), (0, 4, "P"), (0, 5, "T"), (1, 0, "B")]


def test_big_road_columns_ties_marked_not_starting_columns():
    cols = R.big_road_columns(coups(SEQ))
    assert [len(c) for c in cols] == [2, 3, 1, 1, 7]
    assert [c[0]["result"] for c in cols] == ["B", "P", "B", "P", "B"]
    assert cols[1][2]["ties"] == 1 and sum(e["ties"] for c in cols for e in c) == 1
    # ties before the first result are carried onto the first cell
    first = R.big_road_columns(coups(["T", "T", "P", "T", "P"]))
    assert len(first) == 1 and [e["ties"] for e in first[0]] == [3, 0]


def test_big_road_dragon_tail():
    board = R.scoreboard(coups(SEQ))
    cells = [(c["col"], c["row"]) for c in board["big_road"]["cells"]]
    assert cells[:7] == [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 0), (3, 0)]
    assert cells[7:] == [(4, 0), (4, 1), (4, 2), (4, 3), (4, 4), (4, 5), (5, 5)]  # 7th B turns right
    # a second long column runs into the first one's tail and turns right one row higher
    pos = R.place([[0] * 7, [0] * 7, [0]])
    assert [(p["col"], p["row"]) for p in pos[7:14]] == [(1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)]
    assert (pos[14]["col"], pos[14]["row"]) == (2, 0)


def test_derived_roads_compare_columns_one_two_three_back():
    lengths = [2, 3, 1, 1, 7]
    assert R.derived_marks(lengths, 1) == ["red", "blue", "blue", "blue", "red", "blue"] + ["red"] * 5
    assert R.derived_marks(lengths, 2) == ["blue", "blue", "blue"] + ["red"] * 5
    assert R.derived_marks(lengths, 3) == ["blue", "red", "red", "blue", "red", "red", "red"]
    board = R.scoreboard(coups(SEQ))
    assert board["big_eye_boy"]["marks"] == R.derived_marks(lengths, 1)
    assert board["big_eye_boy"]["columns"] == [1, 3, 1, 1, 5]
    assert board["small_road"]["columns"] == [3, 5]
    assert len(board["cockroach_pig"]["cells"]) == 7


def test_derived_roads_start_points():
    # big eye boy starts at column 2 row 2, or column 3 row 1 if column 2 has one entry
    assert R.derived_marks([1], 1) == [] and R.derived_marks([1, 1], 1) == [] and R.derived_marks([1, 2], 1) == ["blue"]
    assert R.derived_marks([1, 1, 1], 1) == ["red"]
    assert R.derived_marks([1, 1, 1], 2) == [] and R.derived_marks([1, 1, 1, 1], 2) == ["red"]
    assert R.derived_marks([1, 1, 1, 1], 3) == [] and R.derived_marks([1, 1, 1, 1, 1], 3) == ["red"]
    # an alternating shoe (chop) is "orderly": all red; a column that goes one deeper than its neighbour is blue
    assert set(R.derived_marks([1] * 10, 1)) == {"red"}
    assert R.derived_marks([1, 1, 2], 1) == ["red", "blue"]


def test_predictions_ask_banker_ask_player():
    board = R.scoreboard(coups(SEQ))
    ask = board["predictions"]
    # next B lengthens the last column (7 → 8): row 7 vs column 3 (1 long) → red everywhere
    assert ask["banker"] == {"big_eye_boy": "red", "small_road": "red", "cockroach_pig": "red"}
    # next P starts a column: compare lengths 7 vs 1 (k=1), 7 vs 1 (k=2), 7 vs 3 (k=3) → blue
    assert ask["player"] == {"big_eye_boy": "blue", "small_road": "blue", "cockroach_pig": "blue"}


def test_scoreboard_from_a_real_shoe_is_json():
    shoe, _ = B.new_shoe(B.COMMISSION, SeededRng(3))
    played = []
    while not (played and played[-1].last_of_shoe):
        played.append(B.play_coup(shoe))
    board = R.scoreboard(played)
    text = json.dumps(board)
    assert json.loads(text)["coups"] == len(played)
    c = board["counts"]
    assert c["banker"] + c["player"] + c["tie"] == len(played)
    assert len(board["big_road"]["cells"]) == c["banker"] + c["player"]
    assert len({(x["col"], x["row"]) for x in board["big_road"]["cells"]}) == len(board["big_road"]["cells"])
    assert all(0 <= x["row"] < 6 for x in board["big_road"]["cells"])
    assert "total" in board["bead_plate"][0]
