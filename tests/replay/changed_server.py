"""A changed server for `mrtr-studio replay --against stdio:…`: the demo server (both eras) on stdio, except
that delete_file asks for `sure` instead of `confirm`, and count_roots answers in other words."""

import asyncio

from mrtr_studio.engine import Request, Response, Session
from mrtr_studio.scenarios.demo import CONFIRM_SCHEMA, build_demo_server
from mrtr_studio.transport.stdio_server import serve_stdio


def delete_file(session: Session, request: Request, response: Response) -> None:
    if not request.has_input_response("sure"):
        response.input_required.add_elicitation("sure", "Really delete it?", CONFIRM_SCHEMA)
        return
    response.result.content.add_text("File deleted")


async def count_roots(session: Session, request: Request, response: Response) -> None:
    listed = await session.server.request_roots_list(session.id)
    response.result.content.add_text(f"{len(listed.get('roots', []))} roots")


def main() -> None:
    server = build_demo_server()
    server.registry.tools["delete_file"].handler = delete_file
    server.registry.tools["count_roots"].handler = count_roots
    asyncio.run(serve_stdio(server))


if __name__ == "__main__":
    main()
