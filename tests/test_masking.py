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
        # A bare run of digits may be a date or a reference and is kept; a number is masked when
        # named as an account, as code quotes it in messages and tracebacks.
        raise ValueError("no statement for account_no='4402718831'")
    except ValueError:
        logger.exception("ingest failed")
    assert "4402718831" not in caplog.text and "***8831" in caplog.text


def test_log_records_quoting_account_fields_are_masked(caplog: pytest.LogCaptureFixture):
    logger = logging.getLogger("finsync.test")
    caplog.handler.addFilter(MaskAccountNumbers())
    with caplog.at_level(logging.WARNING):
        logger.warning("backend failed: %s", {"term": {"account_no": "4402718831"}})
    assert caplog.messages == ["backend failed: {'term': {'account_no': '***8831'}}"]


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("TRANSFER TO ACCT 4402718831", "TRANSFER TO ACCT ***8831"),
        ("TRANSFER TO ACCT4402718831 ON 20240315", "TRANSFER TO ACCT***8831 ON 20240315"),
        ("A/C NO. 4402-7188-31", "A/C NO. ***8831"),
        ("Account number:\n4402 7188 31", "Account number:\n***8831"),
        ("Kontonummer: 1234567890 BLZ 37040044", "Kontonummer: ***7890 BLZ 37040044"),
        ("KTO-NR. 1234567890", "KTO-NR. ***7890"),
        ("N° de compte 12345678901", "N° de compte ***8901"),
        ("cuenta nº 12345678", "cuenta nº ***5678"),
        ("naar rekening 0417164300", "naar rekening ***4300"),
        ("ACCT 4402718831 15 MAR", "ACCT ***8831 15 MAR"),
        ("ACCT 4402718831 2024-03-15", "ACCT ***8831 2024-03-15"),
    ],
)
def test_numbers_after_account_words_are_masked(text: str, masked: str):
    assert mask_account_numbers(text) == masked


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("POS 5412 7500 9361 4321 GROCER", "POS ***4321 GROCER"),
        ("paid 5412-7500-9361-4321.", "paid ***4321."),
        ("AMEX 3782 822463 10005", "AMEX ***0005"),
        ("visa 4111111111111111", "visa ***1111"),  # no separators, but passes the Luhn check
        ("IBAN: DE89 3704 0044 0532 0130 00 EUR", "IBAN: ***3000 EUR"),
        ("SEPA NL91ABNA0417164300 rent", "SEPA ***4300 rent"),
    ],
)
def test_card_numbers_and_ibans_are_masked_by_their_shape(text: str, masked: str):
    assert mask_account_numbers(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "STARBUCKS 20240315",
        "REF 20240315",
        "ACCOUNTING SERVICES 20240315",
        "CARD PURCHASE 20240315",
        "ref 1234567890123",
        "phone 1-800-555-1234, paid $12,345,678.90 or 1234567.89",
        "cuenta nº 12345678901234567890",  # longer than any account or card number
        "already ***1234 and XXXXXX8831",
    ],
)
def test_dates_references_and_amounts_keep_their_digits(text: str):
    assert mask_account_numbers(text) == text


def test_known_numbers_are_masked_alone_or_at_the_end_of_a_longer_number():
    text = "from 4402718831, 0004402718831 and 12-4402718831; REF 20240315"
    assert mask_account_numbers(text, ["4402718831"]) == (
        "from ***8831, ***8831 and ***8831; REF 20240315"
    )


def test_a_known_number_printed_masked_masks_nothing_else():
    assert mask_account_numbers("store 1234, ref 20241234", ["XXXX XXXX XXXX 1234"]) == (
        "store 1234, ref 20241234"
    )
