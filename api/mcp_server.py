"""``finsync mcp``: FinSync's answers as MCP tools over stdio, so an AI assistant can ask them.

The server acts for the user of one API token (``FINSYNC_API_TOKEN``, or ``--token-file``),
checked when it starts; no tool takes a user. Tools answer with the objects the JSON API gives:
``ask`` the object ``finsync ask --json`` prints with its ``conversation_id``, ``list_accounts``
and ``list_sources`` what ``GET /accounts`` and ``GET /sources`` answer. A failure is a tool
error with the one line the API would give.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from api.service import FinSyncService, Refused, iso_day
from elastic.errors import FinSyncError, headline

INSTRUCTIONS = """FinSync Chat answers questions about one person's bank statements and
transactions with exact numbers and citations. Ask in plain language ("How much did I spend on
groceries last month?"); pass the conversation_id of an answer to ask a follow-up ("and in
March?"). Numbers come from the data, never from a guess; account numbers are masked."""


@contextmanager
def _as_tool_errors() -> Iterator[None]:
    """FinSync's refusals and failures as a tool error of one line."""
    try:
        yield
    except Refused as exc:
        raise ToolError(str(exc)) from None
    except FinSyncError as exc:
        raise ToolError(headline(exc)) from None


def build_server(service: FinSyncService, user_id: str) -> MCPServer:
    """The MCP server with its tools, each acting for ``user_id``."""
    server = MCPServer("FinSync Chat", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    def ask(
        question: str, as_of: str | None = None, conversation_id: str | None = None
    ) -> dict[str, Any]:
        """Answer a question about the user's transactions and statements: the answer as
        markdown with [N] citations, the plan, the numbers (data) and the citations. as_of
        (YYYY-MM-DD, default today) anchors "last month"; conversation_id continues a
        conversation."""
        try:
            day = iso_day(as_of) if as_of else None
        except ValueError as exc:
            raise ToolError(f"as_of: {exc}") from None
        with _as_tool_errors():
            return service.ask(user_id, question, day, conversation_id)

    @server.tool()
    def list_accounts() -> dict[str, Any]:
        """The user's accounts (bank, name, masked number) and the dates their data spans."""
        with _as_tool_errors():
            return service.accounts(user_id)

    @server.tool()
    def list_sources() -> dict[str, Any]:
        """The user's files (bank exports and statement PDFs), with each PDF's statements."""
        with _as_tool_errors():
            return {"sources": service.sources(user_id)}

    return server


def serve(service: FinSyncService, user_id: str) -> None:
    """Serve the tools on standard input and output until the client closes them."""
    try:
        build_server(service, user_id).run("stdio")
    finally:
        service.close()
