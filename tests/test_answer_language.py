"""Answers in the asker's language: questions in Arabic and German, asked of a real SQLite store
holding the sample data, get their whole answer in that language, with money written by babel
for the locale and the same numbers as the English answer; English stays as it was."""

from __future__ import annotations

import json
import re
import tomllib
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from babel.numbers import format_currency
from streamlit.testing.v1 import AppTest

from elastic.engines.sqlite.backend import EmbeddedBackend
from elastic.model.plan import Intent, Message
from elastic.model.results import CompareResult, TrendResult
from elastic.query.flows import NO_VECTOR_NOTE, VECTOR_FAILED_NOTE
from llm.answering.answer import Answer, Suggestions, Table
from llm.answering.composer import compose_answer
from llm.answering.messages import word
from llm.answering.wording import TEMPLATES, Wording, wording
from llm.embeddings import LocalEmbedder
from llm.executor import execute
from llm.pipeline import UNPLACEABLE, ChatPipeline, Scope
from llm.understanding.coverage import unknown_account
from llm.understanding.language import question_language
from llm.understanding.offline_router import OfflineRouter
from scripts.sample_data import SampleSet
from tests.app_server import APP, ingest_sample_into
from tests.conftest import SAMPLE_USER
from tests.test_cli import answers, finsync
from ui.figures import compare_figure, trend_figure

AS_OF = date(2025, 7, 15)
LOCALES = {"ar": "ar", "de": "de_DE", "fr": "fr_FR", "es": "es_ES"}
LANGUAGES = ("ar", "de", "fr", "es")
# One question per kind of answer: English, Arabic, German, French, Spanish.
QUESTIONS = {
    "aggregate": (
        "How much did I spend on groceries in 2024?",
        "كم أنفقت على البقالة في ٢٠٢٤؟",
        "Wie viel habe ich 2024 für Lebensmittel ausgegeben?",
        "Combien ai-je dépensé en courses en 2024 ?",
        "¿Cuánto gasté en el supermercado en 2024?",
    ),
    "trend": (
        "How many times did I buy from Amazon each month in 2024?",
        "كم مرة اشتريت من أمازون كل شهر في ٢٠٢٤؟",
        "Wie oft habe ich jeden Monat 2024 bei Amazon eingekauft?",
        "Combien de fois ai-je acheté chez Amazon chaque mois en 2024 ?",
        "¿Cuántas veces compré en Amazon cada mes en 2024?",
    ),
    "listing": (
        "Show my 5 largest purchases at Amazon in 2024",
        "أكبر ٥ مشتريات في أمازون في ٢٠٢٤",
        "Liste meine 5 größten Einkäufe bei Amazon 2024",
        "Montre mes 5 plus gros achats chez Amazon en 2024",
        "Muéstrame mis 5 compras más grandes en Amazon en 2024",
    ),
    "compare": (
        "Compare dining spending in Q1 and Q2",
        "قارن الإنفاق على المطاعم في الربع الأول والثاني",
        "Vergleiche meine Ausgaben für Restaurants im ersten und zweiten Quartal",
        "Compare mes dépenses au restaurant au premier et au deuxième trimestre",
        "Compara mis gastos en restaurantes en el primer y el segundo trimestre",
    ),
    "extreme": (
        "What was my smallest purchase at Starbucks?",
        "أصغر عملية شراء في ستاربكس",
        "Was war mein kleinster Einkauf bei Starbucks?",
        "Quelle a été ma plus petite dépense chez Starbucks ?",
        "¿Cuál fue mi compra más pequeña en Starbucks?",
    ),
}
_WORD = re.compile(r"[^\W\d_]{3,}")
_FIELD = re.compile(r"\{\w+\}")
_US_MONEY = re.compile(r"-?\$[\d,]+\.\d{2}")


def _template_words(code: str) -> set[str]:
    """The words of a language's templates (not its ``format`` settings)."""
    tables = tomllib.loads((TEMPLATES / f"{code}.toml").read_text("utf-8"))
    tables.pop("format")
    texts: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, str):
            texts.append(_FIELD.sub(" ", node))

    walk(tables)
    return {word.casefold() for text in texts for word in _WORD.findall(text)}


