"""requestState decoders for the formats servers use: the studio's own, the official SDKs', JWTs, anything else.

Most servers are built with an SDK, so the inspector and `state decode` must read those states too.
Each format has its module; `detect` picks one by shape and names it. Everything here is Qt-free
and I/O-free: keys and key files arrive as bytes, and the caller decides where they come from.
"""

from .detect import FORMATS, decode_state, detect_format
from .result import Check, Decoded, RequestContext, parse_key

__all__ = ["FORMATS", "Check", "Decoded", "RequestContext", "decode_state", "detect_format", "parse_key"]
