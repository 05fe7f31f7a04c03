"""The two search engines behind ``elastic.backend.SearchBackend``, and the choice between them."""

from __future__ import annotations

from elastic.backend import SearchBackend
from settings import Settings


def open_backend(settings: Settings) -> SearchBackend:
    """Elasticsearch when ``FINSYNC_ES_URL`` is set, the embedded SQLite store otherwise."""
    if settings.es_url:
        from elastic.engines.elasticsearch.backend import ElasticsearchBackend

        return ElasticsearchBackend(settings)
    from elastic.engines.sqlite.backend import EmbeddedBackend

    return EmbeddedBackend(settings)
