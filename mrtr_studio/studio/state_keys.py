"""The requestState key the window uses for each server, kept in the OS keyring, never in settings.

A key opens another server's states (decrypts the Python SDK's, checks a MAC or a JWT signature),
so it is a secret like an OAuth token: it lives where "remember" keeps tokens (the `keyring`
package), one entry per server (its URL or stdio command). A machine without a usable keyring keeps
the keys in memory for the session, and `problem` says so, without the keys.
"""

import contextlib
from typing import Any

from ..states import parse_key

SERVICE = "mrtr-studio requestState keys"


class StateKeys:
    """server -> key text as typed (`hex:…`, `base64:…` or UTF-8 text), in the keyring."""

    def __init__(self, backend: Any = None, service: str = SERVICE) -> None:
        if backend is None:
            import keyring

            backend = keyring
        self._backend = backend
        self.service = service
        self.problem: str | None = None
        self._memory: dict[str, str] = {}
        self._read: dict[str, str | None] = {}

    def _failed(self, exc: Exception) -> None:
        self.problem = f"the system keyring is unavailable ({type(exc).__name__}); the key is kept in memory only"

    def get(self, server: str) -> str | None:
        """The key for `server`, read from the keyring once per session (the inspector asks on every render)."""
        if server in self._memory:
            return self._memory[server]
        if server in self._read:
            return self._read[server]
        try:
            value = self._backend.get_password(self.service, server)
        except Exception as exc:  # keyring backends raise their own errors (KeyringError, D-Bus, ...)
            self._failed(exc)
            value = None
        self._read[server] = value if isinstance(value, str) and value else None
        return self._read[server]

    def remember(self, server: str, key: str) -> None:
        """Checked first (a bad `hex:` says so here, not at every decode), then stored."""
        parse_key(key)
        self._read.pop(server, None)
        try:
            self._backend.set_password(self.service, server, key)
            self._memory.pop(server, None)
        except Exception as exc:
            self._failed(exc)
            self._memory[server] = key

    def forget(self, server: str) -> None:
        self._memory.pop(server, None)
        self._read[server] = None
        with contextlib.suppress(Exception):  # nothing stored, or no keyring: either way it is gone
            self._backend.delete_password(self.service, server)

    def keys_for(self, server: str) -> list[bytes]:
        text = self.get(server)
        if text is None:
            return []
        try:
            return [parse_key(text)]
        except ValueError:
            return []
