"""The player's wallet on the ledger: the one way other packages move a player's money.

Two ledger accounts per player, both liabilities that never go negative:
``player:<id>:cashable`` (cash the player may withdraw, play on machines and tables) and
``player:<id>:promo`` (promotional, non-cashable: comps, promotional transfers).

``table_games`` (and any other package) calls this module **inside its own unit of work**: it
never posts to a player's account itself. Each call locks the player's row first (lock order:
[machine row →] player row → ledger accounts), checks the balance, and adds ONE balanced
journal entry; the caller commits. Example (a blackjack buy-in, then a win paid back)::

    with ctx.uow() as uow:
        WalletService.debit_for_table(uow, player_id, "table:BJ-01:float", 50_000, refs={"round": 7})
        ...
        WalletService.credit_from_table(uow, player_id, "table:BJ-01:float", 75_000, refs={"round": 7})
        uow.commit()

Errors: ``ValidationFailed`` (422, field ``amount``) for a non-positive or non-integer amount
or an unknown wallet; ``NotFound`` (404) for an unknown player or counter account;
``InsufficientFunds`` (409, field ``amount``) when the wallet holds less than the amount.
"""

from __future__ import annotations

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.errors import InsufficientFunds, NotFound, ValidationFailed
from slotsys.kernel.money import MoneyError, require_won

WALLETS = ("cashable", "promo")


def wallet_account(player_id: int, wallet: str) -> str:
    if wallet == "cashable":
        return accounts.player_cashable(player_id)
    if wallet == "promo":
        return accounts.player_promo(player_id)
    raise ValidationFailed("wallet must be cashable or promo", field="wallet")


class WalletService:
    """Static helpers over the caller's unit of work (no state of their own)."""

    @staticmethod
    def open(uow, player_id: int) -> None:
        """Create the player's two wallet accounts (idempotent)."""
        for w in WALLETS:
            uow.ledger.ensure_account(wallet_account(player_id, w), L.AccountType.LIABILITY, non_negative=True)

    @staticmethod
    def balances(uow, player_id: int) -> dict[str, int]:
        """``{"cashable": won, "promo": won}`` (0 for a wallet never opened)."""
        out = {}
        for w in WALLETS:
            try:
                out[w] = uow.ledger.balance(wallet_account(player_id, w))
            except NotFound:
                out[w] = 0
        return out

    @staticmethod
    def transfer(uow, *, player_id: int, counter_account: str, amount: object, direction: str, kind: str,
                 wallet: str = "cashable", memo: str = "", refs: dict | None = None, player_locked: bool = False) -> int:
        """Move ``amount`` won between the player's ``wallet`` and ``counter_account``.

        ``direction="out"``: Dr wallet / Cr counter (the player spends); ``"in"``: Dr counter /
        Cr wallet (the player is paid). ``kind`` names the journal entry (e.g. ``table.buy_in``).
        Returns the journal entry id. Does not commit.
        """
        try:
            amount = require_won(amount, field="amount")
        except MoneyError as e:
            raise ValidationFailed(str(e), field="amount") from None
        if direction not in ("out", "in"):
            raise ValidationFailed("direction must be out or in", field="direction")
        code = wallet_account(player_id, wallet)
        if not player_locked:
            uow.players.get(player_id, for_update=True)
        WalletService.open(uow, player_id)
        uow.ledger.account_id(counter_account)  # 404 for an unknown counter account
        if direction == "out":
            have = uow.ledger.balance(code)
            if have < amount:
                raise InsufficientFunds(f"the {wallet} wallet holds ₩{have:,}, less than ₩{amount:,}", field="amount",
                                        balance=have)
            debit, credit = code, counter_account
        else:
            debit, credit = counter_account, code
        e = L.EntryBuilder(kind[:40], memo or f"player {player_id} {wallet} wallet {direction}")
        e.add(debit=debit, credit=credit, amount=amount)
        return uow.ledger.post(e.build({"player": player_id, "wallet": wallet, **(refs or {})}))

    @staticmethod
    def debit_for_table(uow, player_id: int, table_account: str, amount: object, *, wallet: str = "cashable",
                        refs: dict | None = None) -> int:
        """A table bet or buy-in funded from the wallet: Dr player wallet / Cr ``table_account``."""
        return WalletService.transfer(uow, player_id=player_id, counter_account=table_account, amount=amount,
                                      direction="out", kind="table.debit", wallet=wallet, refs=refs)

    @staticmethod
    def credit_from_table(uow, player_id: int, table_account: str, amount: object, *, refs: dict | None = None) -> int:
        """A table win or cash-out paid to the wallet: Dr ``table_account`` / Cr player cashable."""
        return WalletService.transfer(uow, player_id=player_id, counter_account=table_account, amount=amount,
                                      direction="in", kind="table.credit", wallet="cashable", refs=refs)
