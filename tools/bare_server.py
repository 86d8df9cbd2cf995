"""The benchmark's floor: a bare uvicorn + httptools + uvloop ASGI app answering the two rounds of a
`delete_file` flow with fixed JSON (no parsing beyond a substring test, no validation, no state).

Whatever `serve` spends above this is the studio's own cost; `tools/bench.py` prints the ratio.
Run as `python tools/bare_server.py PORT`; prints `listening on URL` once it accepts connections.
"""

import asyncio
import sys

import uvicorn

FIRST = (b'{"jsonrpc":"2.0","id":0,"result":{"resultType":"input_required","inputRequests":{"confirm":'
         b'{"method":"elicitation/create","params":{"mode":"form","message":"Delete the file?","requestedSchema":'
         b'{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}}},'
         b'"requestState":"fixed"}}')
SECOND = b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"File deleted"}]}}'


async def app(scope: dict, receive, send) -> None:  # type: ignore[no-untyped-def]
    if scope["type"] != "http":
        return
    body = b""
    more = True
    while more:
        event = await receive()
        body += event.get("body", b"")
        more = event.get("more_body", False)
    answer = SECOND if b"requestState" in body else FIRST
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]})
    await send({"type": "http.response.body", "body": answer})


async def main(port: int) -> None:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
                                           http="httptools", loop="uvloop", lifespan="off", server_header=False))
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    print(f"listening on http://127.0.0.1:{port}/mcp", flush=True)
    await task


if __name__ == "__main__":
    import uvloop

    uvloop.run(main(int(sys.argv[1])))
