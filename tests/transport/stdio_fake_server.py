"""A stdio server for the stdio client tests: the studio's demo engine over JSON lines, or misbehaviour.

`python stdio_fake_server.py engine` serves the demo engine (both eras, legacy server requests too);
`garbage` answers every request with a line that is not JSON; `exit` exits with code 3 after writing
to stderr; `silent` reads and never answers (stopped when stdin closes). Hostile ones: `bad-id`,
`long-line` and `error-no-id` spoil the answer to the first request (an id `[1]`, a 2 MB line, an
error without id) and answer later ones properly; `flood` sends 10,000 roots/list requests for the
first request and never answers it.
"""

import asyncio
import json
import sys
import threading


async def engine() -> None:
    from mrtr_studio.scenarios import build_demo_server

    server = build_demo_server()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def write(message: dict) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    async def outbound(request: dict) -> None:
        write(request)

    session = server.open_session(user="stdio-user", outbound=outbound)
    tasks = set()

    async def serve(message: dict) -> None:
        reply = await server.handle(message, session)
        if reply is not None:
            write(reply)

    while line := await reader.readline():
        task = asyncio.create_task(serve(json.loads(line)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)


def spoil_the_first(mode: str) -> None:
    spoiled = {"bad-id": json.dumps({"jsonrpc": "2.0", "id": [1], "result": {}}),
               "long-line": "x" * (2 * 1024 * 1024),
               "error-no-id": json.dumps({"jsonrpc": "2.0", "id": None,
                                          "error": {"code": -32700, "message": "Parse error"}})}[mode]
    for number, line in enumerate(sys.stdin):
        request = json.loads(line)
        if "id" not in request or "method" not in request:
            continue
        reply = spoiled if number == 0 else json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {
            "content": [{"type": "text", "text": "fine"}]}})
        print(reply, flush=True)


def flood() -> None:
    def send_all() -> None:
        for n in range(10_000):
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": f"srv-{n}", "method": "roots/list"}) + "\n")
        sys.stdout.flush()

    sys.stdin.readline()
    threading.Thread(target=send_all, daemon=True).start()
    for _ in sys.stdin:  # read the client's answers so its writes never block
        pass


def main() -> None:
    mode = sys.argv[1]
    if mode == "engine":
        asyncio.run(engine())
    elif mode == "garbage":
        for _ in sys.stdin:
            print("this is not json", flush=True)
    elif mode == "exit":
        sys.stdin.readline()
        print("fatal: cannot open database", file=sys.stderr, flush=True)
        sys.exit(3)
    elif mode == "silent":
        for _ in sys.stdin:
            pass
    elif mode in ("bad-id", "long-line", "error-no-id"):
        spoil_the_first(mode)
    elif mode == "flood":
        flood()


if __name__ == "__main__":
    main()
