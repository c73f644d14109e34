"""Players API: the player club, the cage and the pit (staff), the player (player token), and the
machine side of carded play (machine key). Thin routes: the rules are in the services.

Money-moving and points-moving POSTs need an ``Idempotency-Key``; those spending a player's
money or points also need the card number and PIN.
"""

from __future__ import annotations

from typing import Annotated, Literal

from apiflask import APIBlueprint
from pydantic import Field

from slotsys.kernel.api.common import (
    AUTH_DOC,
    Limit,
    QueryModel,
    StrictModel,
    Won,
    once_key,
    player_token_hook,
    principal,
    reply_once,
    services,
)
from slotsys.kernel.context import Principal
from slotsys.players.services.aft import AftService
from slotsys.players.services.players import PlayerService, TablePlay
from slotsys.players.services.sessions import SessionService
from slotsys.kernel.api.contract import answers
from slotsys.players.services.results import (
    AftTransferView, CardInResult, CardIssued, CardOutResult, CardView, MachineSession, PlayerHistory, PlayerToken, PlayerView,
    PointsExpiry, PointsJournalPage, ProgramConfig, ProgramView, RedemptionCancelled, RedemptionCompleted,
    RedemptionHold, RuleView, TableRating, TierView, TransferResult, WalletMovement, WalletRedemption,
    WalletStatement,
)


bp = APIBlueprint("players", __name__, url_prefix="/api/v1/players", tag="Players")
machines_bp = APIBlueprint("player_machines", __name__, url_prefix="/api/v1/machines", tag="Players at machines")

CardNumber = Annotated[str, Field(min_length=1, max_length=32, description="16-digit card number")]
Pin = Annotated[str, Field(min_length=1, max_length=12, description="4-6 digits")]
Points = Annotated[int, Field(strict=True, gt=0, le=10**9, description="whole points")]
Count = Annotated[int, Field(strict=True, ge=0, le=10**12)]


def players() -> PlayerService:
    return services().players


def sessions() -> SessionService:
    return services().sessions


def aft() -> AftService:
    return services().aft


# Endpoints a player may call with their own token (``pl_…``, from /players/login).
PLAYER_ENDPOINTS = {"players.view", "players.session_history", "players.points", "players.statement",
                    "players.card_lost"}


bp.before_app_request(player_token_hook(PLAYER_ENDPOINTS))


def caller() -> Principal:
    """The player (player token) or the usual machine key / staff token."""
    return principal()


# ------------------------------------------------------------------ models
class EnrolIn(StrictModel):
    name: str
    pin: Pin


class PinIn(StrictModel):
    pin: Pin


class CardIn(StrictModel):
    card_number: CardNumber


class LoginIn(StrictModel):
    card_number: CardNumber
    pin: Pin


class AmountIn(StrictModel):
    amount: Won


class WithdrawIn(StrictModel):
    card_number: CardNumber
    pin: Pin
    amount: Won


class RedeemIn(StrictModel):
    card_number: CardNumber
    pin: Pin
    points: Points
    kind: Literal["promo", "cash"]


class RatingIn(StrictModel):
    table: str
    area: str
    game: str
    average_bet: Won
    minutes: Annotated[int, Field(strict=True, gt=0, le=24 * 60)]
    decisions_per_hour: Annotated[int, Field(strict=True, gt=0, le=1_000)]
    house_edge_ppm: Annotated[int, Field(strict=True, gt=0, lt=1_000_000)]


class TransferIn(StrictModel):
    card_number: CardNumber
    pin: Pin
    amount: Won
    kind: Literal["cashable", "promo"] = "cashable"


class AftIn(StrictModel):
    card_number: CardNumber
    pin: Pin
    amount: Won


class AftResolveIn(StrictModel):
    outcome: Literal["completed", "failed"]
    moved: Won | None = None
    reason: str = Field(min_length=1, max_length=200)


class CashOutIn(StrictModel):
    card_number: CardNumber
    pin: Pin


