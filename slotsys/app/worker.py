"""Celery entry point: ``celery -A slotsys.app.worker worker`` / ``celery -A slotsys.app.worker beat``."""

from slotsys.app.bootstrap import build_services
from slotsys.kernel.settings import get_settings

_services = build_services(get_settings())
_services.game_library.warm()  # par sheets before the first award or reported game
celery = _services.celery
