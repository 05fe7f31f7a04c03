"""Build the pipeline's parts from settings: one wiring for the CLI, the app and the tests."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from elastic.backend import SearchBackend
from elastic.chat_store import ChatStore
from elastic.engines import open_backend
from elastic.ingest.bank_csv import ColumnMapping
from elastic.ingest.cleaning import CATEGORIES
from elastic.ingest.landing import CategoryFallback
from elastic.model.results import Vocabulary
from elastic.statement_store import StatementStore
from elastic.uploads import UploadStore
from llm.embeddings import Embedder, make_embedder
from llm.pipeline import ChatPipeline, Composer, Router, RouterFactory, TextProbe
from llm.understanding.meaning import Meaning
from llm.understanding.offline_router import OfflineRouter
from settings import Settings

log = logging.getLogger(__name__)


def statement_store(settings: Settings) -> StatementStore:
    return StatementStore(settings.statements_dir)


def upload_store(settings: Settings) -> UploadStore:
    return UploadStore(settings.uploads_dir)


def open_prepared_backend(settings: Settings, embedder: Embedder) -> SearchBackend:
    """The configured backend with its stores created for this embedder's vectors."""
    backend = open_backend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    return backend


def offline_routers(embedder: Embedder) -> RouterFactory:
    """The offline rules, placing words no name or lexicon knows by meaning with ``embedder``."""

    def build(vocabulary: Vocabulary, describes: TextProbe) -> OfflineRouter:
        return OfflineRouter(vocabulary, describes, Meaning(vocabulary, embedder.embed))

    return build


def gemini_parts(settings: Settings, embedder: Embedder) -> tuple[RouterFactory, Composer]:
    """Gemini routing (offline rules as fallback) and composing, sharing one Vertex client."""
    from llm.answering.gemini_composer import GeminiComposer
    from llm.understanding.gemini_router import GeminiRouter
    from llm.vertex_client import make_client

    client = make_client(settings)
    offline = offline_routers(embedder)

    def build(vocabulary: Vocabulary, describes: TextProbe) -> Router:
        return GeminiRouter(settings, offline(vocabulary, describes), vocabulary, client)

    return build, GeminiComposer(settings, client)


def category_fallback(settings: Settings) -> CategoryFallback | None:
    """Gemini categorises what rules and history cannot, when Vertex AI is configured."""
    if not settings.vertex_enabled:
        return None
    from llm.gemini_categories import GeminiCategoriser

    return GeminiCategoriser(settings, CATEGORIES)


def column_proposer(settings: Settings) -> Callable[[Path], ColumnMapping | None] | None:
    """Gemini proposes column readings for exports read offline with doubt, when Vertex AI is
    configured; each proposal is checked against the file (``llm/gemini_columns``)."""
    if not settings.vertex_enabled:
        return None
    from llm.gemini_columns import GeminiColumns

    return GeminiColumns(settings).propose


def chat_store(settings: Settings) -> ChatStore:
    return ChatStore(settings.chats_dir)


def build_pipeline(settings: Settings) -> ChatPipeline:
    embedder = make_embedder(settings)
    backend = open_prepared_backend(settings, embedder)
    chats = chat_store(settings)
    if settings.vertex_enabled:
        factory, composer = gemini_parts(settings, embedder)
        return ChatPipeline(backend, embedder, factory, composer, chats)
    return ChatPipeline(backend, embedder, offline_routers(embedder), chats=chats)
