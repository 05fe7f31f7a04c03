"""What storing and searching statement text needs of an embedding model.

The models themselves (local ONNX, Vertex AI) live in ``llm/embeddings.py``; this layer only
needs vectors of a known model and size.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    model_name: str
    dims: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        ...
