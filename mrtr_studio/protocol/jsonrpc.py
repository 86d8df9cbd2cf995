"""JSON-RPC 2.0 envelopes: parsing what arrives and building what leaves.

Messages stay plain dicts on the hot path (they are what the wire and the trace record);
these helpers only check the envelope shape so a malformed message gets the right error code.
"""

from typing import Any, Literal

from .errors import INVALID_REQUEST, McpError

RequestId = str | int
MessageKind = Literal["request", "notification", "result", "error"]


def kind_of(message: Any) -> MessageKind:
    """Classify an incoming message, raising -32600 when it is no well-formed JSON-RPC message: the
    one check of the envelope (ids, result and error shapes) before any code looks inside it."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise McpError(INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 object")
    has_id = "id" in message
    if "method" in message:
        if not isinstance(message["method"], str):
            raise McpError(INVALID_REQUEST, "Invalid request: method must be a string")
        if "params" in message and not isinstance(message["params"], dict):
            raise McpError(INVALID_REQUEST, "Invalid request: params must be an object")
        if has_id:
            _check_id(message["id"])
            return "request"
        return "notification"
    if has_id and "result" in message:
        return "result"
    if "error" in message:
        return "error"
    raise McpError(INVALID_REQUEST, "Invalid request: neither a request, a notification nor a response")


def response_problem(message: dict[str, Any]) -> str | None:
    """What is wrong with a response's envelope (id, result, error shapes), or None when it is well formed.

    Kept apart from `kind_of`: a malformed answer is still an answer. The engine hands it to the call that
    awaits it, which then fails with a clear error instead of waiting for a timeout; a transport may also
    refuse it (HTTP: 400)."""
    try:
        if "result" in message:
            _check_id(message.get("id"))
            if not isinstance(message["result"], dict):
                return "Invalid request: result must be an object"
        else:
            if message.get("id") is not None:
                _check_id(message["id"])
            _check_error(message.get("error"))
    except McpError as exc:
        return exc.message
    return None


def _check_id(value: Any) -> None:
    if type(value) is int or type(value) is str:  # the usual ids, without the slower union isinstance
        return
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise McpError(INVALID_REQUEST, "Invalid request: id must be a string or an integer")


def _check_error(value: Any) -> None:
    """A response's error must be {code: integer, message: string, data?: any} (JSON-RPC 2.0, 5.1)."""
    if not isinstance(value, dict):
        raise McpError(INVALID_REQUEST, "Invalid request: error must be an object")
    code = value.get("code")
    if isinstance(code, bool) or not isinstance(code, int):
        raise McpError(INVALID_REQUEST, "Invalid request: error.code must be an integer")
    if not isinstance(value.get("message"), str):
        raise McpError(INVALID_REQUEST, "Invalid request: error.message must be a string")


def request(id: RequestId, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def result(id: RequestId, body: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "result": body}


def error(id: RequestId | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    envelope: dict[str, Any] = {"jsonrpc": "2.0", "error": body}
    if id is not None:
        envelope["id"] = id
    return envelope


def error_from(id: RequestId | None, exc: McpError) -> dict[str, Any]:
    return error(id, exc.code, exc.message, exc.data)
