"""The one redaction profile: credential headers of any scheme, cookies, API keys and credential-named
query parameters are masked; protocol identifiers stay; `none` masks nothing only when asked."""

import pytest

from mrtr_studio.auth.secrets import SecretBook, masked_headers
from mrtr_studio.trace.redaction import DEFAULT, Redaction


def test_authorization_of_any_scheme_keeps_its_scheme() -> None:
    shown = DEFAULT.headers({"Authorization": "Bearer abc", "authorization": "DPoP xyz",
                             "Proxy-Authorization": "Basic dXNlcjpwYXNz", "AUTHORIZATION": "opaque"})
    assert shown == {"Authorization": "Bearer ***", "authorization": "DPoP ***",
                     "Proxy-Authorization": "Basic ***", "AUTHORIZATION": "***"}


def test_cookies_keys_and_credential_names_are_masked_protocol_ids_are_not() -> None:
    shown = DEFAULT.headers({"Cookie": "a=1; b=2", "Set-Cookie": "sid=s3cret; Path=/; HttpOnly",
                             "X-Api-Key": "k", "X-Auth-Token": "t", "X-Client-Secret": "s", "X-Password": "p",
                             "Mcp-Session-Id": "sess-1", "WWW-Authenticate": 'Bearer realm="x"',
                             "Content-Type": "application/json"})
    assert shown["Cookie"] == "a=***; b=***" and shown["Set-Cookie"] == "sid=***; Path=/; HttpOnly"
    assert {shown[k] for k in ("X-Api-Key", "X-Auth-Token", "X-Client-Secret", "X-Password")} == {"***"}
    assert shown["Mcp-Session-Id"] == "sess-1" and shown["WWW-Authenticate"] == 'Bearer realm="x"'
    assert shown["Content-Type"] == "application/json"


def test_query_strings_and_urls() -> None:
    assert DEFAULT.query("api_key=1&region=eu&access_token=2&code=3") == \
        "api_key=***&region=eu&access_token=***&code=***"
    assert DEFAULT.url("https://u:pw@h.example:8443/mcp?apiKey=9&x=1#f") == \
        "https://u:***@h.example:8443/mcp?apiKey=***&x=1#f"
    assert DEFAULT.url("http://h/mcp") == "http://h/mcp"


def test_extra_names_and_the_none_profile() -> None:
    custom = Redaction(["X-Tenant"])
    assert custom.headers({"X-Tenant": "acme", "X-Other": "1"}) == {"X-Tenant": "***", "X-Other": "1"}
    assert custom.query("x-tenant=acme") == "x-tenant=***"
    none = Redaction(profile="none")
    assert none.headers({"Authorization": "Bearer abc"}) == {"Authorization": "Bearer abc"}
    assert none.url("http://h/?api_key=1") == "http://h/?api_key=1"
    with pytest.raises(ValueError, match="profile"):
        Redaction(profile="off")


def test_the_auth_flow_masks_through_the_same_profile() -> None:
    book = SecretBook()
    book.add("tok-abcdef-123")
    shown = masked_headers({"Authorization": "DPoP tok-abcdef-123", "Cookie": "a=1",
                            "X-Echo": "was tok-abcdef-123"}, book)
    assert shown == {"Authorization": "DPoP ***", "Cookie": "a=***", "X-Echo": "was ***"}
