"""Ingestion: any bank file in (detected by content), clean transactions and statement pages out."""

from elastic.ingest.landing import ingest_statements, ingest_transactions

__all__ = ["ingest_statements", "ingest_transactions"]
