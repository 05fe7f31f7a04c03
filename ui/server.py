"""The app as ``finsync serve`` runs it: the Streamlit script ``app.py`` served as Streamlit's
ASGI app, with the security headers of ``ui/csp.py`` on every response."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from llm.services import upload_store
from settings import Settings
from ui.csp import SecurityHeaders

APP_SCRIPT = Path(__file__).resolve().parent.parent / "app.py"


@asynccontextmanager
async def _uploads_swept(_app: st.App) -> AsyncIterator[None]:
    """Upload copies left by a server that stopped without cleaning up go when this one starts,
    and this one's own when it stops."""
    uploads = upload_store(Settings())
    uploads.sweep()
    try:
        yield
    finally:
        uploads.sweep(stopping=True)


app = st.App(APP_SCRIPT, lifespan=_uploads_swept, middleware=[Middleware(SecurityHeaders)])
