"""The day report's charts through the API (SVG, matplotlib): played across three hours of a gaming day with a
jackpot hit, closed, and each chart read back as XML holding its series — one bar per machine, one per hour of
the day (their heights sum to the day's coin-in), the jackpot level's staircase and its hit; the media type in
the OpenAPI contract; refusals."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import timedelta

from tests.e2e.test_accounting_api import BASE, GD, _close, _ok, _problem, _set_trigger, floor_days  # noqa: F401

SVG_NS = "{http://www.w3.org/2000/svg}"


def _svg(r) -> ET.Element:
    assert r.status_code == 200, (r.status_code, r.get_data(as_text=True)[:300])
    assert r.mimetype == "image/svg+xml" and r.headers["Cache-Control"] == "no-store"
    root = ET.fromstring(r.data)
    assert root.tag == SVG_NS + "svg"
    return root


def _ids(root: ET.Element, prefix: str) -> list[str]:
    return [el.get("id") for el in root.iter() if (el.get("id") or "").startswith(prefix)]


def _group(root: ET.Element, gid: str) -> ET.Element:
    return next(el for el in root.iter() if el.get("id") == gid)


def _bar_height(root: ET.Element, gid: str) -> float:
    """The drawn height of bar ``gid`` (its path's vertical extent, SVG units)."""
    group = next(el for el in root.iter() if el.get("id") == gid)
    path = next(group.iter(SVG_NS + "path")).get("d")
    ys = [float(y) for y in re.findall(r"[-\d.]+ ([-\d.]+)", path)]
    return max(ys) - min(ys)


def test_the_three_charts_hold_the_days_series(app, api, floor_days):  # noqa: F811 (the fixture, imported)
    play, traveller, d0, d1, d2 = floor_days
    line = {"lines": 20, "multiplier": 1}
    start = GD.bounds(d1)[0]
    play.bill("M001", 50_000)
    play.spins("M001", 6, line)  # hour 0 (06:03 KST …)
    traveller.move_to(start + timedelta(hours=2, minutes=10))
    api._tokens.clear()
    play.bill("M003", 50_000)
    _set_trigger(app, "MASS_MINOR", 1)  # the next qualifying wager in the Mass zone hits the Minor
    play.spins("M003", 3, line)
    traveller.move_to(start + timedelta(hours=7, minutes=40))
    api._tokens.clear()
    play.bill("V001", 50_000)
    play.spins("V001", 4, {"lines": 1, "multiplier": 1})
    traveller.move_to(GD.bounds(d1)[1] + timedelta(minutes=5))
    api._tokens.clear()
    _ok(_close(api, d1), 201)
    day = d1.isoformat()
    report = _ok(api.as_staff("auditor", "GET", f"{BASE}/days/{day}?limit=500", key=None))

    # (a) hold against theoretical: one bar, one theoretical mark per machine; a band where the machine has a z
    root = _svg(api.as_staff("auditor", "GET", f"{BASE}/days/{day}/charts/hold.svg", key=None))
    assert sorted(_ids(root, "hold-")) == sorted(f"hold-{m['asset']}" for m in report["machines"])
    assert len(list(_group(root, "theo").iter(SVG_NS + "use"))) == 30  # a marker per machine
    banded = [m["asset"] for m in report["machines"] if m["z"] is not None]
    assert {"M001", "M003", "V001"} <= set(banded)
    assert len(list(_group(root, "band").iter(SVG_NS + "path"))) == len(banded)  # a band per machine with a z
    vip = api.as_staff("supervisor", "GET", f"{BASE}/days/{day}/charts/hold.svg?zone=VIP&lang=ko", key=None)
    assert len(_ids(_svg(vip), "hold-")) == 10 and all(i.startswith("hold-V") for i in _ids(_svg(vip), "hold-"))
    vip_en = api.as_staff("supervisor", "GET", f"{BASE}/days/{day}/charts/hold.svg?zone=VIP", key=None)
    assert vip.data != vip_en.data  # the labels are drawn in the language asked for (glyphs as paths)

    # (b) coin-in by hour: 24 bars; the played hours are the tall ones and their heights sum like the coin-in
    root = _svg(api.as_staff("auditor", "GET", f"{BASE}/days/{day}/charts/coin-in.svg", key=None))
    assert _ids(root, "hour-") == [f"hour-{i}" for i in range(24)]
    heights = {i: _bar_height(root, f"hour-{i}") for i in range(24)}
    played = {i for i, h in heights.items() if h > 0.01}
    assert played == {0, 2, 7}, heights
    coin = {0: play.figures[(d1, "M001")]["coin_in"], 2: play.figures[(d1, "M003")]["coin_in"],
            7: play.figures[(d1, "V001")]["coin_in"]}
    assert sum(coin.values()) == report["floor"]["coin_in"]
    tallest = max(coin, key=lambda i: coin[i])
    for i in coin:  # bar heights are proportional to the coin-in of the hour
        assert abs(heights[i] / heights[tallest] - coin[i] / coin[tallest]) < 0.01, (heights, coin)
    one = _svg(api.as_staff("auditor", "GET", f"{BASE}/days/{day}/charts/coin-in.svg?machine=V001", key=None))
    assert {i for i in range(24) if _bar_height(one, f"hour-{i}") > 0.01} == {7}

    # (c) the Minor's value over the day: a staircase with a step per fold (thinned to the minute) and the hit
    root = _svg(api.as_staff("auditor", "GET", f"{BASE}/days/{day}/charts/jackpot/MASS_MINOR.svg?lang=ko",
                             key=None))
    assert len(_ids(root, "hit-")) == 1 and _ids(root, "value-steps") == ["value-steps"]
    with app.app_context():
        history = app.extensions["slotsys"].accounting.days.jackpot_history(
            _auditor(app), d1, "MASS_MINOR")
    assert len(history.hits) == 1 and history.steps[0].at == GD.bounds(d1)[0] and len(history.steps) >= 3
    line = next(x for x in report["liabilities"]["jackpots"]["lines"]
                if x["level"] == "MASS_MINOR" and x["part"] == "liability")
    assert history.steps[-1].value == line["ledger"]  # the staircase ends at the ledger's balance at the close

    # the contract names the media type; refusals
    spec = api.client.get("/openapi.json").json
    for chart in ("hold", "coin-in", "jackpot/{level}"):
        op = spec["paths"][f"{BASE}/days/{{day}}/charts/{chart}.svg"]["get"]
        assert "image/svg+xml" in op["responses"]["200"]["content"], op["responses"]["200"]
    _problem(api.as_staff("auditor", "GET", f"{BASE}/days/{day}/charts/jackpot/NOPE.svg", key=None), 404, "level")
    _problem(api.as_staff("auditor", "GET", f"{BASE}/days/{day}/charts/jackpot/_bad.svg", key=None), 422, "level")
    _problem(api.as_staff("auditor", "GET", f"{BASE}/days/{day}/charts/hold.svg?lang=fr", key=None), 422, "lang")
    _problem(api.as_staff("auditor", "GET", f"{BASE}/days/{(d2 + timedelta(days=3)).isoformat()}/charts/hold.svg",
                          key=None), 404, "day")
    _problem(api.as_staff("cashier", "GET", f"{BASE}/days/{day}/charts/coin-in.svg", key=None), 403, None)


def _auditor(app):
    from slotsys.kernel.context import Principal

    return Principal(kind="staff", name="auditor", role="auditor")


def test_the_closed_days_the_screen_offers_newest_first_paged(app, api, floor_days):  # noqa: F811 (the fixture)
    play, traveller, d0, d1, d2 = floor_days
    traveller.move_to(GD.bounds(d1)[1] + timedelta(minutes=5))
    api._tokens.clear()
    _ok(_close(api, d1), 201)
    listed = _ok(api.as_staff("auditor", "GET", f"{BASE}/days", key=None))
    assert [d["day"] for d in listed["days"]] == [d1.isoformat(), d0.isoformat()] and listed["next_cursor"] is None
    assert listed["days"][0]["label"] == GD.describe(d1)
    first = _ok(api.as_staff("supervisor", "GET", f"{BASE}/days?limit=1", key=None))
    assert [d["day"] for d in first["days"]] == [d1.isoformat()] and first["next_cursor"]
    rest = _ok(api.as_staff("auditor", "GET", f"{BASE}/days?limit=1&cursor={first['next_cursor']}", key=None))
    assert [d["day"] for d in rest["days"]] == [d0.isoformat()] and rest["next_cursor"] is None
    _problem(api.as_staff("auditor", "GET", f"{BASE}/days?cursor=nonsense", key=None), 422, "cursor")
    _problem(api.as_staff("cashier", "GET", f"{BASE}/days", key=None), 403, None)
