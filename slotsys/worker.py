"""Celery entry point: ``celery -A slotsys.worker worker`` / ``celery -A slotsys.worker beat``."""

from slotsys.bootstrap import services

celery = services().celery
