"""The errors every layer above the engines handles, whichever engine raised them."""

from __future__ import annotations


class BackendError(RuntimeError):
    """A backend failure worded for the person asking: callers show ``str(exc)`` as one line.

    Both backends translate their engine's errors into the two kinds below at their boundary,
    so the pipeline, the CLI and the app handle one set of exceptions.
    """


class BackendUnavailable(BackendError):
    """The backend is down, hung, refusing, damaged or busy: an outage, not the question."""


class QueryRejected(BackendError):
    """The backend refused a request as malformed: a bug in FinSync, logged with the request."""


class EmbeddingMismatch(RuntimeError):
    """Stored vectors were made by another embedding model or have another dimension."""
