"""The language a question is written in decides the language of its answer."""

import pytest

from llm.understanding.language import question_language


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("How much did I spend on groceries in 2024?", "en"),
        ("What is the overdraft fee?", "en"),
        ("Show monthly spending at Aldi und Lidl", "en"),  # one German word is a name
        ("كم أنفقت على البقالة في ٢٠٢٤؟", "ar"),
        ("كم أنفقت في Starbucks؟", "ar"),  # a merchant in Latin letters
        ("Starbucks Trader Joe's كم", "en"),
        ("Wie viel habe ich 2024 für Lebensmittel ausgegeben?", "de"),
        ("Zeige meine monatlichen Ausgaben 2024", "de"),
        ("", "en"),
    ],
)
def test_question_language(question: str, language: str) -> None:
    assert question_language(question) == language
