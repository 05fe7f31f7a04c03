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
        ("Meine 5 größten Einkäufe im März 2025", "de"),  # "ß" is read as "ss"
        ("Habe ich im ersten oder zweiten Quartal mehr für Restaurants ausgegeben?", "de"),
        ("Wie hoch ist die Überziehungsgebühr?", "de"),
        ("Überweise 500 € auf mein Sparkonto", "de"),
        ("Lebensmittel Januar vs Februar", "de"),
        ("What was the total in May?", "en"),  # "was" is English here
        ("Did I spend more in the Die Hard store or at Target?", "en"),
        ("قارن إنفاقي على المطاعم بين ٢٠٢٤ و ٢٠٢٥", "ar"),
        ("فقط البطاقة", "ar"),
        ("كم أنفقت ببطاقة Chase الشهر الماضي؟", "ar"),  # a bank in Latin letters
        ("", "en"),
    ],
)
def test_question_language(question: str, language: str) -> None:
    assert question_language(question) == language