class ProgramIn(StrictModel):
    points_idle_days: Count | None = None
    promo_won_per_point: Count | None = None
    cash_won_per_point: Count | None = None
    per_transfer_max_won: Count | None = None
    daily_to_machine_max_won: Count | None = None
    daily_to_wallet_max_won: Count | None = None
    redemption_hold_seconds: Count | None = None


class RuleIn(StrictModel):
    scope: Literal["default", "zone", "machine", "table"]
    key: Annotated[str, Field(max_length=40)] = ""
    basis: Literal["coin_in", "theo"]
    won_per_point: Annotated[int, Field(strict=True, gt=0, le=10**9)]


class TierIn(StrictModel):
    name: str
    threshold_points: Count
    multiplier_permille: Annotated[int, Field(strict=True, gt=0, le=100_000)]


class FindQuery(QueryModel):
    card_number: CardNumber | None = None


class ListQuery(QueryModel):
    limit: Limit(500) = 50


class PointsQuery(QueryModel):
    limit: Limit(500) = 100


class StatementQuery(ListQuery):
    wallet: Literal["cashable", "promo"] = "cashable"
    cursor: Annotated[str, Field(max_length=40, pattern=r"^[0-9]{1,19}-[0-9]{1,19}$",
                                 description="next_cursor of the previous page")] | None = None


# ------------------------------------------------------------------ player club, cage, pit
@bp.post("")
@bp.input(EnrolIn, arg_name="body")
@bp.doc(summary="Enrol a player with a card and PIN (host); needs Idempotency-Key", **AUTH_DOC)
@answers(CardIssued, status=201, once=True)
def enrol(body: EnrolIn):
    key = once_key("players", [body.name], status=201)
    return reply_once(players().enrol(principal(), body.name, body.pin, key), status=201)


@bp.get("")
@bp.input(FindQuery, location="query", arg_name="query")
@bp.doc(summary="Find a player by card number: ?card_number= (host, cashier, pit, auditor)", **AUTH_DOC)
@answers(PlayerView)
def find(query: FindQuery):
    return players().find_by_card(principal(), query.card_number).model_dump(mode="json")


@bp.post("/login")
@bp.input(LoginIn, arg_name="body")
@bp.doc(summary="Player login with card number + PIN: a read-only player token (pl_…)")
@answers(PlayerToken, throttled=True)
def login(body: LoginIn):
    return players().login(body.card_number, body.pin).model_dump(mode="json")


@bp.get("/config")
@bp.doc(summary="Program settings, tiers and accrual rules (host, pit, auditor)", **AUTH_DOC)
@answers(ProgramConfig)
def config():
    return players().config(principal()).model_dump(mode="json")


@bp.patch("/config/program")
@bp.input(ProgramIn, arg_name="body")
@bp.doc(summary="Change program settings: rates, limits, idle days, hold time (admin)", **AUTH_DOC)
@answers(ProgramView)
def update_program(body: ProgramIn):
    return players().update_program(principal(), body.model_dump(exclude_none=True)).model_dump(mode="json")


@bp.put("/config/rules")
@bp.input(RuleIn, arg_name="body")
@bp.doc(summary="Create or replace the accrual rule of a scope (admin)", **AUTH_DOC)
@answers(RuleView)
def put_rule(body: RuleIn):
    return players().put_rule(principal(), body.scope, body.key, body.basis, body.won_per_point).model_dump(mode="json")


@bp.put("/config/tiers/<code>")
@bp.input(TierIn, arg_name="body")
@bp.doc(summary="Create or change a tier (admin)", **AUTH_DOC)
@answers(TierView)
def put_tier(code: str, body: TierIn):
    tier = players().put_tier(principal(), code[:20], body.name, body.threshold_points, body.multiplier_permille)
    return tier.model_dump(mode="json")


@bp.post("/expire-points")
@bp.doc(summary="Expire the points of idle players now (admin; also done on each player's next activity)", **AUTH_DOC)
@answers(PointsExpiry)
def expire_points():
    return players().expire_idle(principal()).model_dump(mode="json")


