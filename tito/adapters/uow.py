"""TITO's repositories, registered with the unit of work by the composition root."""

from tito.adapters.repo import TicketRepo

REPOSITORIES = {"tickets": TicketRepo}
