"""Faults as one line for the person using FinSync (on a page, or in an API answer): what
happened and what to do. The details (type, message, traceback) go to the log, never to the
person: a message can hold paths, queries or someone's data."""

from __future__ import annotations

import logging

from elastic.errors import BackendError, EmbeddingMismatch, FinSyncError, headline

log = logging.getLogger(__name__)

_MAX_CHARS = 240


def cause(exc: BaseException) -> str:
    """A few words on why, from the kind of failure, never from a library's message. FinSync's
    own errors keep the first line of their wording, which is written for the person asking:
    an outage says what is not answering, a rejected query or model output is an internal
    error, an unreadable file says what was seen."""
    if isinstance(exc, EmbeddingMismatch):
        return "the stored vectors were made by another embedding model"
    if isinstance(exc, BackendError) and not str(exc).strip():
        return "the search backend is not answering"
    if isinstance(exc, FinSyncError):
        return headline(exc)[:_MAX_CHARS].rstrip(". ")
    if isinstance(exc, TimeoutError):
        return "it took too long"
    if isinstance(exc, ConnectionError):
        return "the connection to the data store failed"
    if isinstance(exc, MemoryError):
        return "the server ran out of memory"
    if isinstance(exc, OSError):
        return "a file could not be read or written"
    return f"an unexpected {type(exc).__name__}"


def fault_line(what: str, exc: BaseException, todo: str) -> str:
    """``what`` happened (``cause``); ``todo``, or for an embedding mismatch its own fix (which
    store to use or delete: trying again cannot help). Logs the exception with its traceback."""
    log.error("%s", what, exc_info=exc)
    if isinstance(exc, EmbeddingMismatch) and str(exc).strip():
        todo = headline(exc)
    return f"{what} ({cause(exc)}). {todo}"
