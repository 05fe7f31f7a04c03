"""A Content-Security-Policy for the app's page: nothing it shows may load from elsewhere.

Streamlit has no option to send the header, so a tiny component adds the policy as a
``<meta http-equiv>`` to the page's head, which browsers enforce for everything loaded after it.
It backs up the escaping of every value from a file (``ui/answer_text.py``): were a link, image,
frame or font from a file ever rendered, the browser would still not fetch it. Scripts stay
permitted as Streamlit and plotly need them (inline, eval, blob modules), so this guards against
data leaving the page, not against script injection; a deployment behind a proxy can send a
stricter policy as a real header.
"""

from __future__ import annotations

import json

import streamlit as st

POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",  # the app's own websocket included (CSP level 3)
        "media-src 'self' data: blob:",
        "worker-src 'self' blob:",
        "frame-src 'self' blob: data:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    )
)

_JS = f"""
export default function () {{
    const head = document.head;
    if (!head.querySelector('meta[http-equiv="Content-Security-Policy"]')) {{
        const meta = document.createElement("meta");
        meta.httpEquiv = "Content-Security-Policy";
        meta.content = {json.dumps(POLICY)};
        head.prepend(meta);
    }}
}}
"""

_KEY = "content-security-policy"
_policy = st.components.v2.component("finsync.content_security_policy", js=_JS)


def content_security_policy() -> None:
    """Add the policy to the page (once per page load; later runs find it there). The
    component shows nothing, and its hidden container takes no room."""
    st.html(f"<style>.st-key-{_KEY} {{ display: none; }}</style>")
    with st.container(key=_KEY):
        _policy(key=f"{_KEY}-meta")
