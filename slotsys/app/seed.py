"""The demo floor: zones VIP and MASS, 20 machines of our two games, staff users, the cage
float and the casino's mystery jackpot system (``DEMO_LEVELS``). Idempotent: seeding a seeded database does nothing
except (optionally) re-issuing credentials."""

from __future__ import annotations

import secrets

from jackpot_controller.domain.levels import LevelParams
from jackpot_controller.services.levels import create_level
from slotsys.floor.domain.machine import Machine
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.security import hash_password, new_token, token_digest
from slotsys.floor.services.admin import create_bank, create_zone, enrol_machine, machine_accounts
from slotsys.players.services.players import reissue_demo_pins, seed_loyalty
from slotsys.app.wiring.tables import ControllerTableLevels
from table_games.services.mahjong import seed_mahjong
from table_games.services.poker_room import seed_poker_tables
from table_games.services.tables import seed_tables
from slotsys.kernel.accounts import MAIN_CAGE

LINE_GAME = "dragon_pearl_50"
WAYS_GAME = "tiger_reels_243"

# asset, zone, bank, denomination (won per credit), game
DEMO_MACHINES = (
    [(f"V{n:03d}", "VIP", "V1" if n <= 5 else "V2", 1_000, LINE_GAME if n % 2 else WAYS_GAME) for n in range(1, 11)]
    + [(f"M{n:03d}", "MASS", f"M{(n - 1) // 5 + 1}", 100, LINE_GAME if n % 2 else WAYS_GAME) for n in range(1, 21)]
)
DEMO_ZONES = (("VIP", "VIP zone"), ("MASS", "Mass zone"))
# bank, zone: each bank is one row of the demo floor plan (y = 2 × its index, x = the machine's place in it)
DEMO_BANKS = (("V1", "VIP"), ("V2", "VIP"), ("M1", "MASS"), ("M2", "MASS"), ("M3", "MASS"), ("M4", "MASS"))
DEMO_STAFF = (("operator", "operator"), ("cashier", "cashier"), ("attendant", "attendant"), ("auditor", "auditor"), ("admin", "admin"),
              ("supervisor", "supervisor"), ("kiosk1", "kiosk"), ("host", "host"), ("pit", "pit"))

# The casino's mystery system: (code, name, params). Ranges are the casino's; rates are
# ppm of every qualifying wager (1% = 10,000). Mass Minor comes first (the oldest level).
# Premium is operator-configured: seeded at ₩1,000,000 - ₩3,000,000, edit it with PATCH.
DEMO_LEVELS = (
    ("MASS_MINOR", "Minor", LevelParams("mystery", reset=30_000, ceiling=100_000, rate_ppm=5_000, scope="zone", zone="MASS")),
    ("MASS_MAJOR", "Major", LevelParams("mystery", reset=300_000, ceiling=1_000_000, rate_ppm=3_000, scope="zone",
                                        zone="MASS")),
    ("MASS_GRAND", "Grand", LevelParams("mystery", reset=5_000_000, ceiling=10_000_000, rate_ppm=2_000, scope="zone",
                                        zone="MASS", reserve_rate_ppm=500)),
    ("VIP_DRAGON", "Dragon", LevelParams("mystery", reset=30_000_000, ceiling=50_000_000, rate_ppm=3_000, scope="zone",
                                         zone="VIP", reserve_rate_ppm=500)),
    ("VIP_TIGER", "Tiger", LevelParams("mystery", reset=30_000_000, ceiling=50_000_000, rate_ppm=2_000, scope="zone",
                                       zone="VIP", reserve_rate_ppm=500)),
    ("VIP_PHOENIX", "Phoenix", LevelParams("mystery", reset=30_000_000, ceiling=50_000_000, rate_ppm=1_000,
                                           scope="zone", zone="VIP", reserve_rate_ppm=500)),
    ("MEGA", "Mega", LevelParams("mystery", reset=10_000_000, ceiling=100_000_000, rate_ppm=1_000, scope="floor",
                                 reserve_rate_ppm=500)),
    ("PREMIUM", "Premium", LevelParams("mystery", reset=1_000_000, ceiling=3_000_000, rate_ppm=1_000, scope="floor")),
)


def add_machine(uow, asset: str, zone: str, bank: str, denomination: int, game: str) -> str:
    """Create a machine with its ledger accounts, without the enrolment checks or audit (bench and load tests put
    hundreds of machines in banks that need not exist); returns its new key (shown once). The floor's own machines
    are enrolled through ``slotsys.floor.services.admin``."""
    key = new_token("mk")
    uow.machines.add(Machine(asset_number=asset, zone=zone, bank=bank, denomination=denomination, game_id=game,
                             variation="", key_hash=token_digest(key)))
    machine_accounts(uow, asset)
    return key


