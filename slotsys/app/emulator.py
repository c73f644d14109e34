"""Floor emulator: N machines playing over HTTP like real ones.

Each machine: bill-in (or a ticket printed by another machine, inserted with the two-phase
ticket-in: authorise, then commit, or now and then reject and give it back), spins at random
valid bet options it can afford (``--machine-reported N``: N machines decide their own outcomes and
report them, ``slotsys.app.emulator_reported``), cashes out to a ticket now and then (a cash-out above the
ticket limit is paid by an attendant as a handpay receipt); tickets are redeemed at the cage,
at a kiosk or inserted into another machine. Retries reuse the Idempotency-Key, as a real
machine does. Ends with a summary and the auditor's ledger proof; returns the exit code
(non-zero on any error or an unbalanced ledger).

Machine events (``event_rate``): while playing, a machine now and then reports SAS exceptions (a door opened and
closed, printer paper low / out, a power cycle, a bill jam); with ``offline_after`` (the server's
``SLOTSYS_MACHINE_OFFLINE_AFTER_S``) one machine also stops talking for longer than that midway through its
play (a comms loss, noticed by the server's offline sweep; it comes back with its next request). After play an
attendant acknowledges and resolves every active alert; the summary counts events, alerts raised and resolved,
and an alert the emulator raised that is left unresolved is an error. Cancelled-credit handpays (a cash-out
above the ticket limit) go through the handpay queue: the attendant signs, and a supervisor too at or above the
two-person threshold.
"""

from __future__ import annotations

import json
import queue
import random
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from slotsys.kernel.settings import get_settings

NOTES = (10_000, 50_000)

# SAS exception sequences a machine reports now and then (codes: slotsys.floor.domain.machine_events)
EVENT_SCENARIOS = (
    (0x11, 0x12),  # main door opened … closed
    (0x74,),  # printer paper low
    (0x61,),  # printer paper out
    (0x18, 0x17),  # AC power lost … applied
    (0x28,),  # bill jam
    (0x19, 0x1A),  # cashbox door opened … closed
)


@dataclass
class Stats:
    spins: int = 0
    coin_in: int = 0
    coin_out: int = 0
    jackpot_won: int = 0
    jackpot_hits: int = 0
    bills_in: int = 0
    tickets_issued: int = 0
    tickets_cage: int = 0
    tickets_machine: int = 0
    tickets_kiosk: int = 0
    tickets_rejected: int = 0
    handpays: int = 0
    shed_retries: int = 0  # 503 / 429 + Retry-After answers (busy, database unavailable, throttled) retried, same key
    kiosk_empty: int = 0
    events: int = 0
    comms_losses: int = 0
    alerts_resolved: int = 0
    alerts_auto_resolved: int = 0
    raised: set = field(default_factory=set)  # alert ids the emulator's events (or silences) opened
    reported_games: int = 0  # machine-reported machines: games the machine decided and reported
    reported_coin_in: int = 0
    reported_coin_out: int = 0
    meter_reports: int = 0  # of which reported as meters at game end
    meter_mismatches: int = 0  # reports whose meters the host found different from its own
    errors: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **kw) -> None:
        with self.lock:
            for k, v in kw.items():
                setattr(self, k, getattr(self, k) + v)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors[what] += 1


class Client:
    def __init__(self, base: str, token: str, stats: Stats) -> None:
        self.http = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        self.stats = stats

    def call(self, method: str, path: str, body: dict | None = None, money: bool = False) -> httpx.Response:
        headers = {"Idempotency-Key": uuid.uuid4().hex} if money else {}
        last: Exception | httpx.Response | None = None
        for _ in range(10):  # a retry reuses the same Idempotency-Key: it is paid at most once
            try:
                resp = self.http.request(method, path, json=body, headers=headers)
            except httpx.TransportError as e:
                last = e
                continue
            if must_wait(resp):  # busy, unavailable or throttled: back off as told, retry with the same key
                self.stats.add(shed_retries=1)
                last = resp
                time.sleep(retry_after_s(resp.headers["Retry-After"]))
                continue
            return resp
        if isinstance(last, httpx.Response):
            return last
        raise last  # type: ignore[misc]


RETRY_STATUSES = (429, 503)


def must_wait(resp: httpx.Response) -> bool:
    """A "try again later" answer: 503 (overloaded, database unavailable) or 429 (throttled) with ``Retry-After``
    (RFC 9110 §15.6.4, RFC 6585 §4). Nothing was applied, so a retry with the same Idempotency-Key is safe."""
    return resp.status_code in RETRY_STATUSES and "Retry-After" in resp.headers


