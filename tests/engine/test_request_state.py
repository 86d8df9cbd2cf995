"""requestState: every way a token can be wrong is rejected with -32602 and the failed check named."""

import pytest

from mrtr_studio.engine import McpServer, MrtrOptions, ServerOptions, StateCodec
from mrtr_studio.engine.state_token import Binding, b64url_decode, b64url_encode
from mrtr_studio.scenarios import build_demo_server
from tests.engine.wire import Wire, accept

pytestmark = pytest.mark.anyio
CONFIRM = {"confirm": accept(confirm=True)}


def server_with(secret: str | list[str] = "s3cret", ttl: int = 600) -> McpServer:
    return build_demo_server(ServerOptions(mrtr=MrtrOptions(secret=secret, state_ttl=ttl, explain_rejections=True)))


async def minted(wire: Wire, path: str = "/a") -> str:
    reply = await wire.call("delete_file", {"path": path})
    return str(reply["result"]["requestState"])


def assert_rejected(reply: dict, reason: str) -> None:
    assert "result" not in reply
    assert reply["error"]["code"] == -32602
    assert reply["error"]["message"] == "Invalid requestState"
    assert reply["error"]["data"]["reason"] == reason


def flip(text: str, index: int) -> str:
    swapped = "A" if text[index] != "A" else "B"
    return text[:index] + swapped + text[index + 1:]


@pytest.mark.parametrize("index", [3, 4, 10, 20, -50])
async def test_flipped_payload_byte_fails_the_signature(index: int) -> None:
    """The MAC is checked over the raw bytes before any JSON is parsed: a payload byte is a signature problem."""
    wire = Wire(server_with())
    token = await minted(wire)
    payload_end = token.rindex(".")
    position = index % payload_end
    assert 3 <= position < payload_end
    assert_rejected(await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=flip(token, position)),
                    "signature")


def sealed(body: bytes, secret: str = "s3cret") -> str:
    """A token whose MAC is right (made with the server's key) around any payload bytes."""
    import hashlib
    import hmac

    signed = "v1." + b64url_encode(body)
    return signed + "." + b64url_encode(hmac.new(secret.encode(), signed.encode(), hashlib.sha256).digest())


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"v": 2}', b'{"v": 1, "iat": "now"}', b"[" * 5000])
async def test_authentic_but_unreadable_payload_is_malformed(body: bytes) -> None:
    wire = Wire(server_with())
    assert_rejected(await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=sealed(body)),
                    "malformed")


@pytest.mark.parametrize("body", [b"not json", b"[" * 5000])
async def test_unreadable_payload_with_a_wrong_mac_is_a_signature_failure(body: bytes) -> None:
    wire = Wire(server_with())
    assert_rejected(await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM,
                                    state=sealed(body, "another key")), "signature")


def long_lived(lifetime: int, secret: str = "s3cret", now: float | None = None) -> str:
    """A correctly signed state for delete_file {"path": "/a"} whose exp is `lifetime` s after its iat."""
    import time

    from mrtr_studio.protocol.token_format import arguments_digest, canonical_json

    issued = int(time.time() if now is None else now)
    payload = {"v": 1, "kid": "x", "aud": "mrtr-studio-demo", "iat": issued, "exp": issued + lifetime,
               "m": "tools/call", "n": "delete_file",
               "a": arguments_digest({"path": "/a"}), "p": "", "k": {"confirm": "elicitation/create"}, "r": 1,
               "nonce": "n", "s": "step=1"}
    return sealed(canonical_json(payload), secret)


async def test_a_ten_year_lifetime_is_expired_however_well_signed() -> None:
    wire = Wire(server_with(ttl=600))
    reply = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=long_lived(10 * 365 * 86400))
    assert_rejected(reply, "expired")
    assert "longer than the server's state TTL" in reply["error"]["data"]["detail"]


