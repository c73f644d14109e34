"""The pure SAS core: standard library and ``crccheck`` only (plus the game catalogue's pure domain modules the
EGM model plays). No I/O, no clock: time is passed in as seconds (``now``) by the caller."""
