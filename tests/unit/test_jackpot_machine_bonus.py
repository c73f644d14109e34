"""Mystery awards a SAS machine pays itself, on the jackpot controller's fakes (no database): the award waits
``at_machine`` (owed on ``jackpot:<L>:payable``, nothing on the credit meter), the driver records the machine's
legacy bonus meter once (a restarted host gets the first value back), the confirmation credits it once, a refusal
makes it a handpay; an award that is not whole credits pays the whole credits and books the fraction to the
level's adjustments. The level and the wager are those of ``test_jackpot_services`` (one hit of ₩10,100)."""

from __future__ import annotations

from jackpot_controller.settings import JackpotSettings
from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from jackpot_controller.services.levels import create_level
from tests.fakes.jackpots import jackpot_context, jackpot_services
from tests.fakes.kernel import SeqRng
from tests.unit.test_jackpot_services import AWARD, MINI, balance, wager_and_fold


def sas_floor(denomination: int = 100):
    """As ``test_jackpot_services.floor`` with M001 a SAS machine of ``denomination``."""
    ctx = jackpot_context(rng=SeqRng(100, 2_000))
    jp = jackpot_services(ctx, JackpotSettings(sequencer="process"))
    machine = ctx.uow.repos["floor"].add_machine(1, "M001", "MASS", "M1", bonus_on_machine=True,
                                                 denomination=denomination)
    ctx.uow.repos["floor"].recall[(1, 1)] = []
    with ctx.uow() as uow:
        uow.ledger.ensure_account(accounts.machine_credits("M001"), L.AccountType.LIABILITY, non_negative=True)
        create_level(uow, code="MINI", name="Mini", params=MINI, rng=ctx.rng)
        uow.commit()
    return ctx, jp, machine


def kinds(ctx) -> list[str]:
    return [e.kind for e in ctx.uow.repos["ledger"].entries]


def test_an_award_on_a_sas_machine_waits_at_the_machine_and_is_credited_once_when_its_meter_confirms_it():
    ctx, jp, machine = sas_floor()
    hit = wager_and_fold(ctx, jp, machine)
    assert jp.awards.process(hit.id) == "at_machine"
    assert balance(ctx, accounts.machine_credits("M001")) == 0  # only the machine moves its credit meter
    assert balance(ctx, accounts.jackpot_payable("MINI")) == AWARD  # still owed
    assert ctx.uow.repos["floor"].machines[1]["status"] == "active"  # not locked: the machine keeps playing
    (p,) = jp.bonuses.pending("M001")
    assert (p.hit, p.level, p.amount_won, p.meter_before_won) == (hit.id, "MINI", AWARD, None)
    assert jp.bonuses.pending("M999") == []

    assert jp.bonuses.sending(hit.id, 5_000) == 5_000
    assert jp.bonuses.sending(hit.id, 15_100) == 5_000  # a restarted host: the meter before the first send
    assert jp.bonuses.pending("M001")[0].meter_before_won == 5_000

    done = jp.bonuses.paid(hit.id)
    assert (done.status, done.changed) == ("awarded", True)
    assert balance(ctx, accounts.machine_credits("M001")) == AWARD
    assert balance(ctx, accounts.jackpot_payable("MINI")) == 0
    again = jp.bonuses.paid(hit.id)  # the confirmation repeated after a lost answer
    assert (again.status, again.changed, again.entry) == ("awarded", False, done.entry)
    assert kinds(ctx).count("jackpot.award") == 1 and balance(ctx, accounts.machine_credits("M001")) == AWARD
    assert ctx.uow.repos["floor"].machines[1]["jackpot_out"] == AWARD
    assert ctx.uow.repos["floor"].recall[(1, 1)][0]["status"] == "awarded"
    assert jp.bonuses.pending("M001") == [] and jp.bonuses.sending(hit.id, 0) is None
    assert jp.bonuses.refused(hit.id, "late").status == "awarded"  # settled: a refusal changes nothing


