"""Typed settings for FinSync Chat, read from ``FINSYNC_*`` environment variables."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every knob the app, the CLI and the tests share.

    The backend is Elasticsearch when ``es_url`` is set, the embedded SQLite store otherwise;
    Gemini routes and writes when ``gcp_project`` is set, the offline rules otherwise.
    """

    model_config = SettingsConfigDict(env_prefix="FINSYNC_", extra="ignore")

    es_url: str | None = Field(default=None, description="Elasticsearch URL; unset = embedded")
    es_api_key: SecretStr | None = None
    es_timeout_s: float = Field(
        default=5.0,
        description="Seconds a question or browse request may take; a node that does not answer "
        "in time is reported as unavailable, not retried",
    )
    es_write_timeout_s: float = Field(
        default=60.0, description="Seconds an ingest request (bulk write, index creation) may take"
    )
    statements_index: str = "finsync-statements"
    transactions_index: str = "finsync-transactions"
    facts_index: str = "finsync-facts"
    category_rules_index: str = "finsync-category-rules"
    default_currency: str = Field(
        default="USD", description="Currency of a file that names none and no --currency"
    )
    data_dir: Path = Path(".finsync")
    store_lock_timeout_s: float = Field(
        default=5.0,
        description="Seconds a write to the embedded store waits for another process's import "
        "before reporting the store busy (questions never wait: they need no write lock)",
    )

    user: str = Field(default="local", description="User id when no sign-in is configured")
    max_upload_mb: int = Field(
        default=50, description="Largest file the Ingest page takes (the CLI has no limit)"
    )
    max_upload_pages: int = Field(
        default=300, description="Most pages of a PDF the Ingest page takes (the CLI has no limit)"
    )

    api_requests_per_minute: int = Field(
        default=60, description="Requests one API token may make a minute; more are answered 429"
    )
    api_max_question_chars: int = Field(
        default=2000, description="Longest question the API takes; a longer one is answered 413"
    )
    api_tls_cert: Path | None = Field(
        default=None, description="PEM certificate: with api_tls_key, `finsync api` serves HTTPS"
    )
    api_tls_key: Path | None = Field(default=None, description="PEM private key of api_tls_cert")
    api_token: SecretStr | None = Field(
        default=None, description="The API token `finsync mcp` acts with: it serves that user"
    )

    embedder: str = Field(default="auto", description="auto | local | vertex")
    gcp_project: str | None = None
    gcp_location: str = "us-central1"
    gemini_model: str = "gemini-2.5-flash"
    vertex_embedding_model: str = "text-embedding-005"
    vertex_embedding_dims: int = 768
    vertex_base_url: str | None = Field(
        default=None, description="Override of the Vertex AI endpoint (loopback tests, proxies)"
    )
    vertex_timeout_s: float = 20.0
    vertex_retries: int = 3

    @property
    def vertex_enabled(self) -> bool:
        return bool(self.gcp_project)

    @property
    def api_tokens_file(self) -> Path:
        """API tokens (a hash of each and the user it acts for), whatever the backend."""
        return self.data_dir / "api-tokens.sqlite3"

    @property
    def statements_dir(self) -> Path:
        """Where original statement PDFs are kept so citations can show the page."""
        return self.data_dir / "statements"

    @property
    def uploads_dir(self) -> Path:
        """Where the app keeps an uploaded file while it is previewed and imported."""
        return self.data_dir / "uploads"

    @property
    def layouts_dir(self) -> Path:
        """Where the column readings people chose for their exports' layouts are kept."""
        return self.data_dir / "layouts"

    @property
    def chats_dir(self) -> Path:
        """Where each user's conversation in the app is kept, so a reload shows it again."""
        return self.data_dir / "chats"
