"""WSGI entry point for gunicorn: ``gunicorn slotsys.app.wsgi:app``."""

from slotsys.app.factory import create_app

app = create_app()
