"""The app as ``finsync serve`` runs it: the Streamlit script ``app.py`` served as Streamlit's
ASGI app, with the security headers of ``ui/csp.py`` on every response."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from ui.csp import SecurityHeaders

APP_SCRIPT = Path(__file__).resolve().parent.parent / "app.py"

app = st.App(APP_SCRIPT, middleware=[Middleware(SecurityHeaders)])
