"""Pure accounting rules: standard library, the kernel (:mod:`slotsys.kernel`) and pure math only (no framework, database,
cache or task queue)."""
