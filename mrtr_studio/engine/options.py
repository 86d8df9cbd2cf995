"""Server options; `mrtr.*` mirror the seed's option names."""

from dataclasses import dataclass, field


@dataclass
class MrtrOptions:
    #: One secret, or several for rotation (the first signs, all verify); empty -> random per instance.
    secret: str | list[str] = ""
    state_ttl: int = 600
    #: Put the failed check's name in `error.data.reason` (the studio's own engine turns this on).
    explain_rejections: bool = False
    #: Answers count only for the keys the verified requestState asked for; answers sent without a state
    #: (or for keys never asked) are ignored, so the handler asks again. Entries may override it.
    bind_inputs_to_state: bool = True
    #: How long a legacy server-initiated request waits for the client's answer.
    legacy_request_timeout: float = 300.0


@dataclass
class ServerOptions:
    mrtr: MrtrOptions = field(default_factory=MrtrOptions)
    version: str = "0.1.0"
    instructions: str | None = None
    list_ttl_ms: int = 60_000
