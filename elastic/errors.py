"""The errors FinSync raises on purpose, one hierarchy for every layer.

Each kind is raised where the failure is met and translated there from the library's own
exceptions (the engines' clients, SQLite, google-genai, a reader's parser), so the layers above
handle these classes and nothing else. Anything outside this tree is a bug and propagates.

::

    FinSyncError
    ├── BackendError            a search backend failed (elastic/engines/*/backend.py)
    │   ├── BackendUnavailable  an outage: down, hung, refusing, damaged, busy
    │   └── QueryRejected       a request the engine refused: a bug, logged with the request
    ├── EmbeddingMismatch       stored vectors from another embedding model: the fix is named
    ├── IngestError             a file as a whole cannot be read (``UnreadableFile``); bad rows
    │                           are not errors but problems in the ingest report
    └── ModelError              Gemini or Vertex AI embeddings failed (llm/)
        ├── ModelUnavailable    no usable reply: an API error after retries, transport, timeout
        └── ModelOutputRejected the model replied, but its output cannot be used

``str(exc)`` is worded for the person using FinSync and is one line.
"""

from __future__ import annotations

from typing import ClassVar


class FinSyncError(Exception):
    """A failure FinSync knows how to word; see the module docstring for the kinds."""


class BackendError(FinSyncError, RuntimeError):
    """A backend failure worded for the person asking: callers show ``str(exc)`` as one line.

    Both backends translate their engine's errors into the two kinds below at their boundary,
    so the pipeline, the CLI and the app handle one set of exceptions.
    """


class BackendUnavailable(BackendError):
    """The backend is down, hung, refusing, damaged or busy: an outage, not the question."""


class QueryRejected(BackendError):
    """The backend refused a request as malformed: a bug in FinSync, logged with the request."""


class EmbeddingMismatch(FinSyncError, RuntimeError):
    """Stored vectors were made by another embedding model or have another dimension; the
    message says which store to use or delete."""


class IngestError(FinSyncError, ValueError):
    """A file that cannot be read at all; the importer reports it as the file's one problem."""


class ModelError(FinSyncError):
    """A model call failed; every caller has a deterministic fallback and logs the reason."""

    reason: ClassVar[str] = "model error"  # what the fallback logs as the cause


class ModelUnavailable(ModelError):
    """Vertex AI gave no usable reply: an API error after the retries, a transport error or a
    timeout (translated in ``llm.vertex_client.vertex_call``)."""

    reason: ClassVar[str] = "model unavailable"


class ModelOutputRejected(ModelError, ValueError):
    """The model answered, but its output is unusable: a plan that is not valid JSON or not a
    valid plan, numbers the computed answer does not support, a category not offered, or
    embeddings of the wrong shape. Shown, should it ever reach a person, as an internal error."""

    reason: ClassVar[str] = "model output rejected"


def headline(exc: FinSyncError) -> str:
    """``exc`` as one line for the person using FinSync: a rejected model output is an internal
    error (a bug, as a rejected query is), an unreachable model an outage of the model."""
    lines = str(exc).strip().splitlines()
    line = lines[0].strip() if lines else ""
    if isinstance(exc, ModelOutputRejected):
        return f"Internal error: the language model's output could not be used ({line})"
    if isinstance(exc, ModelUnavailable):
        return f"The language model is not answering ({line})"
    return line or type(exc).__name__
