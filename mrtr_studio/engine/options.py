"""Server options; `mrtr.*` mirror the seed's option names."""

from dataclasses import dataclass, field

from .. import defaults
from ..protocol.drafts import check_drafts

#: How deep an MRTR request's arguments (and other params) may nest; one number for the whole engine.
MAX_ARGUMENT_DEPTH = 32
DEFAULT_STATE_TTL = defaults.STATE_TTL


def check_state_ttl(ttl: object) -> int:
    """A requestState lifetime is a whole number of seconds above zero (0 would make every state born expired)."""
    if type(ttl) is not int or ttl <= 0:
        raise ValueError(f"the requestState TTL must be a whole number of seconds above 0, got {ttl!r}")
    return ttl


@dataclass
class MrtrOptions:
    #: One secret, or several for rotation (the first signs, all verify); empty -> random per instance.
    secret: str | list[str] = ""
    state_ttl: int = DEFAULT_STATE_TTL
    #: Who the states are for (`aud`): one name, or several (the first is minted, all are accepted).
    #: Empty -> the server's name. Servers sharing a secret refuse each other's states unless they share it.
    audience: str | list[str] = ""
    #: Put the failed check's name in `error.data.reason` (the studio's own engine turns this on).
    explain_rejections: bool = False
    #: Answers count only for the keys the verified requestState asked for; answers sent without a state
    #: (or for keys never asked) are ignored, so the handler asks again. Entries may override it.
    bind_inputs_to_state: bool = True
    #: How long a legacy server-initiated request waits for the client's answer.
    legacy_request_timeout: float = defaults.LEGACY_REQUEST_TIMEOUT

    def __post_init__(self) -> None:
        check_state_ttl(self.state_ttl)


@dataclass
class TaskOptions:
    """The tasks extension (SEP-2663): how long tasks live and how often clients should poll."""

    #: A task's lifetime from creation (ms); None for unlimited. Handlers may ask for their own.
    ttl_ms: int | None = defaults.TASK_TTL_MS
    poll_interval_ms: int = 1000
    #: Live (non-terminal) tasks one principal may have at once; more get -32603 on creation.
    max_live_per_principal: int = 32
    #: How long a task's runner waits on the store before looking again (a shared store may not wake it).
    runner_recheck: float = 1.0
    #: A runner retries its store writes through an outage until the task's TTL; this long for tasks without one.
    store_retry_bound: float = defaults.TASK_STORE_RETRY_BOUND
    #: The longest pause between two retries (the pause doubles from 50 ms up to this).
    store_retry_max_pause: float = 2.0


@dataclass
class ServerOptions:
    mrtr: MrtrOptions = field(default_factory=MrtrOptions)
    version: str = "0.1.0"
    instructions: str | None = None
    list_ttl_ms: int = 60_000
    #: Deeper arguments, inputResponses or _meta get -32602 before any handler, digest or validation runs.
    max_argument_depth: int = MAX_ARGUMENT_DEPTH
    tasks: TaskOptions = field(default_factory=TaskOptions)
    #: Draft SEPs switched on as experiments ("sep-2643", "sep-3221"); none by default.
    drafts: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.drafts = check_drafts(self.drafts)
        if type(self.max_argument_depth) is not int or self.max_argument_depth < 1:
            raise ValueError(f"max_argument_depth must be a whole number above 0, got {self.max_argument_depth!r}")
