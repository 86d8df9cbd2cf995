"""Who the simulated client is: the embedded engine takes the user directly, HTTP servers a bearer token.

The presets match `mrtr-studio serve --user alice:alice-token --user bob:bob-token`.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    name: str
    #: The principal for the embedded engine (its session user); "" is anonymous.
    user: str = ""
    #: `Authorization: Bearer` token for HTTP servers; None sends no header.
    bearer: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {"name": self.name, "user": self.user, "bearer": self.bearer}

    @classmethod
    def from_json(cls, data: dict[str, str | None]) -> "Identity":
        return cls(str(data.get("name") or "anonymous"), str(data.get("user") or ""), data.get("bearer") or None)


IDENTITY_PRESETS: dict[str, Identity] = {
    "anonymous": Identity("anonymous"),
    "alice": Identity("alice", "alice", "alice-token"),
    "bob": Identity("bob", "bob", "bob-token"),
}


def custom_identity(user: str, bearer: str | None = None) -> Identity:
    """A person of your own: the principal name, and the token an HTTP server maps to it."""
    user = user.strip()
    if bearer is None and user in IDENTITY_PRESETS:
        return IDENTITY_PRESETS[user]
    return Identity(user or "anonymous", user, (bearer or "").strip() or None)