async def test_the_lifetime_may_reach_the_ttl_plus_the_skew() -> None:
    wire = Wire(server_with(ttl=600))
    done = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=long_lived(660))
    assert done["result"]["content"][0]["text"] == "File deleted"
    assert_rejected(await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=long_lived(661)),
                    "expired")


async def test_a_lower_ttl_refuses_states_minted_under_a_higher_one() -> None:
    old = Wire(server_with(ttl=3600))
    token = await minted(old)
    assert_rejected(await Wire(server_with(ttl=600)).call("delete_file", {"path": "/a"}, responses=CONFIRM,
                                                          state=token), "expired")


@pytest.mark.parametrize("ttl", [0, -1, -600, 1.5, "600", True, None])
def test_a_ttl_that_is_not_a_positive_whole_number_is_refused(ttl: object) -> None:
    with pytest.raises(ValueError, match="TTL"):
        MrtrOptions(state_ttl=ttl)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="TTL"):
        StateCodec(ttl=ttl)  # type: ignore[arg-type]
    options = ServerOptions()
    options.mrtr.state_ttl = ttl  # type: ignore[assignment]
    with pytest.raises(ValueError, match="TTL"):
        McpServer(options=options)


async def test_resealed_payload_with_other_secret_fails_the_signature() -> None:
    wire = Wire(server_with())
    token = await minted(wire)
    forged = StateCodec.from_secrets("guess").mint(Binding("tools/call", "delete_file", {"path": "/a"}), "step=1",
                                                   {"confirm": "elicitation/create"}, 1)
    assert forged != token
    assert_rejected(await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=forged), "signature")


@pytest.mark.parametrize("bad", ["", "v1.", "v1.abc", "v2.eyJ9.abc", "not a token", "v1.!!!.???", "v1.e30.AAAA"])
async def test_malformed_tokens(bad: str) -> None:
    wire = Wire(server_with())
    assert_rejected(await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=bad), "malformed")


async def test_truncated_token() -> None:
    wire = Wire(server_with())
    token = await minted(wire)
    reply = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token[:-5])
    assert reply["error"]["data"]["reason"] in ("signature", "malformed")


async def test_expired_token() -> None:
    server = server_with(ttl=30)
    wire = Wire(server)
    token = await minted(wire)
    real_clock = server.codec.clock
    server.codec.clock = lambda: real_clock() + 31
    assert_rejected(await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token), "expired")


async def test_token_from_the_future_beyond_skew_is_rejected() -> None:
    server = server_with()
    wire = Wire(server)
    real_clock = server.codec.clock
    server.codec.clock = lambda: real_clock() + 120
    token = await minted(wire)
    server.codec.clock = real_clock
    assert_rejected(await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token), "expired")


async def test_wrong_method() -> None:
    server = server_with()
    wire = Wire(server)
    reply = await wire.call("code_review", {"code": "x"}, method="prompts/get")
    token = reply["result"]["requestState"]
    # Same name and arguments on another method: the binding to prompts/get must hold.
    server.tool("code_review")(lambda session, request, response: response.result.content.add_text("ran"))
    assert_rejected(await wire.call("code_review", {"code": "x"}, responses={"focus": accept(focus="style")},
                                    state=token), "method")


async def test_wrong_name() -> None:
    wire = Wire(server_with())
    token = await minted(wire)
    assert_rejected(await wire.call("count_roots", {"path": "/a"}, responses=CONFIRM, state=token), "name")


async def test_wrong_arguments() -> None:
    wire = Wire(server_with())
    token = await minted(wire, "/a")
    assert_rejected(await wire.call("delete_file", {"path": "/etc/passwd"}, responses=CONFIRM, state=token),
                    "arguments")


async def test_wrong_principal() -> None:
    server = server_with()
    alice, bob = Wire(server, user="alice"), Wire(server, user="bob")
    token = await minted(alice)
    assert_rejected(await bob.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token), "principal")
    done = await alice.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token)
    assert done["result"]["content"][0]["text"] == "File deleted"