@bp.post("/cards/<card_number>/lost")
@bp.doc(summary="Report a card lost (host, or the card's player)", **AUTH_DOC)
@answers(CardView)
def card_lost(card_number: str):
    return players().set_card_status(caller(), card_number, "lost").model_dump(mode="json")


@bp.post("/cards/<card_number>/unblock")
@bp.doc(summary="Unblock a card blocked by wrong PINs (host)", **AUTH_DOC)
@answers(CardView)
def card_unblock(card_number: str):
    return players().set_card_status(principal(), card_number, "unblock").model_dump(mode="json")


@bp.get("/<int:player_id>")
@bp.doc(summary="Balance, points, tier, cards and open session (the player, or host/cashier/pit/auditor)", **AUTH_DOC)
@answers(PlayerView)
def view(player_id: int):
    return players().view(caller(), player_id).model_dump(mode="json")


@bp.get("/<int:player_id>/sessions")
@bp.input(ListQuery, location="query", arg_name="query")
@bp.doc(summary="Session history: machine sessions with meters, table ratings, transfers; ?limit=1..500 (default 50)",
        **AUTH_DOC)
@answers(PlayerHistory)
def session_history(player_id: int, query: ListQuery):
    return players().sessions(caller(), player_id, query.limit).model_dump(mode="json")


@bp.get("/<int:player_id>/points")
@bp.input(PointsQuery, location="query", arg_name="query")
@bp.doc(summary="The points journal (milli-points); ?limit=1..500 (default 100)", **AUTH_DOC)
@answers(PointsJournalPage)
def points(player_id: int, query: PointsQuery):
    return players().points(caller(), player_id, query.limit).model_dump(mode="json")


@bp.get("/<int:player_id>/statement")
@bp.input(StatementQuery, location="query", arg_name="query")
@bp.doc(summary="Ledger entries on the wallet, newest first: ?wallet=cashable|promo&limit=1..500 (default 50); "
                "older pages by ?cursor= (the answer's next_cursor)", **AUTH_DOC)
@answers(WalletStatement)
def statement(player_id: int, query: StatementQuery):
    return players().statement(caller(), player_id, query.wallet, query.limit, query.cursor).model_dump(mode="json")


@bp.post("/<int:player_id>/cards")
@bp.input(PinIn, arg_name="body")
@bp.doc(summary="Issue a replacement card with a new PIN (host); needs Idempotency-Key", **AUTH_DOC)
@answers(CardIssued, status=201, once=True)
def issue_card(player_id: int, body: PinIn):
    key = once_key(f"players/{player_id}/cards", status=201)
    return reply_once(players().issue_card(principal(), player_id, body.pin, key),
                      status=201)


@bp.post("/<int:player_id>/deposit")
@bp.input(AmountIn, arg_name="body")
@bp.doc(summary="Cash into the cashable wallet from the cashier's drawer (cashier); needs Idempotency-Key", **AUTH_DOC)
@answers(WalletMovement, once=True)
def deposit(player_id: int, body: AmountIn):
    key = once_key(f"players/{player_id}/deposit", body.amount)
    return reply_once(players().deposit(principal(), player_id, body.amount, key))


@bp.post("/<int:player_id>/withdraw")
@bp.input(WithdrawIn, arg_name="body")
@bp.doc(summary="Cash out of the cashable wallet (cashier; card + PIN); needs Idempotency-Key", **AUTH_DOC)
@answers(WalletMovement, once=True, throttled=True)
def withdraw(player_id: int, body: WithdrawIn):
    key = once_key(f"players/{player_id}/withdraw", body.amount)
    return reply_once(players().withdraw(principal(), player_id, body.card_number, body.pin, body.amount, key))


@bp.post("/<int:player_id>/redeem")
@bp.input(RedeemIn, arg_name="body")
@bp.doc(summary="Redeem points to the promo or cashable wallet (host, cashier; card + PIN); needs Idempotency-Key",
        **AUTH_DOC)
