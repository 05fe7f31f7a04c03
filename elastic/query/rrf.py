"""Reciprocal rank fusion, shared by both backends: score = Σ 1 / (k + rank)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

RRF_K = 60
T = TypeVar("T", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[T]], k: int = RRF_K, limit: int | None = None
) -> list[tuple[T, float]]:
    """Fuse ranked id lists (best first) into one list of ``(id, score)``, best first.

    Ties keep the order in which ids were first seen, so the fusion is deterministic.
    """
    scores: dict[T, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    fused = sorted(scores.items(), key=lambda pair: -pair[1])
    return fused[:limit] if limit is not None else fused