def test_a_refused_bonus_becomes_a_handpay_paid_from_the_cage():
    ctx, jp, machine = sas_floor()
    hit = wager_and_fold(ctx, jp, machine)
    jp.awards.process(hit.id)
    assert jp.bonuses.refused(hit.id, "above the machine's maximum bonus").status == "handpay"
    h = ctx.uow.repos["levels"].hit(hit.id)
    assert (h.status, h.pay_method) == ("handpay", "handpay")
    assert jp.bonuses.paid(hit.id).changed is False  # a late confirmation pays nothing
    assert balance(ctx, accounts.machine_credits("M001")) == 0
    assert balance(ctx, accounts.jackpot_payable("MINI")) == AWARD  # owed until the attendant pays it
    assert ctx.uow.repos["floor"].machines[1]["status"] == "active"


def test_the_fraction_of_a_credit_goes_to_the_levels_adjustments_and_the_whole_credits_to_the_machine():
    ctx, jp, machine = sas_floor(denomination=1_000)
    hit = wager_and_fold(ctx, jp, machine)
    jp.awards.process(hit.id)
    h = ctx.uow.repos["levels"].hit(hit.id)
    assert (h.status, h.amount_won) == ("at_machine", 10_000)
    assert balance(ctx, accounts.jackpot_payable("MINI")) == 10_000  # = the unpaid hit: the audit balances
    assert balance(ctx, accounts.jackpot_adjustments("MINI")) == -100
    assert kinds(ctx).count("jackpot.bonus_rounding") == 1
    ev = [e for e in ctx.uow.repos["levels"].event_log if e.kind == "bonus_rounded"]
    assert [e.detail["fraction_won"] for e in ev] == [100]
    assert jp.bonuses.pending("M001")[0].amount_won == 10_000


def test_an_award_below_one_credit_is_a_handpay():
    ctx, jp, machine = sas_floor(denomination=20_000)
    hit = wager_and_fold(ctx, jp, machine)
    assert jp.awards.process(hit.id) == "handpay"
    assert jp.bonuses.pending("M001") == []


def test_an_award_at_the_handpay_threshold_on_a_sas_machine_is_a_handpay_without_a_floor_lock():
    ctx = jackpot_context(rng=SeqRng(100, 2_000))
    jp = jackpot_services(ctx, JackpotSettings(sequencer="process", handpay_threshold_won=AWARD))
    machine = ctx.uow.repos["floor"].add_machine(1, "M001", "MASS", "M1", bonus_on_machine=True, denomination=100)
    ctx.uow.repos["floor"].recall[(1, 1)] = []
    with ctx.uow() as uow:
        create_level(uow, code="MINI", name="Mini", params=MINI, rng=ctx.rng)
        uow.commit()
    hit = wager_and_fold(ctx, jp, machine)
    assert jp.awards.process(hit.id) == "handpay"
    assert ctx.uow.repos["floor"].machines[1]["status"] == "active"  # its games keep reaching the floor
    assert balance(ctx, accounts.jackpot_payable("MINI")) == AWARD and jp.bonuses.pending("M001") == []


def test_an_award_is_settled_only_for_its_own_machine():
    import pytest
    from slotsys.kernel.errors import NotFound

    ctx, jp, machine = sas_floor()
    hit = wager_and_fold(ctx, jp, machine)
    jp.awards.process(hit.id)
    for call in (lambda: jp.bonuses.sending(hit.id, 0, asset="M002"), lambda: jp.bonuses.paid(hit.id, asset="M002"),
                 lambda: jp.bonuses.refused(hit.id, "x", asset="M002")):
        with pytest.raises(NotFound):
            call()
    assert ctx.uow.repos["levels"].hit(hit.id).status == "at_machine"
    assert jp.bonuses.paid(hit.id, asset="M001").status == "awarded"
