"""WSGI entry point for gunicorn: ``gunicorn slotsys.wsgi:app``."""

from slotsys.app import create_app

app = create_app()
