"""A slot machine as TITO sees it, pure: what a cash-out, a ticket-in and the validation settings need.

The machine itself belongs to the slot floor; TITO reads it through the port
:class:`tito.services.ports.TicketMachines` and gets these frozen views. The **ticket numbering** of a
machine (:class:`TicketNumbering`: its validation scheme, SAS secure enhanced validation ID, next
sequence and ID generation, and its own ticket sequence) is TITO's: only TITO decides it, and it
changes it only through the port (``save_numbering``).

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["MachineTicketMeters", "MachineView", "TicketNumbering"]


@dataclass(frozen=True)
class TicketNumbering:
    """How a machine numbers its tickets (SAS §15).

    ``scheme`` ``"system"`` (host CSPRNG + Damm check digit) or ``"sas"`` (secure enhanced: the
    machine's 3-byte ``sas_validation_id`` and the 3-byte ``sas_sequence`` of its next ticket);
    ``sas_generation`` counts how many times the host drew the ID (rotation, re-enrolment);
    ``ticket_seq`` is the sequence printed on the machine's last ticket (the next is + 1)."""

    scheme: str = "system"
    sas_validation_id: int | None = None
    sas_sequence: int = 0
    sas_generation: int = 0
    ticket_seq: int = 0

    @property
    def uses_sas(self) -> bool:
        """True when the machine prints SAS secure enhanced numbers (scheme sas with an ID drawn)."""
        return self.scheme == "sas" and self.sas_validation_id is not None

    def with_secret(self, validation_id: int, sequence: int) -> "TicketNumbering":
        """A newly drawn validation ID and sequence start: one more generation."""
        return replace(self, sas_validation_id=validation_id, sas_sequence=sequence,
                       sas_generation=self.sas_generation + 1)


@dataclass(frozen=True)
class MachineView:
    """One machine: ``id`` and ``asset_number``, its ``zone`` (the ticket's location is
    ``<zone>/<asset>``), ``status`` (``active`` pays and prints; anything else is locked, with
    ``lock_reason``), its own ``credit_limit`` in won (``None``: the floor default; 0: none) and its
    :class:`TicketNumbering`."""

    id: int
    asset_number: str
    zone: str
    status: str = "active"
    lock_reason: str = ""
    credit_limit: int | None = None
    numbering: TicketNumbering = TicketNumbering()

    @property
    def location(self) -> str:
        """Where its tickets say they were printed: ``<zone>/<asset>``."""
        return f"{self.zone}/{self.asset_number}"

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass(frozen=True)
class MachineTicketMeters:
    """A machine's ticket meters (won and counts), for the reconciliation against the tickets on file."""

    id: int
    asset_number: str
    tickets_out: int
    tickets_out_count: int
    tickets_in: int
    tickets_in_count: int
