"""One place that builds the google-genai client for Vertex AI."""

from __future__ import annotations

from typing import Any

from google import genai
from google.genai import types

from settings import Settings


def make_client(settings: Settings, credentials: Any | None = None) -> genai.Client:
    """A Vertex AI client with the configured project, location, endpoint and timeout.

    ``credentials`` defaults to Application Default Credentials; tests pass static ones.
    """
    options = types.HttpOptions(timeout=int(settings.vertex_timeout_s * 1000))
    if settings.vertex_base_url:
        options.base_url = settings.vertex_base_url
    return genai.Client(
        vertexai=True,
        project=settings.gcp_project,
        location=settings.gcp_location,
        credentials=credentials,
        http_options=options,
    )
