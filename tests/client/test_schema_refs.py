"""A server's schema may `$ref` a network URI: the client resolves same-document refs and fetches nothing.

Implementations MUST NOT dereference a network `$ref` automatically (SEP-2106): it would let any server
make the client send requests where it likes. The schema below is the conformance suite's
`json-schema-ref-no-deref` tool; the canary is a real loopback HTTP server that counts its visitors.
"""

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from mrtr_studio.client.forms.validation import FORM_KEY, validate_content


@pytest.fixture
def canary() -> Iterator[tuple[str, list[str]]]:
    visits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            visits.append(self.path)
            body = b'{"type": "object", "properties": {"displayName": {"type": "string"}}}'
            self.send_response(200)
            self.send_header("Content-Type", "application/schema+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/canary/profile-schema.json", visits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def lookup_user_schema(canary_url: str) -> dict[str, object]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
            "$defs": {"userId": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
            "properties": {"id": {"$ref": "#/$defs/userId"}, "profile": {"$ref": canary_url}},
            "required": ["id"]}


def test_same_document_refs_are_resolved(canary):
    url, visits = canary
    assert validate_content(lookup_user_schema(url), {"id": "ada-1"}) == {}
    assert validate_content(lookup_user_schema(url), {"id": "Not Valid!"}) == {
        "id": ["Must match the pattern ^[a-z0-9-]+$."]}
    assert visits == []


def test_a_network_ref_is_not_fetched_and_says_why(canary):
    url, visits = canary
    errors = validate_content(lookup_user_schema(url), {"id": "ada-1", "profile": {"displayName": "Ada"}})
    assert visits == []
    assert errors == {FORM_KEY: [f"The schema refers to {url}, outside itself; such a $ref is never fetched, "
                                 "so this answer cannot be checked."]}
