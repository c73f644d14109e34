"""What the house-banked table use cases share: who may do what, the table's engine and rules, the records as the
API shows them, and the debit of a bet a decision places.

Money (DESIGN §4): a bet is debited from the player's cashable wallet into ``table:<code>:bets`` when placed
(:class:`~table_games.services.ports.PlayerWallet`); settling a round moves the house's net between
``table:<code>:bets`` and ``table:<code>:hold`` and credits each player's payout from the bet account
(:mod:`table_games.services.settlement`). Roulette colour chips sit in ``table:<code>:chips``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slotsys.kernel import accounts
from slotsys.kernel import ledger as L
from slotsys.kernel.context import Principal, ServiceContext
from slotsys.kernel.money import milli_to_won_floor
from table_games.domain.engines.base import ColourChipGame, GameEngine, RoundPlay
from table_games.domain.games import GAMES
from table_games.domain.limits import TableLimits
from table_games.domain.model import PlacedBet, Round, Seat, Table
from table_games.domain.settlement import Bet
from table_games.services.ports import PlayerWallet, TableProgressives, TablesUnitOfWork
from table_games.services.results import TableView

DEALER_ROLES = ("pit", "operator")  # pit staff act as dealers / inspectors
MANAGER_ROLES = ("operator",)
READ_ROLES = ("pit", "operator", "auditor", "host")


def engine(t: Table) -> GameEngine:
    """The table's game."""
    return GAMES[t.game]


def rules_of(t: Table) -> Any:
    """The table's rules variant, read from its stored form."""
    return GAMES[t.game].rules_from_dict(t.rules)


def limits_of(t: Table) -> TableLimits:
    return TableLimits.from_dict(t.limits)


def seat_map(seats: list[Seat]) -> dict[str, str]:
    """Seat → the seated player's id as text (the engines' players)."""
    return {s.seat: str(s.player_id) for s in seats}


def play_of(t: Table, bets: list[Bet], state: dict[str, Any] | None, seats: dict[str, str]) -> RoundPlay:
    """A round of ``t`` as its engine sees it."""
    return RoundPlay(rules=rules_of(t), bets=tuple(bets), state=state, seats=seats, chip_unit=t.chip_unit,
                     shoe=t.shoe, shoe_no=t.shoe_no)


def table_accounts(uow: TablesUnitOfWork, code: str, game: GameEngine) -> None:
    """The table's ledger accounts: the stakes in play (liability, never negative), the hold (revenue) and, for a
    colour-chip game, the chips out (liability)."""
    uow.ledger.ensure_account(accounts.table_bets(code), L.AccountType.LIABILITY, non_negative=True)
    uow.ledger.ensure_account(accounts.table_hold(code), L.AccountType.REVENUE)
    if isinstance(game, ColourChipGame):
        uow.ledger.ensure_account(accounts.table_chips(code), L.AccountType.LIABILITY, non_negative=True)


def round_fields(t: Table, r: Round, bets: list[PlacedBet]) -> dict[str, Any]:
    """The fields of :class:`~table_games.services.results.RoundView` for round ``r``."""
    return {"table": t.code, "game": t.game, "round": r.number, "status": r.status, "mode": r.mode,
            "shoe_no": r.shoe_no, "outcome": r.outcome,
            "bets": [{"id": b.id, "player_id": b.player_id, "spot": b.spot, "box": b.box, "amount": b.amount,
                      "cap": b.cap, "placed_by": b.placed_by, "entry": b.entry_id} for b in bets],
            "settlements": r.settlements, "house_net": r.house_net,
            "opened_at": r.opened_at.isoformat() if r.opened_at else None,
            "settled_at": r.settled_at.isoformat() if r.settled_at else None}


@dataclass
class TableGamesService:
    """The base of the house-banked table services: the context, the players' wallet and the table progressives
    (ports filled by the composition root)."""

    ctx: ServiceContext
    wallet: PlayerWallet
    progressives: TableProgressives

    def table_view(self, uow: TablesUnitOfWork, t: Table, seats: list[Seat]) -> TableView:
        """The table with its seats, shoe, the stakes in play (won), its progressive's meter and colour stacks."""
        out: dict[str, Any] = {
            "code": t.code, "game": t.game, "name": t.name, "rules": t.rules, "limits": t.limits,
            "chip_unit": t.chip_unit, "commission_unit": t.commission_unit, "status": t.status,
            "rounds": t.round_seq, "shoe_no": t.shoe_no,
            "seats": [{"seat": s.seat, "player_id": s.player_id} for s in seats]}
        if t.shoe is not None:
            out["shoe"] = {"cards_left": len(t.shoe["cards"]) - t.shoe["pos"],
                           "cut_card_out": t.shoe.get("cut_card_out", False)}
        if t.progressive_level:
            out["progressive_level"] = t.progressive_level
        out["bets_in_play"] = uow.ledger.balance(accounts.table_bets(t.code))
        if t.progressive_level:
            lv = self.progressives.find(uow, t.progressive_level)
            out["progressive"] = {"level": lv.code, "value": milli_to_won_floor(lv.value_milli), "cycle": lv.cycle,
                                  "paused": lv.paused} if lv else None
        if isinstance(engine(t), ColourChipGame):
            out["colour_stacks"] = [{"player_id": c.player_id, "colour": c.colour, "chip_value": c.chip_value,
                                     "chips": c.chips, "value": c.value} for c in uow.tables.stacks(t.id)]
        return TableView(**out)

    def debit_decision_bet(self, uow: TablesUnitOfWork, principal: Principal, t: Table, r: Round,
                           x: Bet) -> tuple[PlacedBet, dict[str, Any]]:
        """A bet a decision places (double, split, insurance; play, call, flop / turn / river; a pai gow banker's
        cover): debited from the player's wallet now, settled with the round. Returns the bet as recorded and as
        the answer shows it (``InsufficientFunds`` from the wallet)."""
        pid = int(x.player)
        entry = self.wallet.debit_for_table(uow, pid, accounts.table_bets(t.code), x.amount,
                                            refs={"table": t.code, "round": r.number, "spot": x.spot})
        row = uow.tables.add_bet(PlacedBet(id=0, round_id=r.id, player_id=pid, spot=x.spot, amount=x.amount,
                                           box=x.box, cap=x.cap, entry_id=entry, placed_by=principal.id))
        return row, {"id": row.id, "spot": x.spot, "box": x.box, "amount": x.amount, "entry": entry}
