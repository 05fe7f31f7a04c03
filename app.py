"""FinSync Chat, the Streamlit app: page wiring and sign-in only (``finsync serve`` runs it through
``ui/server.py``, which adds the security headers)."""

from __future__ import annotations

import streamlit as st

from elastic.masking import mask_logs
from ui.auth import account_menu, sign_in_page, signed_in
from ui.pages.chat_page import chat_page
from ui.pages.ingest_page import ingest_page
from ui.pages.sources_page import sources_page
from ui.styles import apply_styles

mask_logs()
# An emoji icon is drawn in the page; a Material icon would be fetched from fonts.gstatic.com.
st.set_page_config(page_title="FinSync Chat", page_icon="🏦", layout="wide")
apply_styles()

if signed_in():
    account_menu()
    pages = [
        st.Page(chat_page, title="Chat", icon=":material/chat:", url_path="chat", default=True),
        st.Page(sources_page, title="Sources", icon=":material/folder_open:", url_path="sources"),
        st.Page(ingest_page, title="Ingest", icon=":material/upload_file:", url_path="ingest"),
    ]
else:
    pages = [st.Page(sign_in_page, title="Sign in", icon=":material/login:", url_path="sign-in")]
st.navigation(pages).run()
