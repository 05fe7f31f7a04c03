"""FinSync for other programs: the JSON API (``finsync api``) and the MCP server
(``finsync mcp``), each acting for the user of an API token. Beside ``ui``: it reaches data
through ``llm`` only."""
