"""SAS (Slot Accounting System 6.02/6.03): the casino host's serial protocol to every slot machine (EGM).

Layout: ``domain`` (pure: CRC, BCD, framing, message codecs, the host's per-machine link state machine and the
EGM model the emulator plays), ``adapters`` (serial / pseudo-terminal / TCP links), ``services`` (the host
engine :class:`~slotsys.sas.services.host.SasHost`, its :class:`~slotsys.sas.services.floor_port.FloorPort` and
the in-memory floor), ``emulator`` (SAS machines on a link, with fault injection) and ``cli``. docs/sas.md.
"""
