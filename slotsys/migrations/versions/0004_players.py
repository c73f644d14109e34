"""players: loyalty program, tiers, accrual rules, players, cards, sessions, points journal,
redemptions, cashless transfers, table ratings, player tokens

Revision ID: 0004_players
Revises: 0001
Hand-written: only the tables of slotsys/players/adapters/tables.py.
"""
from alembic import op
import sqlalchemy as sa

import slotsys.kernel.adapters.db

revision = "0004_players"
down_revision = "0001"
branch_labels = None
depends_on = None

TZ = slotsys.kernel.adapters.db.TZDateTime(timezone=True)
BIGID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
OPEN = sa.text("status = 'open'")


def upgrade() -> None:
    op.create_table(
        "loyalty_program",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("points_idle_days", sa.Integer(), nullable=False),
        sa.Column("promo_won_per_point", sa.Integer(), nullable=False),
        sa.Column("cash_won_per_point", sa.Integer(), nullable=False),
        sa.Column("per_transfer_max_won", sa.BigInteger(), nullable=False),
        sa.Column("daily_to_machine_max_won", sa.BigInteger(), nullable=False),
        sa.Column("daily_to_wallet_max_won", sa.BigInteger(), nullable=False),
        sa.Column("gaming_day_start_hour_utc", sa.SmallInteger(), nullable=False),
        sa.Column("redemption_hold_seconds", sa.Integer(), nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.CheckConstraint("id = 1", name=op.f("ck_loyalty_program_single_row")),
        sa.CheckConstraint("points_idle_days > 0 AND promo_won_per_point >= 0 AND cash_won_per_point >= 0",
                           name=op.f("ck_loyalty_program_rates")),
        sa.CheckConstraint("per_transfer_max_won > 0 AND daily_to_machine_max_won > 0 AND daily_to_wallet_max_won > 0",
                           name=op.f("ck_loyalty_program_limits")),
        sa.CheckConstraint("gaming_day_start_hour_utc BETWEEN 0 AND 23 AND redemption_hold_seconds > 0",
                           name=op.f("ck_loyalty_program_times")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_loyalty_program")),
    )
    op.create_table(
        "loyalty_tiers",
        sa.Column("code", sa.String(20), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("threshold_points", sa.BigInteger(), nullable=False),
        sa.Column("multiplier_permille", sa.Integer(), nullable=False),
        sa.CheckConstraint("threshold_points >= 0 AND multiplier_permille > 0", name=op.f("ck_loyalty_tiers_values")),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_loyalty_tiers")),
    )
    op.create_table(
        "accrual_rules",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(10), nullable=False),
        sa.Column("key", sa.String(40), nullable=False),
        sa.Column("basis", sa.String(10), nullable=False),
        sa.Column("won_per_point", sa.Integer(), nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.CheckConstraint("won_per_point > 0", name=op.f("ck_accrual_rules_rate")),
        sa.CheckConstraint("basis IN ('coin_in', 'theo')", name=op.f("ck_accrual_rules_basis")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accrual_rules")),
        sa.UniqueConstraint("scope", "key", name="scope_key"),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("tier_code", sa.String(20), nullable=False),
        sa.Column("tier_points_milli", sa.BigInteger(), nullable=False),
        sa.Column("points_milli", sa.BigInteger(), nullable=False),
        sa.Column("points_held_milli", sa.BigInteger(), nullable=False),
        sa.Column("last_activity_at", TZ, nullable=False),
        sa.Column("enrolled_at", TZ, nullable=False),
        sa.CheckConstraint("points_held_milli >= 0 AND points_milli >= points_held_milli",
                           name=op.f("ck_players_points_non_negative")),
        sa.CheckConstraint("tier_points_milli >= 0", name=op.f("ck_players_tier_points")),
        sa.ForeignKeyConstraint(["tier_code"], ["loyalty_tiers.code"], name=op.f("fk_players_tier_code_loyalty_tiers")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_table(
        "player_cards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("card_number", sa.String(16), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("pin_hash", sa.String(200), nullable=False),
        sa.Column("pin_failures", sa.SmallInteger(), nullable=False),
        sa.Column("pin_last_failure_at", TZ, nullable=True),
        sa.Column("issued_at", TZ, nullable=False),
        sa.Column("status_changed_at", TZ, nullable=True),
        sa.CheckConstraint("status IN ('active', 'lost', 'blocked', 'replaced')", name=op.f("ck_player_cards_status")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_player_cards_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_cards")),
        sa.UniqueConstraint("card_number", name=op.f("uq_player_cards_card_number")),
    )
    op.create_index(op.f("ix_player_cards_player_id"), "player_cards", ["player_id"])
    op.create_table(
        "card_events",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("by", sa.String(80), nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["card_id"], ["player_cards.id"], name=op.f("fk_card_events_card_id_player_cards")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_card_events_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_events")),
    )
    op.create_index(op.f("ix_card_events_card_id"), "card_events", ["card_id"])
    op.create_table(
        "player_sessions",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("started_at", TZ, nullable=False),
        sa.Column("ended_at", TZ, nullable=True),
        sa.Column("last_game_at", TZ, nullable=True),
        sa.Column("ended_by", sa.String(80), nullable=False),
        sa.Column("rule_scope", sa.String(10), nullable=False),
        sa.Column("rule_basis", sa.String(10), nullable=False),
        sa.Column("rule_won_per_point", sa.Integer(), nullable=False),
        *[sa.Column(f"start_{m}", sa.BigInteger(), nullable=False) for m in
          ("coin_in", "coin_out", "jackpot_out", "games_played", "games_won")],
        *[sa.Column(f"end_{m}", sa.BigInteger(), nullable=True) for m in
          ("coin_in", "coin_out", "jackpot_out", "games_played", "games_won")],
        *[sa.Column(m, sa.BigInteger(), nullable=False) for m in
          ("coin_in", "coin_out", "jackpot_out", "games_played", "games_won", "theo_milli", "points_milli")],
        sa.CheckConstraint("status IN ('open', 'closed')", name=op.f("ck_player_sessions_status")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_player_sessions_player_id_players")),
        sa.ForeignKeyConstraint(["card_id"], ["player_cards.id"], name=op.f("fk_player_sessions_card_id_player_cards")),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name=op.f("fk_player_sessions_machine_id_machines")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_sessions")),
    )
    op.create_index(op.f("ix_player_sessions_player_id"), "player_sessions", ["player_id"])
    op.create_index(op.f("ix_player_sessions_machine_id"), "player_sessions", ["machine_id"])
    # one carded player per machine, one machine per player
    op.create_index("uq_player_sessions_open_machine", "player_sessions", ["machine_id"], unique=True,
                    postgresql_where=OPEN, sqlite_where=OPEN)
    op.create_index("uq_player_sessions_open_player", "player_sessions", ["player_id"], unique=True,
                    postgresql_where=OPEN, sqlite_where=OPEN)
    op.create_table(
        "table_ratings",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("table_code", sa.String(20), nullable=False),
        sa.Column("area", sa.String(20), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("average_bet_won", sa.BigInteger(), nullable=False),
        sa.Column("minutes", sa.Integer(), nullable=False),
        sa.Column("decisions_per_hour", sa.Integer(), nullable=False),
        sa.Column("house_edge_ppm", sa.Integer(), nullable=False),
        sa.Column("rule_scope", sa.String(10), nullable=False),
        sa.Column("rule_basis", sa.String(10), nullable=False),
        sa.Column("rule_won_per_point", sa.Integer(), nullable=False),
        sa.Column("handle_won", sa.BigInteger(), nullable=False),
        sa.Column("theo_milli", sa.BigInteger(), nullable=False),
        sa.Column("points_milli", sa.BigInteger(), nullable=False),
        sa.Column("rated_by", sa.String(80), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_table_ratings_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_table_ratings")),
    )
    op.create_index(op.f("ix_table_ratings_player_id"), "table_ratings", ["player_id"])
    op.create_table(
        "point_redemptions",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("target", sa.String(8), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("amount_won", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("requested_by", sa.String(80), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("expires_at", TZ, nullable=True),
        sa.Column("settled_at", TZ, nullable=True),
        sa.Column("entry_id", BIGID, nullable=True),
        sa.CheckConstraint("points > 0 AND amount_won >= 0", name=op.f("ck_point_redemptions_amounts")),
        sa.CheckConstraint("status IN ('pending', 'completed', 'cancelled', 'expired')",
                           name=op.f("ck_point_redemptions_status")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_point_redemptions_player_id_players")),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name=op.f("fk_point_redemptions_machine_id_machines")),
        sa.ForeignKeyConstraint(["entry_id"], ["journal_entries.id"],
                                name=op.f("fk_point_redemptions_entry_id_journal_entries")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_point_redemptions")),
    )
    op.create_index(op.f("ix_point_redemptions_player_id"), "point_redemptions", ["player_id"])
    op.create_index("ix_point_redemptions_pending", "point_redemptions", ["player_id", "status"])
    op.create_table(
        "points_journal",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("points_milli", sa.BigInteger(), nullable=False),
        sa.Column("balance_after_milli", sa.BigInteger(), nullable=False),
        sa.Column("session_id", BIGID, nullable=True),
        sa.Column("rating_id", BIGID, nullable=True),
        sa.Column("redemption_id", BIGID, nullable=True),
        sa.Column("entry_id", BIGID, nullable=True),
        sa.Column("memo", sa.String(120), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("points_milli <> 0", name=op.f("ck_points_journal_nonzero")),
        sa.CheckConstraint("kind IN ('play', 'rating', 'redeem', 'expire', 'adjust')", name=op.f("ck_points_journal_kind")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_points_journal_player_id_players")),
        sa.ForeignKeyConstraint(["session_id"], ["player_sessions.id"],
                                name=op.f("fk_points_journal_session_id_player_sessions")),
        sa.ForeignKeyConstraint(["rating_id"], ["table_ratings.id"], name=op.f("fk_points_journal_rating_id_table_ratings")),
        sa.ForeignKeyConstraint(["redemption_id"], ["point_redemptions.id"],
                                name=op.f("fk_points_journal_redemption_id_point_redemptions")),
        sa.ForeignKeyConstraint(["entry_id"], ["journal_entries.id"], name=op.f("fk_points_journal_entry_id_journal_entries")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_points_journal")),
    )
    op.create_index(op.f("ix_points_journal_player_id"), "points_journal", ["player_id"])
    op.create_index(op.f("ix_points_journal_session_id"), "points_journal", ["session_id"])
    op.create_table(
        "wallet_transfers",
        sa.Column("id", BIGID, nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("session_id", BIGID, nullable=True),
        sa.Column("direction", sa.String(10), nullable=False),
        sa.Column("via", sa.String(10), nullable=False),
        sa.Column("cashable_won", sa.BigInteger(), nullable=False),
        sa.Column("promo_won", sa.BigInteger(), nullable=False),
        sa.Column("gaming_day", sa.Date(), nullable=False),
        sa.Column("entry_id", BIGID, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.CheckConstraint("cashable_won >= 0 AND promo_won >= 0 AND cashable_won + promo_won > 0",
                           name=op.f("ck_wallet_transfers_amounts")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_wallet_transfers_player_id_players")),
        sa.ForeignKeyConstraint(["machine_id"], ["machines.id"], name=op.f("fk_wallet_transfers_machine_id_machines")),
        sa.ForeignKeyConstraint(["session_id"], ["player_sessions.id"],
                                name=op.f("fk_wallet_transfers_session_id_player_sessions")),
        sa.ForeignKeyConstraint(["entry_id"], ["journal_entries.id"],
                                name=op.f("fk_wallet_transfers_entry_id_journal_entries")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_wallet_transfers")),
    )
    op.create_index(op.f("ix_wallet_transfers_machine_id"), "wallet_transfers", ["machine_id"])
    op.create_index("ix_wallet_transfers_daily", "wallet_transfers", ["player_id", "gaming_day", "direction"])
    op.create_table(
        "player_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_player_tokens_player_id_players")),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_player_tokens")),
    )

    # The points journal is append-only, like the ledger (PostgreSQL; the function is 0001's).
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE TRIGGER points_journal_append_only BEFORE UPDATE OR DELETE ON points_journal "
            "FOR EACH ROW EXECUTE FUNCTION ledger_append_only();"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS points_journal_append_only ON points_journal;")
    op.drop_table("player_tokens")
    op.drop_index("ix_wallet_transfers_daily", table_name="wallet_transfers")
    op.drop_index(op.f("ix_wallet_transfers_machine_id"), table_name="wallet_transfers")
    op.drop_table("wallet_transfers")
    op.drop_index(op.f("ix_points_journal_session_id"), table_name="points_journal")
    op.drop_index(op.f("ix_points_journal_player_id"), table_name="points_journal")
    op.drop_table("points_journal")
    op.drop_index("ix_point_redemptions_pending", table_name="point_redemptions")
    op.drop_index(op.f("ix_point_redemptions_player_id"), table_name="point_redemptions")
    op.drop_table("point_redemptions")
    op.drop_index(op.f("ix_table_ratings_player_id"), table_name="table_ratings")
    op.drop_table("table_ratings")
    op.drop_index("uq_player_sessions_open_player", table_name="player_sessions")
    op.drop_index("uq_player_sessions_open_machine", table_name="player_sessions")
    op.drop_index(op.f("ix_player_sessions_machine_id"), table_name="player_sessions")
    op.drop_index(op.f("ix_player_sessions_player_id"), table_name="player_sessions")
    op.drop_table("player_sessions")
    op.drop_index(op.f("ix_card_events_card_id"), table_name="card_events")
    op.drop_table("card_events")
    op.drop_index(op.f("ix_player_cards_player_id"), table_name="player_cards")
    op.drop_table("player_cards")
    op.drop_table("players")
    op.drop_table("accrual_rules")
    op.drop_table("loyalty_tiers")
    op.drop_table("loyalty_program")