@answers(WalletRedemption, status=201, once=True, throttled=True)
def redeem(player_id: int, body: RedeemIn):
    key = once_key(f"players/{player_id}/redeem", [body.points, body.kind], status=201)
    return reply_once(players().redeem_to_wallet(principal(), player_id, body.card_number, body.pin, body.points,
                                                 body.kind, key), status=201)


@bp.post("/<int:player_id>/ratings")
@bp.input(RatingIn, arg_name="body")
@bp.doc(summary="Rate table play into theoretical win and points (pit); needs Idempotency-Key", **AUTH_DOC)
@answers(TableRating, status=201, once=True)
def rate(player_id: int, body: RatingIn):
    play = body.model_dump()
    key = once_key(f"players/{player_id}/ratings", play, status=201)
    return reply_once(players().rate(principal(), player_id, TablePlay(**play), key), status=201)


# ------------------------------------------------------------------ at a machine (machine key)
@machines_bp.post("/<asset>/card-in")
@machines_bp.input(CardIn, arg_name="body")
@machines_bp.doc(summary="A player card is inserted: open a session; needs Idempotency-Key", **AUTH_DOC)
@answers(CardInResult, status=201, once=True)
def card_in(asset: str, body: CardIn):
    key = once_key(f"card-in/{asset}", str(body.card_number), status=201)
    return reply_once(sessions().card_in(principal(), asset, body.card_number, key), status=201)


@machines_bp.post("/<asset>/card-out")
@machines_bp.doc(summary="The card is removed (or an attendant/host ends an abandoned session); needs Idempotency-Key",
                 **AUTH_DOC)
@answers(CardOutResult, once=True)
def card_out(asset: str):
    return reply_once(sessions().card_out(principal(), asset, once_key(f"card-out/{asset}")))


@machines_bp.get("/<asset>/session")
@machines_bp.doc(summary="The machine's carded session, if any", **AUTH_DOC)
@answers(MachineSession)
def current_session(asset: str):
    return sessions().current(principal(), asset).model_dump(mode="json")


@machines_bp.post("/<asset>/wallet/to-machine")
@machines_bp.input(TransferIn, arg_name="body")
@machines_bp.doc(summary="Cashless transfer wallet → machine (card + PIN); needs Idempotency-Key", **AUTH_DOC)
@answers(TransferResult, once=True, throttled=True)
def to_machine(asset: str, body: TransferIn):
    key = once_key(f"wallet/to_machine/{asset}", [str(body.card_number), body.amount, body.kind])
    return reply_once(sessions().to_machine(principal(), asset, body.card_number, body.pin, body.amount, body.kind,
                                            key))


@machines_bp.post("/<asset>/wallet/to-wallet")
@machines_bp.input(TransferIn, arg_name="body")
@machines_bp.doc(summary="Cashless transfer machine → wallet (card + PIN); needs Idempotency-Key", **AUTH_DOC)
@answers(TransferResult, once=True, throttled=True)
def to_wallet(asset: str, body: TransferIn):
    key = once_key(f"wallet/to_wallet/{asset}", [str(body.card_number), body.amount, body.kind])
    return reply_once(sessions().to_wallet(principal(), asset, body.card_number, body.pin, body.amount, body.kind, key))


@machines_bp.post("/<asset>/wallet/cash-out")
@machines_bp.input(CashOutIn, arg_name="body")
@machines_bp.doc(summary="Cash out every credit to the carded player's wallet instead of a ticket; needs Idempotency-Key",
                 **AUTH_DOC)
@answers(TransferResult, once=True, throttled=True)
def cash_out_to_wallet(asset: str, body: CashOutIn):
    key = once_key(f"cash-out-to-wallet/{asset}", [str(body.card_number), None, "cashable"])
    return reply_once(sessions().cash_out_to_wallet(principal(), asset, body.card_number, body.pin, key))


