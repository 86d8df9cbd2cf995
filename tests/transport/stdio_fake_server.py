"""A stdio server for the stdio client tests: the studio's demo engine over JSON lines, or misbehaviour.

`python stdio_fake_server.py engine` serves the demo engine (both eras, legacy server requests too);
`garbage` answers every request with a line that is not JSON; `exit` exits with code 3 after writing
to stderr; `silent` reads and never answers (stopped when stdin closes).
"""

import asyncio
import json
import sys


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


if __name__ == "__main__":
    main()
