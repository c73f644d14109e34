"""Celery entry point: ``celery -A slotsys.app.worker worker`` / ``celery -A slotsys.app.worker beat``."""

from slotsys.app.bootstrap import services

celery = services().celery
