"""One place that builds the google-genai client for Vertex AI, its retry options, and the
translation of its failures into ``ModelUnavailable``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from google import genai
from google.genai import errors, types

from elastic.errors import ModelUnavailable
from settings import Settings

DEFAULT_BACKOFF_S = 1.0
RETRY_STATUS_CODES = [408, 429, 500, 502, 503, 504]
# What Vertex AI's failures look like through google-genai: an HTTP error answer (after the
# retries), a reply that is not the API's JSON, and transport errors and timeouts (httpx's own,
# or the socket's when they surface unwrapped).
VERTEX_FAILURES: tuple[type[Exception], ...] = (
    errors.APIError,
    errors.UnknownApiResponseError,
    httpx.HTTPError,
    ConnectionError,
    TimeoutError,
)


def request_options(settings: Settings, backoff_s: float = DEFAULT_BACKOFF_S) -> types.HttpOptions:
    """Per-request options: bounded retries with exponential backoff and jitter on 408, 429,
    5xx, timeouts and connection errors (google-genai's own tenacity-based retry).

    The client's timeout (``make_client``) applies to each attempt.
    """
    return types.HttpOptions(
        retry_options=types.HttpRetryOptions(
            attempts=settings.vertex_retries + 1,
            initial_delay=backoff_s,
            max_delay=backoff_s * 16,
            jitter=backoff_s / 2,
            http_status_codes=RETRY_STATUS_CODES,
        )
    )


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


@contextmanager
def vertex_call(what: str) -> Iterator[None]:
    """Vertex AI's failures inside the block as ``ModelUnavailable``, naming ``what`` was asked;
    anything else (a bug) passes unchanged."""
    try:
        yield
    except VERTEX_FAILURES as exc:
        raise ModelUnavailable(f"{what}: {type(exc).__name__}: {exc}") from exc
