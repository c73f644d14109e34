"""The players' repositories, registered with the unit of work by the composition root."""

from slotsys.players.adapters.repo import PlayerRepo

REPOSITORIES = {"players": PlayerRepo}
