"""The headers every response of the app carries: its Content-Security-Policy, and no framing.

``finsync serve`` runs the app through ``ui/server.py``, Streamlit's ASGI app with this
middleware in front, so the policy is a real header on every page, asset and media file, not a
tag a script adds once the page has loaded. It backs up the escaping of every value from a file
(``ui/answer_text.py``): were a link, image, frame or font from a file ever rendered, the
browser would still not fetch it. Scripts stay permitted as Streamlit and plotly need them
(inline, eval, blob modules), so this guards against data leaving the page, not against script
injection. ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY`` keep every page, "Forget all
my data" included, out of another site's frame.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
    )
)

HEADERS = (
    (b"content-security-policy", POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    """ASGI middleware: ``HEADERS`` on every HTTP response, replacing any of the same name."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in HEADERS}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message["headers"] = [*kept, *HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)
