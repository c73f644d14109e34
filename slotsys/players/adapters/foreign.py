"""The floor's machines table as the players' queries read it, by name and read-only (a table clause, not a
mapping: the players import no other feature's code; the columns named here are all they rely on)."""

from sqlalchemy import column, table

machines = table("machines", column("id"), column("asset_number"), column("coin_in"), column("coin_out"),
                 column("jackpot_out"), column("games_played"), column("games_won"))
