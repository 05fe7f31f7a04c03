"""Build the pipeline's parts from settings: one wiring for the CLI, the app and the tests."""

from __future__ import annotations

import logging

from elastic.backend import SearchBackend, open_backend
from elastic.results import Vocabulary
from elastic.statement_store import StatementStore
from llm.embeddings import Embedder, make_embedder
from llm.intent_router import OfflineRouter
from llm.pipeline import ChatPipeline, Composer, Router, RouterFactory
from settings import Settings

log = logging.getLogger(__name__)


def statement_store(settings: Settings) -> StatementStore:
    return StatementStore(settings.statements_dir)


def open_prepared_backend(settings: Settings, embedder: Embedder) -> SearchBackend:
    """The configured backend with its stores created for this embedder's vectors."""
    backend = open_backend(settings)
    backend.prepare(embedder.dims, embedder.model_name)
    return backend


def router_factory(settings: Settings) -> RouterFactory:
    if not settings.vertex_enabled:
        return OfflineRouter
    from llm.gemini_router import GeminiRouter

    def build(vocabulary: Vocabulary) -> Router:
        return GeminiRouter(settings, OfflineRouter(vocabulary), vocabulary)

    return build


def composer(settings: Settings) -> Composer | None:
    if not settings.vertex_enabled:
        return None
    from llm.vertex_chat import GeminiComposer

    return GeminiComposer(settings)


def build_pipeline(settings: Settings) -> ChatPipeline:
    embedder = make_embedder(settings)
    backend = open_prepared_backend(settings, embedder)
    return ChatPipeline(backend, embedder, router_factory(settings), composer(settings))
