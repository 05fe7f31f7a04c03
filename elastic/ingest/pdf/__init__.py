"""Statement PDFs in any layout: page words, metadata, statement facts, transaction tables."""
