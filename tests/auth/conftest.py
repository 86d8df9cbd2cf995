"""The fixtures most OAuth tests share: the authorization server fixture, and the demo engine behind it."""

from collections.abc import Iterator

import pytest

from mrtr_studio.auth.jwt_verifier import JwtVerifier

from .as_fixture import AuthServer
from .as_fixture import protected as protected_by


@pytest.fixture
def issuer() -> Iterator[AuthServer]:
    with AuthServer() as server:
        yield server


@pytest.fixture
def protected(issuer: AuthServer) -> Iterator[tuple[str, JwtVerifier]]:
    """(URL, verifier) of the demo engine accepting only `issuer`'s tokens."""
    with protected_by(issuer) as served:
        yield served
