"""What every page needs: settings, the cached pipeline, the current user and their vocabulary."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date
from functools import cached_property

import streamlit as st

from elastic.model.results import Vocabulary
from elastic.statement_store import StatementStore
from elastic.user_ids import InvalidUserId
from llm.answering.wording import ENGLISH, wording
from llm.embeddings import LocalEmbedder
from llm.first_screen import FirstScreen
from llm.ingesting import Importer
from llm.pipeline import ChatPipeline, Scope
from llm.services import build_pipeline, statement_store
from llm.sources import SourceFile, source_labels
from settings import Settings
from ui.auth import current_user_id
from ui.faults import fault_line


@dataclass(frozen=True)
class AppContext:
    settings: Settings
    pipeline: ChatPipeline
    user_id: str
    fingerprint: str  # keys the caches: another data dir or backend is another pipeline

    @property
    def store(self) -> StatementStore:
        return statement_store(self.settings)

    @property
    def importer(self) -> Importer:
        return Importer(self.pipeline, self.settings, self.store, self.user_id)

    def vocabulary(self) -> Vocabulary:
        return _vocabulary(self.pipeline, self.fingerprint, self.user_id)

    def sources(self, language: str = "en") -> list[SourceFile]:
        """The user's files by name and month (``llm/sources.py``)."""
        return _sources(self.pipeline, self.fingerprint, self.user_id, language)

    def source_labels(self) -> dict[str, str]:
        """Stored file name → the name and month to show (tables' Source column); built once
        per run, however many answers show rows."""
        return self._source_labels

    @cached_property
    def _source_labels(self) -> dict[str, str]:
        return source_labels(self.sources())

    def first_screen(self, language: str, scope: Scope) -> FirstScreen:
        """The overview and example questions of the user's data, for today."""
        return _first_screen(
            self.pipeline, self.fingerprint, self.user_id, date.today(), language, scope
        )


@st.cache_resource(show_spinner="Loading the search engine and models…")
def _pipeline(_settings: Settings, fingerprint: str) -> ChatPipeline:
    """One pipeline per configuration and process: models load once, all sessions share it.

    The local model loads in the background as the app starts, so no question waits for it;
    not a daemon thread, so a process that exits meanwhile waits for the load (under a
    second) instead of tearing ONNX Runtime down mid-load."""
    pipeline = build_pipeline(_settings)
    if isinstance(pipeline.embedder, LocalEmbedder):
        threading.Thread(target=pipeline.embedder.warm_up, name="embedder-warm-up").start()
    return pipeline


@st.cache_data(ttl=300, show_spinner=False)
def _vocabulary(_pipeline: ChatPipeline, fingerprint: str, user_id: str) -> Vocabulary:
    return _pipeline.vocabulary(user_id)


@st.cache_data(ttl=300, show_spinner=False)
def _sources(
    _pipeline: ChatPipeline, fingerprint: str, user_id: str, language: str
) -> list[SourceFile]:
    return _pipeline.sources(user_id, language)


@st.cache_data(ttl=300, show_spinner=False)
def _first_screen(
    _pipeline: ChatPipeline,
    fingerprint: str,
    user_id: str,
    today: date,
    language: str,
    scope: Scope,
) -> FirstScreen:
    return _pipeline.first_screen(user_id, today, language, scope)


def data_changed(context: AppContext) -> None:
    """After an ingest or a forget: the router, the sidebar filters, the file names and the
    overview must see the data as it is now."""
    context.pipeline.data_changed(context.user_id)
    for cached in (_vocabulary, _sources, _first_screen):
        cached.clear()


def ui_language() -> str:
    """The language of the page's own words: the browser's, when FinSync speaks it (an answer
    speaks the language of its question)."""
    locale = st.context.locale or ENGLISH
    return wording(locale.replace("_", "-").split("-")[0].lower()).code


def app_context() -> AppContext:
    """The context for this run; stops the page with an error banner when the backend is down."""
    settings = Settings()
    fingerprint = settings.model_dump_json()
    try:
        pipeline = _pipeline(settings, fingerprint)
    except Exception as exc:
        where = f"Elasticsearch at {settings.es_url}" if settings.es_url else "the local data store"
        st.error(
            fault_line(
                f"FinSync Chat cannot reach {where}",
                exc,
                "Check that it is running, then reload the page.",
            ),
            icon=":material/cloud_off:",
        )
        st.stop()
    try:
        user_id = current_user_id(settings)
    except InvalidUserId as exc:
        st.error(f"FinSync Chat cannot serve this user: {exc}.", icon=":material/person_off:")
        st.stop()
    return AppContext(settings, pipeline, user_id, fingerprint)
