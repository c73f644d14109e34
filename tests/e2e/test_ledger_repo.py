"""The ledger adapter on a real (SQLite) database."""

import pytest

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import InsufficientFunds


def test_entry_with_an_account_netting_to_zero_posts_all_legs(app):
    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        uow.ledger.post(L.EntryBuilder("t").add(debit=accounts.machine_drop("M001"), credit=accounts.machine_credits("M001"), amount=5_000).build())
        # a spin whose win equals its bet: the credits account nets to zero but both legs are recorded
        e = (L.EntryBuilder("machine.spin")
             .add(debit=accounts.machine_credits("M001"), credit=accounts.machine_hold("M001"), amount=1_000)
             .add(debit=accounts.machine_hold("M001"), credit=accounts.machine_credits("M001"), amount=1_000).build())
        uow.ledger.post(e)
        uow.commit()
        assert uow.ledger.balance(accounts.machine_credits("M001")) == 5_000
        assert len(uow.ledger.statement(accounts.machine_credits("M001"))) == 3
    assert svc.audit.report()["balanced"]


def test_non_negative_account_refuses_and_rolls_back(app):
    svc = app.extensions["slotsys"]
    with svc.uow() as uow:
        with pytest.raises(InsufficientFunds):
            # a bet of ₩1 from an empty credit meter
            uow.ledger.post(L.EntryBuilder("t").add(debit=accounts.machine_credits("M002"), credit=accounts.machine_hold("M002"), amount=1).build())
    assert svc.audit.report()["balanced"]
    with svc.uow() as uow:
        assert uow.ledger.balance(accounts.machine_credits("M002")) == 0
