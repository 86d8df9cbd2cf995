"""A floor MRTR server for `mrtr-studio load`: raw HTTP/1.1 keep-alive on asyncio, no framework, every
answer prepared in advance, so what `load` measures against it is `load` itself (tools/bench_load.py),
or, with `--delay-ms`, a server whose latency is known exactly (tests/replay/test_load.py).

Any tools/call asks for `confirm` (with a requestState) in round 1 and completes in round 2; the tool
`expiring` answers round 2 with `-32602 Invalid requestState` and `data.reason: expired` instead.
`--nodes K` names the answering node in `x-served-by` (node-0 ... node-K-1, in turn), as a cluster's
balancer does. Prints `listening on http://127.0.0.1:PORT/mcp`; stops on SIGTERM/SIGINT.
"""

import argparse
import asyncio
import itertools
import json
import signal

MAX_HEAD = 64 * 1024
MAX_BODY = 1 << 20
ASK = {"resultType": "input_required", "requestState": "floor-1",
       "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
           "mode": "form", "message": "Sure?",
           "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}}}}}}
DONE = {"resultType": "complete", "content": [{"type": "text", "text": "done"}]}
EXPIRED = {"code": -32602, "message": "Invalid requestState", "data": {"reason": "expired"}}


def answer(message: dict) -> dict:
    params = message.get("params") or {}
    reply: dict = {"jsonrpc": "2.0", "id": message.get("id")}
    if "inputResponses" not in params:
        reply["result"] = ASK
    elif params.get("name") == "expiring":
        reply["error"] = EXPIRED
    else:
        reply["result"] = DONE
    return reply


async def main(port: int, delay: float, nodes: int) -> None:
    turn = itertools.count()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                if len(head) > MAX_HEAD:
                    return
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length > MAX_BODY:
                    return
                body = json.loads(await reader.readexactly(length))
                if delay:
                    await asyncio.sleep(delay)
                data = json.dumps(answer(body)).encode()
                extra = f"x-served-by: node-{next(turn) % nodes}\r\n".encode() if nodes else b""
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n%s\r\n%s"
                             % (len(data), extra, data))
                await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(connection, "127.0.0.1", port, limit=MAX_HEAD)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    print(f"listening on http://127.0.0.1:{server.sockets[0].getsockname()[1]}/mcp", flush=True)
    async with server:
        await stop.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay-ms", type=float, default=0.0, help="wait this long before every answer")
    parser.add_argument("--nodes", type=int, default=0, help="name K nodes in x-served-by, in turn")
    args = parser.parse_args()
    asyncio.run(main(args.port, args.delay_ms / 1000, args.nodes))
