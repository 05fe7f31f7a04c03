"""What the tests of Gemini's parts share: settings and the real SDK's client for the loopback
Vertex AI server, the Gemini router they route with, and an embedder whose vectors do not
matter."""

from __future__ import annotations

import numpy as np
from google.genai import Client
from google.oauth2.credentials import Credentials

from elastic.model.results import Vocabulary
from llm.pipeline import Router, RouterFactory, TextProbe
from llm.understanding.gemini_router import GeminiRouter
from llm.understanding.offline_router import OfflineRouter
from llm.vertex_client import make_client
from settings import Settings
from tests.vertex_loopback import VertexLoopback


class ZeroEmbedder:
    """Vectors are not what these tests are about; the store only needs their shape."""

    model_name, dims = "zeros", 8

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.zeros((len(texts), self.dims), dtype=np.float32)


def loopback_vertex(server: VertexLoopback, **fields: object) -> tuple[Settings, Client]:
    """Settings that send Vertex AI to ``server`` (``fields`` set the rest) and the SDK's
    client built from them."""
    settings = Settings(gcp_project="test-project", vertex_base_url=server.url, **fields)
    return settings, make_client(settings, credentials=Credentials(token="test-token"))


def gemini_routers(settings: Settings, client: Client) -> RouterFactory:
    """Gemini's router over each user's vocabulary, the offline rules its fallback."""

    def gemini(vocabulary: Vocabulary, probe: TextProbe) -> Router:
        offline = OfflineRouter(vocabulary, probe)
        return GeminiRouter(settings, offline, vocabulary, client, backoff_s=0.01)

    return gemini
