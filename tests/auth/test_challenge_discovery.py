"""WWW-Authenticate parsing and the metadata discovery order of the MCP authorization spec."""

from mrtr_studio.auth import discovery as D
from mrtr_studio.auth.challenge import bearer_params
from mrtr_studio.auth.secrets import MASK, SecretBook


def test_bearer_params_read_quoted_and_token_values() -> None:
    header = ('Bearer error="insufficient_scope", scope="files:read files:write", '
              'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", '
              'error_description="needs \\"write\\""')
    assert bearer_params(header) == {
        "error": "insufficient_scope", "scope": "files:read files:write",
        "resource_metadata": "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
        "error_description": 'needs "write"'}
    assert bearer_params("Bearer resource_metadata=https://a/b") == {"resource_metadata": "https://a/b"}


def test_only_the_bearer_challenge_counts() -> None:
    assert bearer_params('Basic realm="x", Bearer scope="mcp"') == {"scope": "mcp"}
    assert bearer_params('Basic realm="x"') == {}
    assert bearer_params(None) == {}
    assert bearer_params("Bearer") == {}


def test_prm_urls_header_first_else_path_then_root() -> None:
    assert D.prm_urls("https://ex.com/public/mcp", "https://ex.com/meta") == ["https://ex.com/meta"]
    assert D.prm_urls("https://ex.com/public/mcp", None) == [
        "https://ex.com/.well-known/oauth-protected-resource/public/mcp",
        "https://ex.com/.well-known/oauth-protected-resource"]
    assert D.prm_urls("https://ex.com/", None) == ["https://ex.com/.well-known/oauth-protected-resource"]


def test_as_metadata_urls_in_the_spec_order() -> None:
    assert D.as_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration"]
    assert D.as_metadata_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration"]


def test_resource_must_name_this_server_or_a_parent() -> None:
    assert D.resource_covers("https://ex.com/mcp", "https://EX.com/mcp")
    assert D.resource_covers("https://ex.com", "https://ex.com/mcp")
    assert not D.resource_covers("https://evil.example.com/mcp", "https://ex.com/mcp")
    assert not D.resource_covers("https://ex.com/mc", "https://ex.com/mcp")
    assert not D.resource_covers("http://ex.com/mcp", "https://ex.com/mcp")


def test_secret_book_masks_values_and_secret_fields() -> None:
    book = SecretBook()
    book.add("tok-abcdef-123", None, "x")
    assert book.mask("Authorization: Bearer tok-abcdef-123") == f"Authorization: Bearer {MASK}"
    assert book.masked_body('{"access_token": "other-token", "token_type": "Bearer"}') == {
        "access_token": MASK, "token_type": "Bearer"}
    assert book.masked_body("grant_type=authorization_code&code=abcdefgh&state=tok-abcdef-123") == \
        f"grant_type=authorization_code&code={MASK}&state={MASK}"