ENGLISH_WORDS = _template_words("en") - {"finsync", "csv", "apr"}


@pytest.fixture(scope="module")
def pipeline(embedded_sample: EmbeddedBackend, embedder: LocalEmbedder) -> ChatPipeline:
    return ChatPipeline(embedded_sample, embedder, OfflineRouter)


def _data_words(pipeline: ChatPipeline, answer: Answer) -> set[str]:
    """Words the answer may carry from the data: names, descriptions, passages."""
    data = json.dumps([answer.data(), answer.plan.model_dump(mode="json")])
    data += repr(pipeline.vocabulary(SAMPLE_USER))
    return {word.casefold() for word in _WORD.findall(data)}


def english_left(pipeline: ChatPipeline, answer: Answer) -> set[str]:
    """English template words in ``answer`` that no name or passage of its data explains, nor
    the answer's own language's templates ("total" is French too)."""
    words = {word.casefold() for word in _WORD.findall(answer.text)}
    own = _template_words(answer.language) if answer.language != "en" else set()
    return (words - _data_words(pipeline, answer) - own) & ENGLISH_WORDS


def _babel_money(value: Decimal, language: str) -> str:
    return format_currency(
        value, "USD", locale=LOCALES[language], currency_digits=False, numbering_system="latn"
    )


def assert_same_money(english: str, other: str, language: str) -> None:
    """Every amount of the English answer is in the other one, written by babel for its locale,
    as often."""
    amounts = [Decimal(raw.replace("$", "").replace(",", "")) for raw in _US_MONEY.findall(english)]
    assert amounts
    for value in set(amounts):
        shown = _babel_money(value, language)
        assert other.count(shown) >= amounts.count(value), (shown, other)


def _numbers(text: str) -> list[int]:
    """The whole numbers written in ``text``, citation markers left out."""
    return [int(n) for n in re.findall(r"\d+", re.sub(r"\[\d+\]", " ", text))]


def assert_in_language(pipeline: ChatPipeline, answer: Answer, language: str) -> None:
    assert answer.language == language
    assert not english_left(pipeline, answer), english_left(pipeline, answer)
    own = _template_words(language) - ENGLISH_WORDS
    assert len({w.casefold() for w in _WORD.findall(answer.text)} & own) >= 2, answer.text


@pytest.mark.parametrize("kind", list(QUESTIONS))
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_answer_is_in_the_language_of_its_question(
    pipeline: ChatPipeline, kind: str, language: str
) -> None:
    english_question, *others = QUESTIONS[kind]
    english = pipeline.ask(english_question, SAMPLE_USER, AS_OF)
    asked = others[LANGUAGES.index(language)]
    answer = pipeline.ask(asked, SAMPLE_USER, AS_OF)

    assert english.language == "en" and english.intent is not Intent.clarify
    assert answer.plan == english.plan  # the same question, so the same numbers
    assert answer.data() == english.data()
    assert_in_language(pipeline, answer, language)
    assert [c.n for c in answer.citations] == [c.n for c in english.citations]
    for citation in answer.citations:
        assert not (set(_WORD.findall(citation.source.casefold())) & ENGLISH_WORDS) - (
            _data_words(pipeline, answer)
        )
    if kind == "trend":  # counts, not money: the same numbers, days and months included
        assert sorted(_numbers(answer.text)) == sorted(_numbers(english.text))
    else:
        assert_same_money(english.text, answer.text, language)


def test_a_listing_table_has_the_languages_columns(pipeline: ChatPipeline) -> None:
    answer = pipeline.ask(QUESTIONS["listing"][2], SAMPLE_USER, AS_OF)
    (table,) = [part for part in answer.parts if isinstance(part, Table)]
    assert table.columns == ("Datum", "Beschreibung", "Kategorie", "Konto", "Betrag")
    assert wording("de").table_columns() == {
        "date": "Datum",
        "description": "Beschreibung",
        "merchant": "Händler",
        "category": "Kategorie",
        "account": "Konto",
        "amount": "Betrag",
    }
    assert wording("en").table_columns()["merchant"] == "Merchant"
    assert all(wording("ar").table_columns().values())


