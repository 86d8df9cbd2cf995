"""The MCP server engine: registry, dispatch, MRTR builder, requestState codec, eras."""

from ..protocol.errors import McpError
from ..protocol.versions import Era
from .handler_api import Request, Response
from .options import MrtrOptions, ServerOptions
from .server import McpServer
from .server_session import Session
from .state_token import Binding, StateCodec, StateRejected

__all__ = [
    "Binding",
    "Era",
    "McpError",
    "McpServer",
    "MrtrOptions",
    "Request",
    "Response",
    "ServerOptions",
    "Session",
    "StateCodec",
    "StateRejected",
]
