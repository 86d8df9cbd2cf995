"""The studio's requestState names its audience: a server sharing the secret but not the audience refuses it."""

import orjson
import pytest

from mrtr_studio.engine import MrtrOptions, ServerOptions
from mrtr_studio.engine.state_token import decode
from mrtr_studio.protocol.token_format import b64url_decode, canonical_json
from mrtr_studio.scenarios import build_demo_server
from tests.engine.test_request_state import CONFIRM, assert_rejected, long_lived, minted, sealed
from tests.engine.wire import Wire

pytestmark = pytest.mark.anyio


def node(name: str, audience: str | list[str] = "") -> Wire:
    options = ServerOptions(mrtr=MrtrOptions(secret="s3cret", audience=audience, explain_rejections=True))
    return Wire(build_demo_server(options, name=name))


async def test_a_state_from_another_server_sharing_the_secret_is_refused_as_audience() -> None:
    token = await minted(node("billing"))
    assert decode(token).payload["aud"] == "billing"
    reply = await node("files").call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token)
    assert_rejected(reply, "audience")
    assert "minted for 'billing'" in reply["error"]["data"]["detail"]


async def test_nodes_of_one_service_share_the_audience_and_continue_each_others_flows() -> None:
    token = await minted(node("node-1", audience="files"))
    assert decode(token).payload["aud"] == "files"
    done = await node("node-2", audience="files").call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token)
    assert done["result"]["content"][0]["text"] == "File deleted"


async def test_every_configured_audience_is_accepted_and_the_first_is_minted() -> None:
    old = await minted(node("x", audience="files-old"))
    renamed = node("x", audience=["files", "files-old"])
    done = await renamed.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=old)
    assert done["result"]["content"][0]["text"] == "File deleted"
    assert decode(await minted(renamed)).payload["aud"] == "files"


async def test_a_state_without_aud_from_an_older_studio_is_refused_as_audience() -> None:
    body = orjson.loads(_payload_bytes(long_lived(60)))
    del body["aud"]
    reply = await node("mrtr-studio-demo").call("delete_file", {"path": "/a"}, responses=CONFIRM,
                                                state=sealed(canonical_json(body)))
    assert_rejected(reply, "audience")
    assert "without an audience" in reply["error"]["data"]["detail"]


async def test_an_aud_that_is_not_a_string_is_malformed() -> None:
    body = orjson.loads(_payload_bytes(long_lived(60)))
    body["aud"] = ["mrtr-studio-demo"]
    reply = await node("mrtr-studio-demo").call("delete_file", {"path": "/a"}, responses=CONFIRM,
                                                state=sealed(canonical_json(body)))
    assert_rejected(reply, "malformed")


def _payload_bytes(token: str) -> bytes:
    return b64url_decode(token[3:].partition(".")[0])