async def test_rejection_reason_is_hidden_unless_explaining() -> None:
    server = build_demo_server(ServerOptions(mrtr=MrtrOptions(secret="x")))
    wire = Wire(server)
    token = await minted(wire)
    reply = await wire.call("delete_file", {"path": "/b"}, responses=CONFIRM, state=token)
    assert reply["error"] == {"code": -32602, "message": "Invalid requestState"}


async def test_state_of_the_wrong_type_is_invalid_params() -> None:
    wire = Wire(server_with())
    for bad in (42, None, {"v": 1}, ["v1."]):
        reply = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=bad, send_state=True)
        assert reply["error"]["code"] == -32602
        assert reply["error"]["message"] == "Invalid params: requestState must be a string"


async def test_shared_secret_lets_another_instance_continue() -> None:
    first, second = Wire(server_with("shared")), Wire(server_with("shared"))
    token = await minted(first)
    done = await second.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token)
    assert done["result"]["content"] == [{"type": "text", "text": "File deleted"}]


async def test_random_per_instance_secret_rejects_another_instances_state() -> None:
    first, second = Wire(server_with("")), Wire(server_with(""))
    token = await minted(first)
    assert_rejected(await second.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token), "signature")
    done = await first.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=token)
    assert done["result"]["content"][0]["text"] == "File deleted"


async def test_key_rotation_old_key_verifies_new_key_signs() -> None:
    old = Wire(server_with(["old"]))
    rotated_server = server_with(["new", "old"])
    rotated = Wire(rotated_server)
    old_token = await minted(old)
    done = await rotated.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=old_token)
    assert done["result"]["content"][0]["text"] == "File deleted"
    new_token = await minted(rotated)
    assert StateCodec.from_secrets(["new"], audiences="mrtr-studio-demo").verify(
        new_token, Binding("tools/call", "delete_file", {"path": "/a"}))
    assert_rejected(await old.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=new_token), "signature")


def test_strict_base64url() -> None:
    assert b64url_decode(b64url_encode(b"\x00\xffabc")) == b"\x00\xffabc"
    for bad in ("ab=", "a+b/", "abcde", "ab c", "AB"):  # "AB" has non-zero trailing bits
        with pytest.raises(ValueError):
            b64url_decode(bad)


async def test_payload_binds_everything_design_lists() -> None:
    server = server_with()
    wire = Wire(server, user="alice")
    token = await minted(wire, "/x")
    from mrtr_studio.engine.state_token import arguments_digest, decode

    payload = decode(token).payload
    assert set(payload) == {"v", "kid", "aud", "iat", "exp", "m", "n", "a", "p", "k", "r", "nonce", "s"}
    assert payload["aud"] == "mrtr-studio-demo"  # the server's name: no audience configured
    assert (payload["m"], payload["n"], payload["p"], payload["s"], payload["r"]) == (
        "tools/call", "delete_file", "alice", "step=1", 1)
    assert payload["a"] == arguments_digest({"path": "/x"})
    assert payload["k"] == {"confirm": "elicitation/create"}
    assert payload["exp"] - payload["iat"] == 600


async def test_oversized_tokens_are_malformed_and_never_minted() -> None:
    from mrtr_studio.engine.state_token import MAX_TOKEN_CHARS

    server = server_with()
    wire = Wire(server)
    token = await minted(wire)
    padded = token[:3] + "A" * (MAX_TOKEN_CHARS) + token[3:]
    reply = await wire.call("delete_file", {"path": "/a"}, responses=CONFIRM, state=padded)
    assert_rejected(reply, "malformed")
    assert str(MAX_TOKEN_CHARS) in reply["error"]["data"]["detail"]

    @server.tool("hoarder")
    def hoarder(session, request, response):  # type: ignore[no-untyped-def]
        response.input_required.add_elicitation("k", "?", {"type": "object", "properties": {}})
        response.input_required.request_state = "x" * MAX_TOKEN_CHARS

    reply = await wire.call("hoarder")
    assert reply["error"]["code"] == -32603
    assert f"over {MAX_TOKEN_CHARS}" in reply["error"]["message"]