def test_a_statement_answer_is_in_the_language_of_its_question(pipeline: ChatPipeline) -> None:
    german = "Wie hoch ist die Überziehungsgebühr auf meinem Girokonto?"
    assert question_language(german) == "de"
    answer = pipeline.ask(german, SAMPLE_USER, AS_OF)
    assert answer.intent is Intent.text_qa and answer.citations
    assert_in_language(pipeline, answer, "de")
    # Arabic: the same statement search, composed in Arabic.
    english = pipeline.ask("What is the overdraft fee on my checking account?", SAMPLE_USER, AS_OF)
    result = execute(
        pipeline.backend,
        SAMPLE_USER,
        english.plan,
        pipeline.embedder.embed([english.plan.text or ""])[0],
    )
    arabic = compose_answer(english.plan, result, pipeline.embedder.embed, language="ar")
    assert_in_language(pipeline, arabic, "ar")
    assert [c.statement_id for c in arabic.citations] == [c.statement_id for c in english.citations]
    assert "$35.00" in english.text and "$35.00" in arabic.text  # the passage, quoted as printed
    assert "صفحة" in arabic.text or "يقول" in arabic.text


@pytest.mark.parametrize(
    ("question", "language", "words"),
    [
        ("كم أنفقت في 2021؟", "ar", ("تمتد", "1 يناير 2024", "30 يونيو 2025")),
        (
            "Wie viel habe ich 2021 ausgegeben?",
            "de",
            ("reichen", "1. Januar 2024", "30. Juni 2025"),
        ),
        ("Wie viel habe ich bei Xyzzyshop ausgegeben?", "de", ("„Xyzzyshop“", "Händlern")),
        ("حوّل ٥٠٠ إلى حساب التوفير", "ar", ("FinSync", "يقرأ")),
        ("Combien ai-je dépensé en 2021 ?", "fr", ("vont", "1 janvier 2024", "30 juin 2025")),
        ("¿Cuánto gasté en 2021?", "es", ("van", "1 de enero de 2024", "30 de junio de 2025")),
        ("Vire 200 € sur mon compte épargne", "fr", ("FinSync", "déplacer")),
        ("¿Quién fundó Costco?", "es", ("FinSync", "mundo")),
    ],
)
def test_a_clarification_is_in_the_language_of_its_question(
    pipeline: ChatPipeline, question: str, language: str, words: tuple[str, ...]
) -> None:
    answer = pipeline.ask(question, SAMPLE_USER, AS_OF)
    assert answer.intent is Intent.clarify
    assert_in_language(pipeline, answer, language)
    assert all(word in answer.text for word in words), answer.text
    suggestions = next(part for part in answer.parts if isinstance(part, Suggestions))
    assert suggestions.lead == wording(language).text("clarify.suggestions")
    assert suggestions.questions and all(
        not (
            {w.casefold() for w in _WORD.findall(q)} & ENGLISH_WORDS - _data_words(pipeline, answer)
        )
        for q in suggestions.questions
    )


def test_the_pipelines_own_clarifications_are_worded_too(pipeline: ChatPipeline) -> None:
    dated = Scope(date_from=date(2025, 1, 1))
    answer = pipeline.ask("كم أنفقت في 2024؟", SAMPLE_USER, AS_OF, scope=dated)
    assert answer.intent is Intent.clarify
    assert answer.text == wording("ar").text("messages.outside_dates")
    english = pipeline.ask("How much did I spend in 2024?", SAMPLE_USER, AS_OF, scope=dated)
    assert english.text == wording("en").text("messages.outside_dates")


def test_english_answers_keep_their_wording(pipeline: ChatPipeline) -> None:
    answer = pipeline.ask(QUESTIONS["aggregate"][0], SAMPLE_USER, AS_OF)
    assert answer.language == "en"
    lead, basis = answer.text.split("\n\n")
    assert re.fullmatch(
        r"You spent \*\*\$[\d,]+\.\d\d\*\* on Groceries from Jan 1, 2024 to Dec 31, 2024 "
        r"\(\d+ transactions\) \[1\]\.",
        lead,
    )
    assert re.fullmatch(
        r"_How this was counted: \d+ transactions of money out; left out: nothing\. "
        r"Pending transactions are never imported\._",
        basis,
    )


