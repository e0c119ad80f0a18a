"""The MCP server: spyglass tools for coding agents over stdio and streamable HTTP."""