def seed_demo(services) -> dict | None:
    """Seed an empty database through the process's ``services`` (``slotsys.app.bootstrap.Services``); returns the
    credentials, or None if already seeded."""
    ctx, auth, tito = services.ctx, services.auth, services.tito
    with ctx.uow() as uow:
        if uow.machines.zones():
            return None
        for code, name in DEMO_ZONES:  # zones, banks and machines through floor administration (audited)
            create_zone(uow, None, code, name)
        for code, zone in DEMO_BANKS:
            create_bank(uow, None, code, f"Bank {code}", zone, "S" if zone == "VIP" else "N")
        uow.ledger.ensure_account(accounts.TICKETS_OUTSTANDING, L.AccountType.LIABILITY, non_negative=True)
        uow.ledger.ensure_account(accounts.HOUSE_CAPITAL, L.AccountType.EQUITY)
        uow.ledger.ensure_account(accounts.cage_bank(MAIN_CAGE), L.AccountType.ASSET, non_negative=True)
        uow.ledger.post(
            L.EntryBuilder("cage.float", "opening float of the main cage")
            .add(debit=accounts.cage_bank(MAIN_CAGE), credit=accounts.HOUSE_CAPITAL, amount=ctx.settings.cage_opening_float_won)
            .build({"cage": MAIN_CAGE})
        )
        machines, placed = [], {}
        for a, z, b, d, g in DEMO_MACHINES:
            row = [code for code, _ in DEMO_BANKS].index(b)
            x = placed[b] = placed.get(b, -1) + 1
            _, key = enrol_machine(uow, ctx, None, {"asset_number": a, "bank": b, "zone": z, "game": g,
                                                    "denomination": d, "x": x, "y": 2 * row,
                                                    "reason": "demo floor"}, tickets=tito.desk)
            machines.append({"asset": a, "zone": z, "game": g, "denomination": d, "key": key})
        staff = []
        for username, role in DEMO_STAFF:
            password = secrets.token_urlsafe(9)
            auth.create_user(uow, username, password, role)
            staff.append({"username": username, "password": password, "role": role})
        for code, name, params in DEMO_LEVELS:  # the mystery system (jackpot controller)
            create_level(uow, code=code, name=name, params=params, rng=ctx.rng)
        tito.setup.seed(uow, cashier="cashier", kiosks=[u for u, role in DEMO_STAFF if role == "kiosk"])
        players = seed_loyalty(uow, ctx)  # program, tiers, accrual rules, demo players (card + PIN)
        seed_tables(uow, ControllerTableLevels(ctx))  # one demo table per game (table_games)
        seed_poker_tables(uow)  # the demo poker room
        seed_mahjong(uow)  # the demo mahjong tables
        uow.commit()
    return {"staff": staff, "machines": machines, "players": players}


def reissue_credentials(services, *, announce: bool = True) -> dict:
    """New machine keys and staff passwords for the whole demo floor (the old ones stop working). With
    ``announce`` the old keys and the staff users' tokens are announced on the revocation bus after the commit, so
    every node (and every open stream: docs/streams.md) refuses them within ~1 s instead of after its machine-key
    cache (``auth_cache_s``)."""
    ctx, auth = services.ctx, services.auth
    creds: dict = {"staff": [], "machines": []}
    revoked: list[str] = []
    with ctx.uow() as uow:
        for m in uow.machines.all():
            key = new_token("mk")
            revoked.append(f"token:{m.key_hash}")
            m.key_hash = token_digest(key)
            if m.validation_scheme == "sas":  # re-enrolment: a new SAS validation ID and sequence (CSPRNG)
                services.tito.desk.new_machine_secret(uow, m, actor="system:reissue",
                                                      reason="re-enrolment: new machine key")
            creds["machines"].append({"asset": m.asset_number, "zone": m.zone, "game": m.game_id,
                                      "denomination": m.denomination, "key": key})
        for username, role in DEMO_STAFF:
            user = uow.staff.by_username(username)
            if user is None:
                continue
            password = secrets.token_urlsafe(9)
            user.password_hash = hash_password(password)
            uow.staff.revoke_user_tokens(user.id)  # a new password ends every session (docs/staff-auth.md)
            revoked.append(f"user:{user.id}")
            creds["staff"].append({"username": username, "password": password, "role": role})
        creds["players"] = reissue_demo_pins(uow)
        uow.commit()
    if announce:
        for message in revoked:
            auth.announce_revoked(message)
    return creds
