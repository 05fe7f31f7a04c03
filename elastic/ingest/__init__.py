"""Ingestion: any bank file in (detected by content), clean transactions and statement pages out,
always through an ``Importer`` (``importer.py``)."""

from elastic.ingest.importer import Importer

__all__ = ["Importer"]
