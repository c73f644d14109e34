"""Other features' tables the floor's read model reads, by name and read-only: the jackpot hits (a machine's
jackpots today) and the open player sessions (carded machines). Table clauses, not mappings: the floor imports no
other feature's code, and the columns named here are the whole of what it relies on."""

from sqlalchemy import column, table

jackpot_hits = table("jackpot_hits", column("machine_id"), column("amount_won"), column("created_at"))
player_sessions = table("player_sessions", column("id"), column("machine_id"), column("status"))
