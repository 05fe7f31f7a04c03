"""Index mappings for statements and transactions; vector dims come from the embedder."""

from __future__ import annotations

from typing import Any

KEYWORD = {"type": "keyword"}
TEXT_WITH_KEYWORD = {"type": "text", "fields": {"keyword": {"type": "keyword"}}}
BOX = {"type": "float", "index": False}  # x0, top, x1, bottom on the page, for highlighting
UNSEARCHED_KEYWORD = {"type": "keyword", "index": False, "doc_values": False}


def transactions_mapping() -> dict[str, Any]:
    return {
        "dynamic": "strict",
        "properties": {
            "transaction_id": KEYWORD,
            "user_id": KEYWORD,
            "date": {"type": "date", "format": "strict_date"},
            # Matched and sorted as one exact term (the keyword form) only: the words are not
            # indexed, which spares every import their analysis.
            "description": {"type": "text", "index": False, "fields": {"keyword": KEYWORD}},
            # Money as integer cents: sums are exact and agree with the embedded backend.
            "amount_cents": {"type": "long"},
            "magnitude_cents": {"type": "long"},
            "currency": KEYWORD,
            "category": KEYWORD,
            "merchant": {"type": "keyword", "fields": {"text": {"type": "text", "norms": False}}},
            "account_no": KEYWORD,
            "account_name": KEYWORD,
            "bank_name": KEYWORD,
            "balance_cents": {"type": "long"},
            "source_file": KEYWORD,
            # Shown with a row, never searched, sorted or counted: kept in the source only.
            "location": UNSEARCHED_KEYWORD,
            "raw_description": UNSEARCHED_KEYWORD,
            "merchant_inferred": {"type": "boolean"},
            "category_inferred": {"type": "boolean"},
            "page": {"type": "integer"},
            "box": {**BOX, "doc_values": False},
            "payment_kind": KEYWORD,
            "reconciliation": KEYWORD,
        },
    }


def facts_mapping() -> dict[str, Any]:
    """Statement facts (balances and totals a file states), one document per fact."""
    return {
        "dynamic": "strict",
        "properties": {
            "fact_id": KEYWORD,
            "user_id": KEYWORD,
            "statement_id": KEYWORD,
            "name": KEYWORD,
            "amount_cents": {"type": "long"},
            "currency": KEYWORD,
            "as_of": {"type": "date", "format": "strict_date"},
            "account_no": KEYWORD,
            "account_name": KEYWORD,
            "bank_name": KEYWORD,
            "source_file": KEYWORD,
            "location": {"type": "keyword", "index": False},
            "page": {"type": "integer"},
            "day": {"type": "date", "format": "strict_date"},
            "box": BOX,
            "file_name": UNSEARCHED_KEYWORD,
        },
    }


def category_rules_mapping() -> dict[str, Any]:
    """A user's corrections: this merchant is always this category."""
    return {
        "dynamic": "strict",
        "properties": {"user_id": KEYWORD, "merchant": KEYWORD, "category": KEYWORD},
    }


def statements_mapping(dims: int, embedding_model: str) -> dict[str, Any]:
    return {
        "dynamic": "strict",
        "_meta": {"embedding_model": embedding_model, "dims": dims},
        "properties": {
            "statement_id": KEYWORD,
            "user_id": KEYWORD,
            "account_no": KEYWORD,
            "account_name": TEXT_WITH_KEYWORD,
            "bank_name": TEXT_WITH_KEYWORD,
            "statement_from": {"type": "date", "format": "strict_date"},
            "statement_to": {"type": "date", "format": "strict_date"},
            "page": {"type": "integer"},
            "chunk": {"type": "integer"},
            "text": {"type": "text"},
            # "words" splits on punctuation too, so "COURSERA.ORG" is found by "coursera".
            "summary_text": {
                "type": "text",
                "fields": {"words": {"type": "text", "analyzer": "simple"}},
            },
            "summary_vector": {
                "type": "dense_vector",
                "dims": dims,
                "index": True,
                "similarity": "cosine",
            },
            "embedding_model": KEYWORD,
            "source_file": {"type": "keyword", "index": False},
            # The statement's reconciliation as JSON text: shown, never searched.
            "reconciliation": UNSEARCHED_KEYWORD,
            "file_name": UNSEARCHED_KEYWORD,
        },
    }
