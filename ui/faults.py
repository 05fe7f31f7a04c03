"""Faults as one line for the person using the app: what happened and what to do. The details
(type, message, traceback) go to the log, never to the page: a message can hold paths, queries or
someone's data."""

from __future__ import annotations

import logging

import streamlit as st

from elastic.errors import BackendError

log = logging.getLogger(__name__)

_MAX_CHARS = 240


def cause(exc: BaseException) -> str:
    """A few words on why, from the kind of failure, never from its message; a backend error
    keeps the first line of its own wording, which is written for the person asking."""
    if isinstance(exc, BackendError):
        line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return line[:_MAX_CHARS].rstrip(". ") or "the search backend is not answering"
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
    """``what`` happened (``cause``); ``todo``. Logs the exception with its traceback."""
    log.error("%s", what, exc_info=exc)
    return f"{what} ({cause(exc)}). {todo}"


def show_fault(what: str, exc: BaseException, todo: str) -> None:
    st.error(fault_line(what, exc, todo), icon=":material/error:")
