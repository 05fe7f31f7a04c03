"""Account numbers keep only their last four digits, in text and in logs."""

from __future__ import annotations

import logging

import pytest

from elastic.masking import MaskAccountNumbers, mask_account, mask_account_numbers


def test_mask_account_keeps_the_last_four_digits():
    assert mask_account("5412750093614321") == "***4321"
    assert mask_account("4402-7188-31") == "***8831"


def test_known_numbers_are_masked_however_they_are_written():
    text = "from 4402 7188 31 and 4402718831, on 2024-03-31, $1,234.56"
    assert mask_account_numbers(text, ["4402718831"]) == (
        "from ***8831 and ***8831, on 2024-03-31, $1,234.56"
    )


def test_log_records_are_masked(caplog: pytest.LogCaptureFixture):
    logger = logging.getLogger("finsync.test")
    caplog.handler.addFilter(MaskAccountNumbers())
    with caplog.at_level(logging.WARNING):
        logger.warning("ingest failed for account %s (%s)", "5412750093614321", "card")
    assert caplog.messages == ["ingest failed for account ***4321 (card)"]


def test_tracebacks_in_logs_are_masked(caplog: pytest.LogCaptureFixture):
    logger = logging.getLogger("finsync.test")
    caplog.handler.addFilter(MaskAccountNumbers())
    try:
        raise ValueError("no statement for 4402718831")
    except ValueError:
        logger.exception("ingest failed")
    assert "4402718831" not in caplog.text and "***8831" in caplog.text
