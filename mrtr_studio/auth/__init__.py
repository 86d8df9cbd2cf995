"""OAuth for MCP (authorization spec 2026-07-28): the client's flow and the server's token check.

Below the transport: the HTTP client consults an `OAuthClient` (through the transport's `RequestAuth`
seam) for the Authorization header and on 401/403; the HTTP server consults a `TokenVerifier`.
Tokens and client secrets live in memory (or the OS keyring when asked) and are masked wherever an
exchange is recorded.
"""