def retry_after_s(value: str) -> float:
    """Seconds to wait for an HTTP ``Retry-After`` (delay-seconds, or an HTTP-date; RFC 9110 §10.2.3), capped at
    5 s, plus up to 50% jitter so refused machines do not all come back in the same instant."""
    try:
        delay = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            delay = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            delay = 1.0
    return min(max(delay, 0.0), 5.0) * (1 + random.random() / 2)


def _ok(resp: httpx.Response, stats: Stats, what: str) -> dict | None:
    if resp.status_code >= 400:
        stats.error(f"{what}: {resp.status_code} {resp.json().get('detail', '')[:80] if resp.headers.get('content-type', '').endswith('json') else ''}")
        return None
    return resp.json()


def _attended(resp: httpx.Response, stats: Stats, what: str) -> bool:
    """An attendant's action on an alert: True if done; False, and no error, when the alert was resolved by the
    system between the attendant's reading of the queue and the action (409 naming state ``resolved``: its
    condition cleared meanwhile, as on a real floor); any other refusal is an error."""
    if resp.status_code == 409 and resp.headers.get("content-type", "").endswith("json") and \
            resp.json().get("state") == "resolved":
        return False
    return _ok(resp, stats, what) is not None


def run_emulator(*, url: str | None, n_machines: int, spins: int, cred_path: Path | None, rng_seed: int | None,
                 concurrency: int, event_rate: float = 0.02, offline_after: float = 0.0,
                 machine_reported: int = 0) -> int:
    console = Console()
    cred_path = cred_path or get_settings().credentials_file
    if not cred_path.exists():
        console.print(f"[red]no credentials file at {cred_path}: run `make run` first or pass --credentials[/red]")
        return 2
    creds = json.loads(cred_path.read_text())
    base = (url or creds.get("url") or "http://127.0.0.1:8000").rstrip("/")
    staff = {s["role"]: s for s in creds["staff"]}
    machines = creds["machines"][:n_machines]
    if len(machines) < n_machines:
        console.print(f"[yellow]only {len(machines)} machines in the credentials file[/yellow]")
    rnd = random.Random(rng_seed)
    # the last ``machine_reported`` machines decide their own outcomes and report them (machine mode)
    reporting = {m["asset"] for m in machines[len(machines) - min(max(machine_reported, 0), len(machines)):]}
    from slotsys.app.emulator_reported import ReportingMachine, set_modes

    def login(role: str) -> str:
        for _ in range(10):
            r = httpx.post(f"{base}/api/v1/auth/login", json={"username": staff[role]["username"], "password": staff[role]["password"]}, timeout=30)
            if not must_wait(r):
                break
            time.sleep(retry_after_s(r.headers["Retry-After"]))
        r.raise_for_status()
        return r.json()["token"]

    stats = Stats()
    cashier = Client(base, login("cashier"), stats)
    auditor = Client(base, login("auditor"), stats)
    kiosk = Client(base, login("kiosk"), stats) if "kiosk" in staff else None
    attendant = Client(base, login("attendant"), stats)
    supervisor = Client(base, login("supervisor"), stats) if "supervisor" in staff else None
    keys = {m["asset"]: m["key"] for m in machines}
    tickets: queue.Queue[str] = queue.Queue()
    ticket_lock = threading.Lock()
    promo_tickets: set[str] = set()

    def redeem_at_cage(vn: str, at_kiosk: bool = False) -> None:
        with ticket_lock:
            if at_kiosk and kiosk is not None:
                resp = kiosk.call("POST", "/api/v1/kiosk/redeem", {"validation_number": vn}, money=True)
                if resp.status_code == 409 and "cassette" in resp.json().get("detail", ""):
                    stats.add(kiosk_empty=1)  # the kiosk is out of cash: the player walks to the cage
                elif _ok(resp, stats, "kiosk redeem"):
                    stats.add(tickets_kiosk=1)
                    return
                else:
                    return
            if _ok(cashier.call("POST", "/api/v1/cage/redeem", {"validation_number": vn}, money=True), stats, "cage redeem"):
                stats.add(tickets_cage=1)

    def take_tickets(out: dict, r: random.Random, last: bool) -> None:
        """What the player does with the printed tickets: cashable ones go to the cage, a kiosk or
        another machine; promotional ones into another machine; handpay receipts to the cage."""
        for t in out.get("tickets") or [out["ticket"]]:
            stats.add(tickets_issued=1)
            vn = t["validation_number"]
            if t.get("type") == "promotional":
                promo_tickets.add(vn)
                tickets.put(vn)
            elif t.get("type") not in (None, "cashable") or last or r.random() < 0.5:
                redeem_at_cage(vn, at_kiosk=t.get("type") in (None, "cashable") and r.random() < 0.5)
            else:
                tickets.put(vn)

    def ticket_in(c: Client, asset: str, vn: str, r: random.Random) -> dict | None:
        """Two-phase: authorise, then commit once stacked (or, 5% of the time, reject it)."""
        auth = _ok(c.call("POST", f"/api/v1/machines/{asset}/ticket-in/authorize", {"validation_number": vn}, money=True),
                   stats, "ticket-in authorise")
        if auth is None:
            return None
        hold = {"validation_number": vn, "transaction_id": auth["transaction_id"]}
        if r.random() < 0.05:
            if _ok(c.call("POST", f"/api/v1/machines/{asset}/ticket-in/reject", {**hold, "reason": "emulated jam"},
                          money=True), stats, "ticket-in reject"):
                stats.add(tickets_rejected=1)
                tickets.put(vn)
            return None
        return _ok(c.call("POST", f"/api/v1/machines/{asset}/ticket-in/commit", hold, money=True), stats, "ticket-in commit")

    def cash_out(c: Client, asset: str) -> httpx.Response:
        """Cash out; above the ticket limit the credits join the handpay queue and an attendant pays them."""
        resp = c.call("POST", f"/api/v1/machines/{asset}/cash-out", money=True)
        if resp.status_code == 409 and resp.json().get("type", "").endswith("handpay-required"):
            resp = pay_queued_handpay(asset) or resp
        return resp

    def sign_queued_handpay(asset: str, source: str, hit: int | None = None) -> httpx.Response | None:
        """The attendant signs the machine's queued handpay (``source`` ``cancelled_credit`` or ``jackpot``, the
        latter by its hit); at or above the two-person threshold a supervisor signs second, which pays it."""
        queue_ = _ok(attendant.call("GET", "/api/v1/handpays?state=pending&limit=500"), stats, "handpay queue") or {}
        h = next((h for h in queue_.get("handpays", []) if h["machine"] == asset and h["source"] == source
                  and (hit is None or h.get("hit_id") == hit)), None)
        if h is None:
            stats.error(f"handpay: the machine's {source} handpay is not in the handpay queue")
            return None
        resp = attendant.call("POST", f"/api/v1/handpays/{h['id']}/sign", money=True)
        if resp.status_code == 200 and resp.json()["state"] == "pending" and supervisor is not None:
            resp = supervisor.call("POST", f"/api/v1/handpays/{h['id']}/sign", money=True)
        if resp.status_code == 200 and resp.json().get("state") == "paid":
            stats.add(handpays=1)
        else:
            stats.error(f"handpay {h['id']} ({source}) was not paid: {resp.status_code} {resp.text[:200]}")
        return resp

    def pay_queued_handpay(asset: str) -> httpx.Response | None:
        """A refused cash-out's credits, paid through the queue; the response's ``ticket`` is the handpay receipt."""
        resp = sign_queued_handpay(asset, "cancelled_credit")
        if resp is not None and resp.status_code == 200 and resp.json().get("state") == "paid":
            return httpx.Response(200, json={"ticket": resp.json()["payout"]["receipt"]["ticket"]})
        return resp

    def report_events(c: Client, asset: str, r: random.Random) -> None:
        """A random SAS exception sequence, reported as the machine would (its own key)."""
        for code in r.choice(EVENT_SCENARIOS):
            body = _ok(c.call("POST", f"/api/v1/machines/{asset}/events", {"sas_code": code}, money=True), stats,
                       "machine event")
            if body:
                stats.add(events=len(body["events"]))
                with stats.lock:
                    stats.raised.update(e["alert_id"] for e in body["events"] if e["alert_id"])

    def go_silent(asset: str) -> None:
        """This machine stops talking for longer than the server's offline threshold (a comms loss)."""
        time.sleep(offline_after + 6.0)  # the threshold, plus the sweep's interval and a margin
        stats.add(comms_losses=1)

    def level_totals() -> dict[str, tuple[int, int]]:
        body = _ok(auditor.call("GET", "/api/v1/jackpots/levels"), stats, "jackpot levels") or {"levels": []}
        return {lv["code"]: (lv["hits"], lv["total_won"]) for lv in body["levels"]}

    def settle_jackpot_handpays(asset: str) -> bool:
        """An attendant pays the machine's waiting jackpot handpays (the machine unlocks)."""
        waiting = _ok(attendant.call("GET", "/api/v1/jackpots/handpays"), stats, "handpays") or {"waiting": []}
        paid = False
        for h in waiting["waiting"]:
            if h["machine"] == asset and h["status"] == "handpay":
                resp = attendant.call("POST", f"/api/v1/jackpots/hits/{h['id']}/handpay", money=True)
                if resp.status_code == 409 and resp.json().get("type", "").endswith("two-signatures-required"):
                    resp = sign_queued_handpay(asset, "jackpot", h["id"])  # two signers, in the handpay queue
                    paid = paid or bool(resp is not None and resp.status_code == 200
                                        and resp.json().get("state") == "paid")
                elif _ok(resp, stats, "jackpot handpay"):
                    stats.add(handpays=1)
                    paid = True
        return paid

    def spin(c: Client, asset: str, bet: dict) -> httpx.Response:
        resp = c.call("POST", f"/api/v1/machines/{asset}/spin", bet, money=True)
        if resp.status_code == 409 and resp.json().get("type", "").endswith("machine-locked"):
            # a jackpot at or above the handpay threshold locked the machine: the attendant comes
            for _ in range(20):
                if settle_jackpot_handpays(asset):
                    break
                time.sleep(0.25)  # the award task may not have run yet
            resp = c.call("POST", f"/api/v1/machines/{asset}/spin", bet, money=True)
        return resp

    def report(c: Client, reporter: ReportingMachine, opt: dict) -> dict | None:
        """A machine-mode game: the machine decides, then reports the game (or its meters at game end)."""
        decided = reporter.next_report(opt)
        if decided is None:
            return None
        path, body, after = decided
        resp = c.call("POST", path, body, money=True)
        if resp.status_code == 409 and resp.json().get("type", "").endswith("machine-locked"):
            for _ in range(20):  # a jackpot handpay locked the machine: the attendant comes
                if settle_jackpot_handpays(reporter.asset):
                    break
                time.sleep(0.25)
            resp = c.call("POST", path, body, money=True)
        out = _ok(resp, stats, "game report" if path.endswith("/games") else "meters report")
        if out:
            reporter.accepted(after)
            rec = out.get("reconciliation") or {"balanced": True}
            stats.add(reported_games=1, reported_coin_in=out["bet"]["won"], reported_coin_out=out["total_win"],
                      meter_reports=int(path.endswith("/meters")), meter_mismatches=int(not rec["balanced"]))
        return out

    def play_spins(machine: dict, seed: int, progress, task) -> None:
        r = random.Random(seed)
        asset = machine["asset"]
        c = Client(base, keys[asset], stats)
        info = _ok(c.call("GET", f"/api/v1/machines/{asset}/meters"), stats, "meters")
        if info is None:
            return
        reporter = ReportingMachine(asset, info, seed) if asset in reporting else None
        denom = info["denomination"]
        options = info["bet_options"]
        credits = info["credits"]
        silent_at = spins // 2 if offline_after > 0 and machine is machines[0] else -1
        for i in range(spins):
            if i == silent_at:
                go_silent(asset)
            if r.random() < event_rate:
                report_events(c, asset, r)
            affordable = [o for o in options if o["credits"] * denom <= credits]
            if not affordable:
                try:
                    vn = tickets.get_nowait()
                except queue.Empty:
                    vn = None
                if vn is not None:
                    body = ticket_in(c, asset, vn, r)
                    if body:
                        stats.add(tickets_machine=1)
                        credits = body["credits"]
                if not [o for o in options if o["credits"] * denom <= credits]:  # a small ticket may not cover a bet
                    note = r.choice(NOTES if denom < 1000 else (50_000,))
                    for _ in range(1 if denom < 1000 else 10):
                        body = _ok(c.call("POST", f"/api/v1/machines/{asset}/bill-in", {"amount": note}, money=True), stats, "bill-in")
                        if body:
                            stats.add(bills_in=note)
                            credits = body["credits"]
                affordable = [o for o in options if o["credits"] * denom <= credits]
                if not affordable:  # the bill-in failed (counted as an error above)
                    progress.advance(task)
                    continue
            opt = r.choice(affordable)
            bet = {k: opt[k] for k in ("lines", "reels", "multiplier") if opt.get(k) is not None}
            if reporter is not None:  # the machine decides and reports (counted in report())
                body = report(c, reporter, opt)
            else:
                body = _ok(spin(c, asset, bet), stats, "spin")
                if body:  # jackpot awards are counted from the levels (on PostgreSQL they are paid after the spin)
                    stats.add(spins=1, coin_in=body["bet"]["won"], coin_out=body["total_win"])
            if body:
                credits = body["credits"]
            if credits > 0 and (r.random() < 0.01 or i == spins - 1):
                out = _ok(cash_out(c, asset), stats, "cash-out")
                if out:
                    credits = 0
                    take_tickets(out, r, last=i == spins - 1)
            progress.advance(task)

    def drain(machine: dict) -> None:
        """After play: pay any waiting handpay and cash the machine out (awards may have landed late)."""
        asset = machine["asset"]
        c = Client(base, keys[asset], stats)
        meters = _ok(c.call("GET", f"/api/v1/machines/{asset}/meters"), stats, "meters") or {}
        if meters.get("status") not in (None, "active"):
            settle_jackpot_handpays(asset)
            meters = _ok(c.call("GET", f"/api/v1/machines/{asset}/meters"), stats, "meters") or {}
        credits = meters.get("credits", 0) + meters.get("promo_credits", 0)
        if credits > 0:  # leave the machine empty: everything ends at the cage
            out = _ok(cash_out(c, asset), stats, "cash-out")
            if out:
                take_tickets(out, random.Random(0), last=True)

    def attend_alerts() -> None:
        """The attendant works the alert queue: acknowledge, then resolve, every active alert; then every alert the
        emulator raised (and every comms loss) must be resolved, by the attendant or by the system."""
        seen: set[int] = set()
        for _ in range(20):
            active = _ok(attendant.call("GET", "/api/v1/alerts?state=active&limit=500"), stats, "alerts") or {}
            todo = [a for a in active.get("alerts", []) if a["id"] not in seen]
            if not todo:
                break
            for a in todo:
                seen.add(a["id"])
                if a["kind"] == "comms_lost":
                    with stats.lock:
                        stats.raised.add(a["id"])
                if a["state"] == "open" and not _attended(
                        attendant.call("POST", f"/api/v1/alerts/{a['id']}/acknowledge"), stats, "alert acknowledge"):
                    continue  # the system resolved it first (its condition cleared meanwhile)
                if _attended(attendant.call("POST", f"/api/v1/alerts/{a['id']}/resolve", {"note": "emulator: attended"}),
                             stats, "alert resolve"):
                    stats.add(alerts_resolved=1)
        if stats.comms_losses:  # the silent machine's comms_lost alert, resolved by the system when it came back
            lost = _ok(attendant.call("GET", "/api/v1/alerts?kind=comms_lost&limit=500"), stats, "alerts") or {}
            with stats.lock:
                stats.raised.update(a["id"] for a in lost.get("alerts", []))
            if not lost.get("alerts"):
                stats.error("comms loss: the silent machine was not marked offline (is the run longer than the "
                            "server's SLOTSYS_MACHINE_OFFLINE_AFTER_S?)")
        everything = _ok(attendant.call("GET", "/api/v1/alerts?limit=500"), stats, "alerts") or {}
        by_id = {a["id"]: a for a in everything.get("alerts", [])}
        for aid in sorted(stats.raised):
            a = by_id.get(aid)
            if a is None:
                continue  # older than the last 500 alerts: not checked
            if a["state"] != "resolved":
                stats.error(f"alert {aid} ({a['kind']}) left {a['state']}")
            elif a["resolved_by"] == "system":
                stats.add(alerts_auto_resolved=1)

    def wait_for_sequencer(timeout: float = 15.0) -> None:
        """Wait until the jackpot sequencer has folded every wager (PostgreSQL; immediate on SQLite)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            q = auditor.call("GET", "/api/v1/jackpots/queue")
            if q.status_code != 200:
                return
            if q.json().get("pending", 0) == 0:
                hits = auditor.call("GET", "/api/v1/jackpots/hits?limit=100")
                if hits.status_code != 200 or not any(h["status"] in ("hit", "claimed") for h in hits.json()["hits"]):
                    return  # folded, and every award credited or waiting for its handpay
            time.sleep(0.3)
        stats.error("jackpot sequencer did not drain its queue within 15 s")

    modes = {}  # enrol each machine in the outcome source it plays with here, where it is not already
    for m in machines:
        info = httpx.get(f"{base}/api/v1/machines/{m['asset']}/meters", timeout=30,
                         headers={"Authorization": f"Bearer {m['key']}"}).json()
        want = "machine" if m["asset"] in reporting else "server"
        if info.get("outcome_source", "server") != want:
            modes[m["asset"]] = want
    if modes:
        set_modes(modes)
    levels_before = level_totals()
    with Progress(TextColumn("[bold]floor"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task("spins", total=len(machines) * spins)
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            futures = [pool.submit(play_spins, m, rnd.randrange(2**32), progress, task) for m in machines]
            for f in futures:
                try:
                    f.result()
                except Exception as e:  # a crashed machine thread is an error, not a silent stop
                    stats.error(f"emulator: {type(e).__name__}: {e}")
    wait_for_sequencer()
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for f in [pool.submit(drain, m) for m in machines]:
            try:
                f.result()
            except Exception as e:
                stats.error(f"emulator: {type(e).__name__}: {e}")
    wait_for_sequencer()
    while not tickets.empty():
        vn = tickets.get_nowait()
        if vn not in promo_tickets:  # promotional tickets are not cashable at the cage: they stay outstanding
            redeem_at_cage(vn)

    attend_alerts()
    unreconciled = []
    for asset in sorted(reporting):  # the machines' meters against the host's: zero difference expected
        rec = _ok(auditor.call("GET", f"/api/v1/machines/{asset}/reconciliation"), stats, "reconciliation")
        if rec is not None and rec["balanced"] is False:
            unreconciled.append(asset)
            stats.error(f"reconciliation {asset}: {rec['mismatches']}")
    levels_after = level_totals()
    for code, (hits, won) in levels_after.items():
        h0, w0 = levels_before.get(code, (0, 0))
        stats.add(jackpot_hits=hits - h0, jackpot_won=won - w0)
    audit = _ok(auditor.call("GET", "/api/v1/audit/ledger"), stats, "audit") or {}
    t = Table(title="Floor emulator summary")
    t.add_column("figure")
    t.add_column("value", justify="right")
    coin_in, coin_out = stats.coin_in + stats.reported_coin_in, stats.coin_out + stats.reported_coin_out
    rtp = (coin_out + stats.jackpot_won) / coin_in if coin_in else 0.0
    for k, v in [
        ("machines (server-decided / machine-reported)", f"{len(machines) - len(reporting)} / {len(reporting)}"),
        ("server-decided spins", stats.spins), ("coin-in, server-decided", f"₩{stats.coin_in:,}"),
        ("coin-out (game wins), server-decided", f"₩{stats.coin_out:,}"),
        ("machine-reported games (of which meters at game end)", f"{stats.reported_games} ({stats.meter_reports})"),
        ("coin-in, machine-reported", f"₩{stats.reported_coin_in:,}"),
        ("coin-out (game wins), machine-reported", f"₩{stats.reported_coin_out:,}"),
        ("meter mismatches reported / machines unreconciled", f"{stats.meter_mismatches} / {len(unreconciled)}"),
        ("jackpot hits", stats.jackpot_hits),
        ("jackpot won", f"₩{stats.jackpot_won:,}"), ("observed RTP (incl. jackpots)", f"{rtp:.2%}"),
        ("bills in", f"₩{stats.bills_in:,}"), ("tickets issued", stats.tickets_issued),
        ("tickets redeemed at the cage", stats.tickets_cage), ("tickets redeemed at a kiosk", stats.tickets_kiosk),
        ("tickets inserted into another machine", stats.tickets_machine),
        ("ticket-ins rejected (given back)", stats.tickets_rejected), ("handpays", stats.handpays), ("kiosk out of cash (went to the cage)", stats.kiosk_empty),
        ("machine events reported", stats.events), ("comms losses emulated (a machine silent)", stats.comms_losses),
        ("alerts raised", len(stats.raised)), ("alerts resolved by the attendant", stats.alerts_resolved),
        ("alerts resolved by the system (condition cleared)", stats.alerts_auto_resolved),
        ("busy answers retried (503/429 Retry-After)", stats.shed_retries), ("errors", sum(stats.errors.values())),
        ("ledger balanced", audit.get("balanced")), ("journal entries", audit.get("journal_entries")),
    ]:
        t.add_row(k, str(v))
    console.print(t)
    for what, n in stats.errors.most_common(10):
        console.print(f"[red]error ×{n}: {what}[/red]")
    return 0 if not stats.errors and audit.get("balanced") is True else 1
