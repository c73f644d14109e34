"""Celery entry point: ``celery -A slotsys.app.worker worker`` / ``celery -A slotsys.app.worker beat``."""

from slotsys.app.bootstrap import build_services
from slotsys.kernel.settings import get_settings

celery = build_services(get_settings()).celery
