"""The jackpot controller's repositories, registered with the unit of work by the composition root."""

from jackpot_controller.adapters.repo import LevelRepo

REPOSITORIES = {"levels": LevelRepo}
