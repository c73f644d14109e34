"""Pure accounting rules: standard library, :mod:`slotsys.domain` and pure math only (no framework, database,
cache or task queue)."""
