"""Floor administration API (docs/floor-administration.md): machines, zones, banks and the floor plan.

Staff only: operator enrols / edits / enables / disables / moves / re-games machines and creates / renames zones
and banks; admin also rotates machine keys and retires machines, zones and banks; operator, attendant and
auditor read. Routes only parse; ``slotsys.floor.services.admin`` decides.
"""

from __future__ import annotations

from typing import Annotated, Literal

from apiflask import APIBlueprint
from pydantic import Field

from slotsys.kernel.api.common import AUTH_DOC, QueryModel, StrictModel, principal, services
from slotsys.floor.services.admin import (
    BankList, BankRecord, EnrolledMachine, FloorPlan, MachineDetail, MachineKey, MachineList, MachineRecord,
    RetiredMachine, ZoneList, ZoneRecord,
)
from slotsys.kernel.api.contract import answers


bp = APIBlueprint("floor_admin", __name__, url_prefix="/api/v1", tag="Floor administration")

Amount = Annotated[int, Field(strict=True, ge=0, le=10**12, description="integer won")]
Cell = Annotated[int, Field(strict=True, ge=0, le=999, description="floor-plan grid cell")]
Denom = Annotated[int, Field(strict=True, ge=1, le=1_000_000, description="won per credit")]
Text = Annotated[str, Field(max_length=200)]


class EnrolIn(StrictModel):
    asset_number: Text
    bank: Text
    zone: Text | None = None
    game: Text
    variation: Text | None = None
    denomination: Denom
    denominations: Annotated[list[Denom], Field(max_length=16)] | None = None
    max_bet: Amount | None = None
    credit_limit: Amount | None = None
    x: Cell | None = None
    y: Cell | None = None
    serial: Text | None = None
    manufacturer: Text | None = None
    model: Text | None = None
    validation_scheme: Text | None = None
    outcome_source: Literal["server", "machine"] | None = None
    reason: Text | None = None


class MachinePatch(StrictModel):
    serial: Text | None = None
    manufacturer: Text | None = None
    model: Text | None = None
    max_bet: Amount | None = None
    credit_limit: Amount | None = None
    x: Cell | None = None
    y: Cell | None = None
    outcome_source: Literal["server", "machine"] | None = None
    reason: Text | None = None


class ReasonIn(StrictModel):
    reason: Text


class MoveIn(StrictModel):
    bank: Text
    zone: Text | None = None
    x: Cell | None = None
    y: Cell | None = None
    reason: Text


class GameIn(StrictModel):
    game: Text | None = None
    variation: Text | None = None
    denomination: Denom | None = None
    denominations: Annotated[list[Denom], Field(max_length=16)] | None = None
    max_bet: Amount | None = None
    reason: Text


class ZoneIn(StrictModel):
    code: Text
    name: Text


class ZonePatch(StrictModel):
    name: Text | None = None
    retired: bool | None = None
    reason: Text | None = None


class BankIn(StrictModel):
    code: Text
    name: Text
    zone: Text
    orientation: Text | None = None


class BankPatch(StrictModel):
    name: Text | None = None
    orientation: Text | None = None
    retired: bool | None = None
    reason: Text | None = None


class MachinesQuery(QueryModel):
    include_retired: bool = False
    zone: str | None = None
    bank: str | None = None


class BanksQuery(QueryModel):
    zone: str | None = None


def _svc():
    return services().floor_admin


def _set(body: StrictModel) -> dict:
    return body.model_dump(exclude_unset=True)


@bp.post("/machines")
@bp.input(EnrolIn, arg_name="body")
@bp.doc(summary="Enrol a machine; its key is returned once (operator)", **AUTH_DOC)
@answers(EnrolledMachine, status=201)
def enrol(body: EnrolIn):
    return _svc().enrol(principal(), _set(body)).model_dump(mode="json"), 201


@bp.get("/machines")
@bp.input(MachinesQuery, location="query", arg_name="query")
@bp.doc(summary="Machines on the floor (operator, attendant, auditor)", **AUTH_DOC)
@answers(MachineList)
def list_machines(query: MachinesQuery):
    machines = _svc().list_machines(principal(), include_retired=query.include_retired, zone=query.zone,
                                    bank=query.bank)
    return machines.model_dump(mode="json")


@bp.get("/machines/<asset>")
@bp.doc(summary="A machine's record and meter snapshots (operator, attendant, auditor)", **AUTH_DOC)
@answers(MachineDetail)
def get_machine(asset: str):
    return _svc().get_machine(principal(), asset).model_dump(mode="json")


