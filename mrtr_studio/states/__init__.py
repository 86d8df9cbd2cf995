"""requestState decoders for the formats servers use: the studio's own, the official SDKs', JWTs, anything else.

Most servers are built with an SDK, so the inspector and `state decode` must read those states too.
Each format has its module; `detect` picks one by shape and names it. Everything here is Qt-free
and I/O-free: keys and key files arrive as bytes, and the caller decides where they come from.
"""

import importlib
from typing import TYPE_CHECKING, Any

from .formats import FORMATS

if TYPE_CHECKING:
    from .detect import decode_state, detect_format
    from .result import Check, Decoded, RequestContext, parse_key

#: Loaded on first use: the decoders pull in the engine's codec, cryptography and PyJWT.
_LAZY = {"decode_state": ".detect", "detect_format": ".detect", "Check": ".result", "Decoded": ".result",
         "RequestContext": ".result", "parse_key": ".result"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FORMATS", "Check", "Decoded", "RequestContext", "decode_state", "detect_format", "parse_key"]
