"""Every default the studio has, written once: the engine's options, the command line's flags, the
client's settings and the window all read them from here, so a changed default changes everywhere.

Kept free of imports (the command line must stay quick to load; every layer may import it).
Limits that belong to different sides are different names on purpose: a server accepts smaller
request bodies (1 MiB) than a client or the proxy accepts answers (16 MiB), and a client waits less
between two messages of one answer (30 s) than the proxy lets an upstream stay silent (300 s).
"""

from typing import Any

# --- requestState and rounds ------------------------------------------------------------------
#: Lifetime of a requestState the engine mints, in seconds.
STATE_TTL = 600
#: Rounds a client drives before it gives up on a server that keeps asking.
ROUND_LIMIT = 10
#: How long a legacy server-initiated request (elicitation, sampling, roots) waits for the client.
LEGACY_REQUEST_TIMEOUT = 300.0
#: The longest one client request may take, however many events keep arriving.
REQUEST_TIMEOUT = 300.0
#: A task's lifetime from creation (ms), and how long a runner retries its store writes without one.
TASK_TTL_MS = 600_000
TASK_STORE_RETRY_BOUND = 600.0
#: The longest requestState minted or read, by the engine and by every state decoder alike: a client
#: echoes it every round, and a longer one is refused before any decoding or MAC work is spent on it.
STATE_MAX_TOKEN_CHARS = 64 * 1024
#: States are small flat envelopes: a decoder refuses a deeper payload rather than walk it.
STATE_MAX_JSON_DEPTH = 16
#: The largest key or key file (PEM, JWKS) a state decoder accepts (`state decode --key-file`).
STATE_MAX_KEY_BYTES = 64 * 1024

# --- replay and load ------------------------------------------------------------------------------
#: How long one replayed round (or one load request) may take, in seconds (`replay`, `load`, the window).
REPLAY_TIMEOUT = 30.0
#: The Cluster view's load: flows in flight, seconds of starting flows, the longest run it offers.
LOAD_CONCURRENCY = 4
LOAD_DURATION = 5.0
LOAD_MAX_DURATION = 600.0

# --- serving ---------------------------------------------------------------------------------------
#: Set in a child `serve`'s environment: the server exits when its stdin closes (the cluster's nodes).
EXIT_WITH_STDIN_ENV = "MRTR_STUDIO_EXIT_WITH_STDIN"
#: `serve --store redis://HOST:PORT/DB` takes the password from here when the URL has none: what the
#: cluster gives its nodes, so it is never on a command line.
STORE_PASSWORD_ENV = "MRTR_STUDIO_STORE_PASSWORD"
#: `serve`'s HTTP limits: flag destination -> default, the same names as HttpServerConfig's fields.
SERVER_LIMITS: dict[str, Any] = {
    "max_sessions": 1000,
    "session_idle_seconds": 1800.0,
    "max_connections": 1000,
    "header_timeout": 10.0,
    "body_timeout": 30.0,
    "keep_alive_timeout": 30.0,
    "max_header_bytes": 64 * 1024,
    "max_header_fields": 100,
}
#: The largest request body `serve` reads.
SERVER_MAX_BODY_BYTES = 1 << 20

# --- reading from peers ------------------------------------------------------------------------------
#: The largest JSON body, SSE event or stdio line a client (or the proxy) reads from a peer.
PEER_MAX_BODY_BYTES = 16 * 1024 * 1024
#: Silence a client allows between two messages of one answer (paused while a person answers).
CLIENT_IDLE_TIMEOUT = 30.0
#: Silence the proxy allows on an upstream POST response.
PROXY_IDLE_TIMEOUT = 300.0
#: How long the window's Compare servers waits for one side to be listed (connect, discover, every
#: listing) before it shows that side's error instead.
COMPARE_TIMEOUT = 30.0

# --- patterns from peers and users -------------------------------------------------------------------
#: Seconds one regular-expression match may take (a form schema's `pattern`, a redaction profile's
#: pattern on peer text): catastrophic backtracking must not hang a form, an export or the window.
PATTERN_SECONDS = 0.05

# --- exports -----------------------------------------------------------------------------------------
#: How much of an export or a copy the window's redaction preview shows (the file gets all of it).
EXPORT_PREVIEW_CHARS = 64 * 1024
#: The most pixels a PNG of the diagram holds (a tall operation is drawn smaller, not out of memory),
#: and the widest its preview in the redaction dialog is drawn.
PICTURE_MAX_PIXELS = 24_000_000
PICTURE_PREVIEW_WIDTH = 760

# --- opening traces ----------------------------------------------------------------------------------
#: Memory a trace file takes once open, per byte of the file, with headroom (tools/bench_trace_load.py
#: measures about 1.3x for the record-per-line layout); a file is refused when this much is not available.
TRACE_MEMORY_PER_BYTE = 2.0
#: The same for a file in another layout, read and parsed whole (its text and its tree at once).
TRACE_MEMORY_PER_BYTE_WHOLE = 6.0
