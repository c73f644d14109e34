"""GET /api/v1/tables/house-edges through HTTP: every table game's stated house edge with its method, 95% CI
and the published figure beside it (Caribbean stud, pai gow poker as player and banker, Texas Hold'em
Bonus included); staff read roles only."""

from __future__ import annotations

from table_games.domain import house_edges as HE

URL = "/api/v1/tables/house-edges"


def test_house_edges_are_served_from_the_stored_figures(api):
    r = api.as_staff("auditor", "GET", URL, key=None)
    assert r.status_code == 200, r.json
    games = r.json["games"]
    assert games == HE.catalogue()
    by = {(e["game"], e["bet"], e["strategy"]): e for e in games}
    cs = by[("caribbean_stud", "ante (with the call)", "optimal")]
    assert cs["method"] == "exact" and cs["ci95"] is None
    assert cs["house_edge"] == HE.figure("caribbean_stud", "optimal")["house_edge"] and cs["published"] == 0.05224
    for way in ("9-1", "9-2", "9-3"):
        for side in ("player", "banker"):
            e = by[("pai_gow_poker", side, f"house way {way} vs house way {way}")]
            assert e["ci95"][0] < e["house_edge"] < e["ci95"][1] and e["published"] is not None
    hb = next(e for e in games if e["game"] == "holdem_bonus")
    assert hb["method"] == "simulation" and hb["published"] == 0.02
    assert URL in api.client.get("/openapi.json").json["paths"]


def test_house_edges_need_a_staff_read_role(api):
    assert api.client.get(URL).status_code == 401
    assert api.as_staff("cashier", "GET", URL, key=None).status_code == 403
    for role in ("pit", "operator", "host"):
        assert api.as_staff(role, "GET", URL, key=None).status_code == 200, role