@bp.patch("/machines/<asset>")
@bp.input(MachinePatch, arg_name="body")
@bp.doc(summary="Edit serial, manufacturer, model, max bet, credit limit, floor-plan cell (operator)", **AUTH_DOC)
@answers(MachineRecord)
def update_machine(asset: str, body: MachinePatch):
    return _svc().update(principal(), asset, _set(body)).model_dump(mode="json")


@bp.post("/machines/<asset>/key")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Rotate the machine's key: the new one is returned once, the old one stops at once (admin)",
        **AUTH_DOC)
@answers(MachineKey)
def rotate_key(asset: str, body: ReasonIn):
    return _svc().rotate_key(principal(), asset, body.reason).model_dump(mode="json")


@bp.post("/machines/<asset>/enable")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Enable a disabled machine (operator)", **AUTH_DOC)
@answers(MachineRecord)
def enable(asset: str, body: ReasonIn):
    return _svc().enable(principal(), asset, body.reason).model_dump(mode="json")


@bp.post("/machines/<asset>/disable")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Disable a machine with a reason: it refuses play until enabled (operator)", **AUTH_DOC)
@answers(MachineRecord)
def disable(asset: str, body: ReasonIn):
    return _svc().disable(principal(), asset, body.reason).model_dump(mode="json")


@bp.post("/machines/<asset>/move")
@bp.input(MoveIn, arg_name="body")
@bp.doc(summary="Move a machine to another bank (and zone); jackpot levels take it at their next reset (operator)",
        **AUTH_DOC)
@answers(MachineRecord)
def move(asset: str, body: MoveIn):
    return _svc().move(principal(), asset, _set(body)).model_dump(mode="json")


@bp.post("/machines/<asset>/game")
@bp.input(GameIn, arg_name="body")
@bp.doc(summary="Change game / variation / denomination with no credits and no game in progress (operator)",
        **AUTH_DOC)
@answers(MachineRecord)
def change_game(asset: str, body: GameIn):
    return _svc().change_game(principal(), asset, _set(body)).model_dump(mode="json")


@bp.post("/machines/<asset>/retire")
@bp.input(ReasonIn, arg_name="body")
@bp.doc(summary="Retire a machine with its final meters; the asset number is never reused (admin)", **AUTH_DOC)
@answers(RetiredMachine)
def retire(asset: str, body: ReasonIn):
    return _svc().retire(principal(), asset, body.reason).model_dump(mode="json")


@bp.get("/zones")
@bp.doc(summary="Zones (operator, attendant, auditor)", **AUTH_DOC)
@answers(ZoneList)
def list_zones():
    return _svc().list_zones(principal()).model_dump(mode="json")


@bp.post("/zones")
@bp.input(ZoneIn, arg_name="body")
@bp.doc(summary="Create a zone (operator)", **AUTH_DOC)
@answers(ZoneRecord, status=201)
def create_zone(body: ZoneIn):
    return _svc().create_zone(principal(), body.code, body.name).model_dump(mode="json"), 201


@bp.patch("/zones/<code>")
@bp.input(ZonePatch, arg_name="body")
@bp.doc(summary="Rename a zone (operator) or retire it (admin; no active machines, banks or jackpot levels)",
        **AUTH_DOC)
@answers(ZoneRecord)
def update_zone(code: str, body: ZonePatch):
    return _svc().update_zone(principal(), code, _set(body)).model_dump(mode="json")


@bp.get("/banks")
@bp.input(BanksQuery, location="query", arg_name="query")
@bp.doc(summary="Banks (operator, attendant, auditor)", **AUTH_DOC)
@answers(BankList)
def list_banks(query: BanksQuery):
    return _svc().list_banks(principal(), query.zone).model_dump(mode="json")


@bp.post("/banks")
@bp.input(BankIn, arg_name="body")
@bp.doc(summary="Create a bank in a zone (operator)", **AUTH_DOC)
@answers(BankRecord, status=201)
def create_bank(body: BankIn):
    return _svc().create_bank(principal(), _set(body)).model_dump(mode="json"), 201


@bp.patch("/banks/<code>")
@bp.input(BankPatch, arg_name="body")
@bp.doc(summary="Rename / re-orient a bank (operator) or retire it (admin; no active machines)", **AUTH_DOC)
@answers(BankRecord)
def update_bank(code: str, body: BankPatch):
    return _svc().update_bank(principal(), code, _set(body)).model_dump(mode="json")


@bp.get("/floor/plan")
@bp.doc(summary="The floor plan: zones, banks, machines and their grid cells (operator, attendant, auditor)",
        **AUTH_DOC)
@answers(FloorPlan)
def floor_plan():
    return _svc().floor_plan(principal()).model_dump(mode="json")