@machines_bp.post("/<asset>/redemptions")
@machines_bp.input(RedeemIn, arg_name="body")
@machines_bp.doc(summary="Phase 1: hold points for credits on this machine (card + PIN); needs Idempotency-Key",
                 **AUTH_DOC)
@answers(RedemptionHold, status=201, once=True, throttled=True)
def redeem_request(asset: str, body: RedeemIn):
    key = once_key(f"redemptions/{asset}", [str(body.card_number), body.points, body.kind], status=201)
    return reply_once(sessions().redeem_request(principal(), asset, body.card_number, body.pin, body.points, body.kind,
                                                key), status=201)


@machines_bp.post("/<asset>/redemptions/<int:redemption_id>/ack")
@machines_bp.doc(summary="Phase 2: the machine took the credits; the points are debited; needs Idempotency-Key",
                 **AUTH_DOC)
@answers(RedemptionCompleted, once=True)
def redeem_ack(asset: str, redemption_id: int):
    key = once_key(f"redemptions/{asset}/{redemption_id}/ack")
    return reply_once(sessions().redeem_ack(principal(), asset, redemption_id, key))


@machines_bp.post("/<asset>/redemptions/<int:redemption_id>/cancel")
@machines_bp.doc(summary="The machine could not take the credits: release the hold; needs Idempotency-Key", **AUTH_DOC)
@answers(RedemptionCancelled, once=True)
def redeem_cancel(asset: str, redemption_id: int):
    key = once_key(f"redemptions/{asset}/{redemption_id}/cancel")
    return reply_once(sessions().redeem_cancel(principal(), asset, redemption_id, key))


# ------------------------------------------------------------------ AFT at a SAS machine (machine key)
@machines_bp.post("/<asset>/aft/to-machine")
@machines_bp.input(AftIn, arg_name="body")
@machines_bp.doc(summary="AFT wallet → SAS machine (card + PIN): holds the money, the SAS host sends it; needs "
                 "Idempotency-Key", **AUTH_DOC)
@answers(AftTransferView, status=202, once=True, throttled=True)
def aft_to_machine(asset: str, body: AftIn):
    key = once_key(f"aft/to_machine/{asset}", [str(body.card_number), body.amount], status=202)
    return reply_once(aft().request(principal(), asset, body.card_number, body.pin, body.amount, "to_machine", key),
                      status=202)


@machines_bp.post("/<asset>/aft/to-wallet")
@machines_bp.input(AftIn, arg_name="body")
@machines_bp.doc(summary="AFT SAS machine → wallet (card + PIN): the SAS host takes the credits; needs "
                 "Idempotency-Key", **AUTH_DOC)
@answers(AftTransferView, status=202, once=True, throttled=True)
def aft_to_wallet(asset: str, body: AftIn):
    key = once_key(f"aft/to_wallet/{asset}", [str(body.card_number), body.amount], status=202)
    return reply_once(aft().request(principal(), asset, body.card_number, body.pin, body.amount, "to_wallet", key),
                      status=202)


@machines_bp.post("/<asset>/aft/<int:transfer_id>/resolve")
@machines_bp.input(AftResolveIn, arg_name="body")
@machines_bp.doc(summary="Supervisor: settle a sent AFT transfer the SAS host never reported, from the machine's AFT "
                 "log (completed with the won moved, or failed); needs Idempotency-Key", **AUTH_DOC)
@answers(AftTransferView, once=True)
def aft_resolve(asset: str, transfer_id: int, body: AftResolveIn):
    key = once_key(f"aft/{asset}/{transfer_id}/resolve", body.model_dump())
    return reply_once(aft().resolve(principal(), asset, transfer_id, body.outcome, body.moved, body.reason, key))


@machines_bp.get("/<asset>/aft/<int:transfer_id>")
@machines_bp.doc(summary="An AFT transfer's state: pending, sent, completed, failed or expired", **AUTH_DOC)
@answers(AftTransferView)
def aft_transfer(asset: str, transfer_id: int):
    return aft().get(principal(), asset, transfer_id).model_dump(mode="json")