def test_a_missing_template_falls_back_to_english(tmp_path: Path) -> None:
    (tmp_path / "en.toml").write_text((TEMPLATES / "en.toml").read_text("utf-8"), "utf-8")
    (tmp_path / "xx.toml").write_text(
        '[format]\nlocale = "de_DE"\nbabel = true\n\n[clarify]\nunsure = "Wie bitte?"\n', "utf-8"
    )
    partial = Wording("xx", tmp_path)
    assert partial.code == "xx"
    assert partial.text("clarify.unsure") == "Wie bitte?"
    assert partial.text("clarify.suggestions") == "You could ask:"  # from English
    assert partial.money(Decimal("1234.5"), "EUR") == "1.234,50\xa0€"  # its own locale
    assert wording("nl").code == "en"  # no templates at all: English
    assert wording("de").text("compare.figures_separator") == "; "  # German lacks it


def test_figures_are_labelled_in_the_answers_language(pipeline: ChatPipeline) -> None:
    trend = pipeline.ask(QUESTIONS["trend"][1], SAMPLE_USER, AS_OF)
    assert isinstance(trend.result, TrendResult)
    figure = trend_figure(trend.plan, trend.result, trend.language)
    assert figure.layout.title.text.startswith("الإنفاق الشهري")
    assert "معاملات" in figure.data[0].hovertemplate
    assert "يناير 2024" in figure.layout.xaxis.ticktext
    compare = pipeline.ask(QUESTIONS["compare"][2], SAMPLE_USER, AS_OF)
    assert isinstance(compare.result, CompareResult)
    figure = compare_figure(compare.plan, compare.result, compare.language)
    assert figure.layout.separators == ",."  # 1.234,56
    assert all(text.endswith("\xa0$") for text in figure.data[0].text)
    assert "Umsätze" in figure.data[0].hovertemplate
    english = compare_figure(compare.plan, compare.result)
    assert english.layout.separators is None and english.data[0].text[0].startswith("$")


def test_ask_json_answer_follows_the_language(
    tmp_path: Path, embedded_sample: EmbeddedBackend
) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text(f"{QUESTIONS['aggregate'][0]}\n{QUESTIONS['aggregate'][1]}\n", "utf-8")
    env = {"FINSYNC_DATA_DIR": str(embedded_sample.path.parent)}
    english, arabic = answers(
        finsync(
            "ask", "--file", str(questions), "--json", "--as-of", AS_OF.isoformat(),
            "--user", SAMPLE_USER, env=env, cwd=tmp_path,
        )
    )  # fmt: skip
    assert (
        set(arabic)
        == set(english)
        == {
            "intent",
            "answer",
            "plan",
            "data",
            "citations",
            "timings_ms",
        }
    )
    assert arabic["plan"] == english["plan"] and arabic["data"] == english["data"]
    assert arabic["answer"].startswith("أنفقت **")
    assert _babel_money(Decimal(str(english["data"]["value"])), "ar") in arabic["answer"]
    assert english["answer"].startswith("You spent **$")


