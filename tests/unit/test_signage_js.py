"""The signage page's hit handler, run by Node on the real ``slotsys/web/static/signage.js`` with a
minimal DOM: a hit is celebrated only when it is paid or being paid (``awarded``, ``handpay``); a
hit held for ``verification`` shows on its level's row, with no celebration and no amount.

Needs ``node`` (Debian ``nodejs``, installed by ``.ci/run``); skipped, saying why, without it. The
browser test (tests/e2e/browser/test_screens.py) drives the same page in Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

SIGNAGE = Path(__file__).resolve().parents[2] / "slotsys" / "app" / "web" / "static" / "signage.js"
NODE = shutil.which("node") or shutil.which("nodejs")

HARNESS = r"""
const fs = require("fs");
function El(id) {
  this.id = id; this.attrs = {}; this.children = []; this.textContent = ""; this.hidden = true;
  const cls = new Set();
  this.classList = { add: c => cls.add(c), remove: c => cls.delete(c), contains: c => cls.has(c),
                     toggle: (c, on) => (on ? cls.add(c) : cls.delete(c)) };
  this.cls = cls;
}
El.prototype.setAttribute = function (k, v) { this.attrs[k] = String(v); };
El.prototype.getAttribute = function (k) { return k in this.attrs ? this.attrs[k] : null; };
El.prototype.removeAttribute = function (k) { delete this.attrs[k]; };
El.prototype.appendChild = function (c) { this.children.push(c); return c; };
const els = {};
["sign", "levels", "conn", "celebrate", "cel-level", "cel-amount", "cel-machine"].forEach(i => els[i] = new El(i));
els.sign.setAttribute("data-zone", "MASS");
global.document = { getElementById: i => els[i], addEventListener: () => {} };
global.setTimeout = () => 0; global.clearTimeout = () => {};
global.SS = {
  el: (tag, o) => { const e = new El(tag); if (o.cls) e.classList.add(o.cls); if (o.text) e.textContent = o.text;
                    Object.keys(o).forEach(k => { if (k.startsWith("data-")) e.setAttribute(k, o[k]); }); return e; },
  won: n => "₩" + n.toLocaleString("en-US"), t: k => k,
};
eval(fs.readFileSync(process.argv[1], "utf8"));
const out = [];
function state(step) {
  const row = els.levels.children.find(r => r.getAttribute("data-level") === "MASS_GRAND");
  out.push({ step, celebrating: !els.celebrate.hidden, amount: els["cel-amount"].textContent,
             hit: els.celebrate.getAttribute("data-hit"), row_status: row.getAttribute("data-hit-status"),
             row_verification: row.cls.has("verification"), row_value: row.children[1].textContent });
}
SS.signage.onMeters({ levels: [{ code: "MASS_GRAND", name: "Grand", zone: "MASS", value: 7000000, status: "active" }] });
for (const [step, msg] of JSON.parse(process.argv[2])) { SS.signage.onHit(msg); state(step); }
console.log(JSON.stringify(out));
"""


def hit(hit_id, status, amount, **kw):
    return {"event": "hit", "hit": hit_id, "level": "MASS_GRAND", "name": "Grand", "machine": "M005", "zone": "MASS",
            "status": status, "amount": amount, "new_value": 5_000_000, **kw}


def run(steps):
    if NODE is None:
        pytest.skip("node not found: install Debian's nodejs (.ci/run does)")
    r = subprocess.run([NODE, "-e", HARNESS, str(SIGNAGE), json.dumps(steps)], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    return {s["step"]: s for s in json.loads(r.stdout)}


def test_a_hit_held_for_verification_is_not_celebrated_and_shows_no_amount():
    out = run([
        ["verification", hit(7, "verification", None)],
        ["old-server-message-without-status", {**hit(8, "awarded", 42_949_672), "status": None}],
        ["void", hit(9, "void", 3_000)],
        ["operator-pays-it", hit(7, "handpay", 9_000_000)],
        ["credited", hit(10, "awarded", 120_000)],
    ])
    v = out["verification"]
    assert not v["celebrating"] and v["amount"] == "" and v["hit"] is None
    assert v["row_verification"] and v["row_status"] == "verification" and v["row_value"] == "₩5,000,000"
    for step in ("old-server-message-without-status", "void"):  # nothing celebrated without a paying status
        assert not out[step]["celebrating"] and out[step]["amount"] == "", step
    paid = out["operator-pays-it"]  # the operator decided pay: a handpay is being paid, now celebrated
    assert paid["celebrating"] and paid["amount"] == "₩9,000,000" and paid["hit"] == "7"
    assert not paid["row_verification"] and paid["row_status"] is None
    credited = out["credited"]
    assert credited["celebrating"] and credited["amount"] == "₩120,000" and credited["hit"] == "10"
