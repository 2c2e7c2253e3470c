"""WSGI entry point of the JSON:API test server."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "testserver.settings")
application = get_wsgi_application()