def test_the_chat_page_writes_arabic_right_to_left(
    sample_set: SampleSet,
    embedder: LocalEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data_dir = ingest_sample_into(
        tmp_path_factory.getbasetemp() / "ui-sample", sample_set, embedder
    )
    for name in ("FINSYNC_ES_URL", "FINSYNC_GCP_PROJECT", "FINSYNC_USER", "FINSYNC_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FINSYNC_DATA_DIR", str(data_dir))
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.run()
    at.chat_input[0].set_value(QUESTIONS["aggregate"][1]).run()
    assert not at.exception, at.exception
    shown = [m.value for m in at.chat_message[1].markdown if "fs-cite" in m.value]
    assert shown and shown[0].startswith('<div dir="rtl">') and "أنفقت" in shown[0]
    assert any(m.label.startswith("الإنفاق") for m in at.metric)
    at.chat_input[0].set_value(QUESTIONS["aggregate"][0]).run()
    english = [m.value for m in at.chat_message[3].markdown if "fs-cite" in m.value]
    assert english and english[0].startswith("You spent")


def test_messages_from_every_layer_are_worded(pipeline: ChatPipeline) -> None:
    """The messages where they arise (the router, the pipeline, the search), each worded from
    the language's own template, never from English text."""
    vocabulary = pipeline.vocabulary(SAMPLE_USER)
    german = wording("de")
    unknown = unknown_account("Chase", vocabulary).message
    assert unknown is not None
    notes = [Message(key=NO_VECTOR_NOTE), Message(key=VECTOR_FAILED_NOTE)]
    for message in (unknown, UNPLACEABLE, *notes):
        worded = word(message, german)
        assert worded != word(message, wording("en")) and not (
            {w.casefold() for w in _WORD.findall(worded)}
            & ENGLISH_WORDS - {w.casefold() for w in _WORD.findall(repr(vocabulary))}
        ), worded
    assert "„Chase“" in word(unknown, german) and "***8831" in word(unknown, german)


@pytest.mark.parametrize("language", LANGUAGES)
def test_tables_and_chart_summaries_are_in_the_language_of_the_question(
    pipeline: ChatPipeline, language: str
) -> None:
    from ui.chart_summary import chart_summaries
    from ui.frames import transaction_labels
    from ui.tables import transactions_html

    index = LANGUAGES.index(language) + 1
    words = wording(language)
    listing = pipeline.ask(QUESTIONS["listing"][index], SAMPLE_USER, AS_OF)
    table = transactions_html(listing.result.rows, listing.language)
    labels = transaction_labels(language)
    assert labels["merchant"] == words.text("column.merchant") != "Merchant"
    assert all(f">{label}</th>" in table for label in labels.values())
    assert f'dir="{words.direction}"' in table
    for row in listing.result.rows:  # amounts read left to right in their cells: no bidi marks
        assert words.money(row.amount, row.currency).replace("\u200f", "") in table

    english = pipeline.ask(QUESTIONS["trend"][0], SAMPLE_USER, AS_OF)
    trend = pipeline.ask(QUESTIONS["trend"][index], SAMPLE_USER, AS_OF)
    [summary] = chart_summaries(trend)
    [english_summary] = chart_summaries(english)
    assert "highest" in english_summary and "highest" not in summary
    assert words.text("summary.extremes", high="", low="").split()[0] in summary
    assert _numbers(summary) == _numbers(english_summary)


SUGGESTED = {
    "ask_spent_in": {
        "subject": Message(key="subject_on", fields={"name": "Dining"}),
        "month": date(2025, 6, 1),
    },
    "ask_monthly_from": {"subject": "", "first": date(2024, 1, 1), "last": date(2025, 6, 1)},
    "ask_recent": {},
    "ask_at_last_month": {"name": "Starbucks"},
    "ask_on_last_month": {"name": "Groceries"},
    "ask_on_this_year": {"name": "Groceries"},
    "ask_by_account": {},
    "ask_by_merchant": {},
    "ask_by_category": {},
    "ask_trend": {},
    "ask_largest_on": {"name": "Platinum Card"},
    "ask_overdraft": {},
    "ask_transfer_to": {"name": "High-Yield Savings"},
    "ask_transfers": {},
    "ask_amount_due": {"name": "Platinum Card"},
    "ask_payments": {},
    "ask_in_category": {"name": "Groceries"},
    "ask_in_currency": {"currency": "USD"},
}


@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_suggested_questions_are_understood_in_their_language(
    pipeline: ChatPipeline, language: str
) -> None:
    """A suggestion is a question to click: in every language it is read as one FinSync
    answers, in that language."""
    router = pipeline.router_for(SAMPLE_USER)
    w = wording(language)
    for key, fields in SUGGESTED.items():
        question = word(Message(key=key, fields=fields), w)
        assert question_language(question) == language or language == "en", question
        assert router.route(question, AS_OF).intent is not Intent.clarify, question
