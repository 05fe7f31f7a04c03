"""The local embedder: the real int8 all-MiniLM-L6-v2 on ONNX Runtime."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from llm.embeddings import (
    BATCH_SIZE,
    MAX_WORD_PIECES,
    RUN_WORD_PIECES,
    LocalEmbedder,
    RememberedVectors,
    _OnnxMiniLM,
)

TEXTS = [
    "Overdraft fee $35.00 per item",
    "Closing balance",
    "Kontoführungsgebühr 4,95 EUR",
    "رسوم السحب على المكشوف",
    "",
]
# Well past 256 word pieces.
LONG = "Card purchase at the supermarket on Main Street, reference 4711. " * 40


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)  # the rows are unit length


def test_dims_are_known_without_loading_the_model():
    embedder = LocalEmbedder()
    assert embedder.dims == 384
    assert embedder._model is None


def test_vectors_are_unit_length_float32_rows(embedder: LocalEmbedder):
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_no_texts_give_an_empty_matrix(embedder: LocalEmbedder):
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_the_same_texts_give_the_same_vectors(embedder: LocalEmbedder):
    np.testing.assert_array_equal(embedder.compute(TEXTS), embedder.compute(TEXTS))


def test_similar_meanings_are_closer(embedder: LocalEmbedder):
    fee, overdrawn, groceries = embedder.embed(
        [
            "overdraft fee",
            "fee charged when the account is overdrawn",
            "grocery shopping at the supermarket",
        ]
    )
    assert _cosine(fee, overdrawn) > _cosine(fee, groceries)


def test_long_texts_are_truncated(embedder: LocalEmbedder):
    assert len(LONG.split()) > MAX_WORD_PIECES
    long, longer = embedder.embed([LONG, LONG + " A tail the model never reads."])
    assert np.linalg.norm(long) == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(long, longer, atol=1e-6)


def test_a_text_gets_the_same_vector_alone_or_in_any_batch(embedder: LocalEmbedder):
    # More texts than one batch holds, of very different lengths, so padding differs.
    texts = [LONG, *TEXTS, *(f"Card purchase {i} at store {i * 7}" for i in range(BATCH_SIZE))]
    batched = embedder.compute(texts)
    for index in (0, 1, 4, 5, len(texts) - 1):
        np.testing.assert_allclose(batched[index], embedder.compute([texts[index]])[0], atol=1e-5)


def test_texts_run_unpadded_and_get_the_vectors_of_one_padded_batch(
    embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
):
    medium = "Interest charged on purchases at the standard variable rate. " * 4
    texts = [medium, *TEXTS, *(f"Card purchase {i} at store {i * 7}" for i in range(12))]
    model = embedder._loaded()
    pieces = [encoding.ids for encoding in model.tokenizer.encode_batch(texts)]
    padded = model.embed(pieces)  # one batch, every text padded to the longest
    runs: list[list[int]] = []
    model_embed = _OnnxMiniLM.embed

    def recorded(self: _OnnxMiniLM, run: list[list[int]]) -> np.ndarray:
        runs.append([len(p) for p in run])
        return model_embed(self, run)

    monkeypatch.setattr(_OnnxMiniLM, "embed", recorded)
    np.testing.assert_allclose(embedder.compute(texts), padded, atol=1e-6)
    assert len(runs) < len(texts)  # texts of one length share a run
    assert all(len(set(run)) == 1 and sum(run) <= RUN_WORD_PIECES for run in runs)
    assert sorted(n for run in runs for n in run) == sorted(map(len, pieces))


def test_warm_up_loads_once_even_from_two_threads(monkeypatch: pytest.MonkeyPatch):
    loads: list[_OnnxMiniLM] = []
    real_load = _OnnxMiniLM.load

    def counted_load(tokenizer_file: Path) -> _OnnxMiniLM:
        loads.append(real_load(tokenizer_file))
        return loads[-1]

    monkeypatch.setattr(_OnnxMiniLM, "load", counted_load)
    embedder = LocalEmbedder()
    start = threading.Barrier(2)

    def warm_up_and_embed() -> np.ndarray:
        start.wait()
        embedder.warm_up()
        return embedder.embed(TEXTS)

    with ThreadPoolExecutor(2) as pool:
        first, second = (f.result() for f in [pool.submit(warm_up_and_embed) for _ in range(2)])
    embedder.warm_up()
    assert len(loads) == 1
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, embedder.embed(TEXTS))


def test_remembered_vectors_embed_each_text_once_and_keep_the_latest(embedder: LocalEmbedder):
    asked: list[list[str]] = []

    def counted(texts: list[str]) -> np.ndarray:
        asked.append(list(texts))
        return embedder.compute(texts)

    remembered = RememberedVectors(counted, size=3)
    first = remembered([TEXTS[0], TEXTS[1], TEXTS[0]])
    np.testing.assert_allclose(first, embedder.compute([TEXTS[0], TEXTS[1], TEXTS[0]]), atol=1e-5)
    assert asked == [[TEXTS[0], TEXTS[1]]]  # a repeated text is embedded once

    again = remembered([TEXTS[1], TEXTS[2]])
    assert asked[-1] == [TEXTS[2]]
    np.testing.assert_allclose(again[0], first[1])

    remembered([TEXTS[3]])  # four texts seen, room for three: the least recent goes
    remembered([TEXTS[0]])
    assert asked[-1] == [TEXTS[0]]
    assert remembered([]).shape == (0, embedder.dims)


def test_the_embedder_remembers_what_it_embedded(
    embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
):
    runs: list[int] = []
    model_embed = _OnnxMiniLM.embed

    def counted(self: _OnnxMiniLM, pieces: list[list[int]]) -> np.ndarray:
        runs.append(len(pieces))
        return model_embed(self, pieces)

    monkeypatch.setattr(_OnnxMiniLM, "embed", counted)
    text = "Returned item fee: $29.00 per item returned unpaid."
    first = embedder.embed([text])
    again = embedder.embed(["Stop payment fee: $31.00 per request.", text])
    assert runs == [1, 1]  # the second call ran the model for the new text only
    np.testing.assert_array_equal(again[1], first[0])
