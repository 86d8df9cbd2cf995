"""The pieces every client transport shares: limits and the pool that answers server requests."""

from typing import Any

import pytest

from mrtr_studio.transport.base import ServerRequestPool, TransportLimits

pytestmark = pytest.mark.anyio


async def test_the_answer_pool_refuses_a_server_request_whose_id_is_no_id() -> None:
    asked: list[Any] = []

    async def handler(request: dict[str, Any]) -> dict[str, Any]:
        asked.append(request)
        return {}

    async def post(reply: dict[str, Any]) -> None:
        pass

    pool = ServerRequestPool(TransportLimits(), post)
    pool.set_handler(handler)
    assert pool.submit({"jsonrpc": "2.0", "id": [1], "method": "roots/list"}) == {
        "jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request: id must be a string or an integer"}}
    assert pool.submit({"jsonrpc": "2.0", "id": True, "method": "roots/list"}) is not None
    await pool.close()
    assert asked == []


@pytest.mark.parametrize("bad", [{"max_body_bytes": 0}, {"idle_timeout": 0}, {"request_timeout": -1},
                                 {"max_concurrent_answers": 0}, {"max_waiting_answers": -1}])
def test_limits_refuse_nonsense(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        TransportLimits(**bad)
