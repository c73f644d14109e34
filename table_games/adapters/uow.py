"""The table games' repositories, registered with the unit of work by the composition root."""

from table_games.adapters.repo import TableRepo

REPOSITORIES = {"tables": TableRepo}
