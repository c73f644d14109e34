"""TITO's repositories, registered with the unit of work by the composition root
(:class:`tito.services.ports.TitoUnitOfWork`)."""

from tito.adapters.repo import DrawerRepo, PromoRequestRepo, TicketRepo

REPOSITORIES = {"tickets": TicketRepo, "cage_drawers": DrawerRepo, "promo_requests": PromoRequestRepo}
