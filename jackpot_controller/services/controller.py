"""Read side of the jackpot controller and the hit announcement task body."""

from __future__ import annotations

import json

import structlog

from jackpot_controller.services.mystery import level_view
from slotsys.services.context import ServiceContext

log = structlog.get_logger("jackpot_controller")
CHANNEL = "slotsys:jackpots"


class JackpotService:
    def __init__(self, ctx: ServiceContext, publish=None) -> None:
        self.ctx = ctx
        # publish(channel, message): Redis pub/sub in production, in-process otherwise
        self.publish = publish or (lambda channel, message: None)

    def levels(self) -> dict:
        with self.ctx.uow(readonly=True) as uow:
            return {"levels": [level_view(lv) for lv in uow.levels.all()]}

    def hits(self, limit: int = 25) -> dict:
        with self.ctx.uow(readonly=True) as uow:
            levels = {lv.id: lv.code for lv in uow.levels.all()}
            return {
                "hits": [
                    {
                        "id": h.id, "level": levels.get(h.level_id), "cycle": h.cycle,
                        "machine": uow.machines.get_by_id(h.machine_id).asset_number, "zone": h.zone,
                        "game_number": h.game_number, "amount": h.amount_won, "status": h.status,
                        "announced": h.announced, "at": h.created_at.isoformat(),
                    }
                    for h in uow.levels.recent_hits(limit=limit)
                ]
            }

    def announce_hit(self, hit_id: int) -> bool:
        """Publish a hit to the signage channel once; returns False if it was already announced.

        Idempotent: the ``announced`` flag is flipped under the row lock in the same
        transaction, so a retried or duplicated task publishes at most once per commit.
        """
        with self.ctx.uow() as uow:
            hit = uow.levels.hit(hit_id)
            if hit is None or hit.announced:
                return False
            uow.session.refresh(hit, with_for_update=True)
            if hit.announced:
                return False
            hit.announced = True
            level = next(lv for lv in uow.levels.all() if lv.id == hit.level_id)
            machine = uow.machines.get_by_id(hit.machine_id).asset_number
            message = {"event": "hit", "level": level.code, "name": level.name, "machine": machine,
                       "amount": hit.amount_won, "new_value": level_view(level)["value"]}
            uow.after_commit(lambda: self.publish(CHANNEL, json.dumps(message)))
            uow.commit()
        log.info("jackpot.hit.announced", hit=message)
        return True

    def announce_pending(self) -> int:
        with self.ctx.uow(readonly=True) as uow:
            ids = [h.id for h in uow.levels.recent_hits(limit=200) if not h.announced]
        return sum(1 for hid in reversed(ids) if self.announce_hit(hid))
