"""Questions about the facts on each account's terms-and-fees page."""

# (question, account whose page must be cited, words the quoted passage must contain)
FACTS = [
    ("What is the overdraft fee on my checking account?", "Everyday Checking", "$35.00 per item"),
    ("What is the monthly service fee on Everyday Checking?", "Everyday Checking", "$12.00"),
    ("How much is the non-network ATM fee on checking?", "Everyday Checking", "$3.00"),
    ("Is there a foreign transaction fee on my checking account?", "Everyday Checking", "3%"),
    ("Can my savings account be overdrawn?", "High-Yield Savings", "cannot be overdrawn"),
    ("How is interest calculated on my savings account?", "High-Yield Savings", "compounded daily"),
    ("What is the APY on the High-Yield Savings account?", "High-Yield Savings", "4.10%"),
    (
        "What minimum balance avoids the savings monthly service fee?",
        "High-Yield Savings",
        "$300.00",
    ),
    ("What is the grace period on the Platinum Card?", "Platinum Card", "25 days"),
    ("What is the purchase APR on my Platinum Card?", "Platinum Card", "24.99%"),
    ("How is interest calculated on the Platinum Card?", "Platinum Card", "average daily balance"),
    ("What is the foreign transaction fee on my credit card?", "Platinum Card", "3%"),
]
