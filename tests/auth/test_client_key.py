"""`--client-key PEM_FILE` (private_key_jwt): the key's algorithm follows from it, and every unusable key or
combination is a one-line usage error naming the flag, before anything connects, never quoting the key.
(The key at a real authorization server: test_oidc_provider.py.)"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from mrtr_studio.auth.client_auth import read_client_key

ROOT = Path(__file__).resolve().parents[2]


def pem(key: object, password: bytes | None = None) -> bytes:
    encryption = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,  # type: ignore[attr-defined]
                             encryption)


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    made = {"ec": pem(ec.generate_private_key(ec.SECP256R1())), "p384": pem(ec.generate_private_key(ec.SECP384R1())),
            "ed": pem(ed25519.Ed25519PrivateKey.generate()),
            "rsa": pem(rsa.generate_private_key(public_exponent=65537, key_size=2048)),
            "k1": pem(ec.generate_private_key(ec.SECP256K1())),
            "locked": pem(ec.generate_private_key(ec.SECP256R1()), b"pass phrase"),
            "public": ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo),
            "big": b"x" * (65 * 1024)}
    for name, data in made.items():
        (tmp_path / f"{name}.pem").write_bytes(data)
    return {name: tmp_path / f"{name}.pem" for name in made}


def test_the_algorithm_follows_from_the_key(keys: dict[str, Path]) -> None:
    for name, alg in (("ec", "ES256"), ("p384", "ES384"), ("ed", "EdDSA"), ("rsa", "RS256")):
        text, found = read_client_key(str(keys[name]))
        assert found == alg and text.startswith("-----BEGIN PRIVATE KEY-----")


@pytest.mark.parametrize(("name", "message"), [
    ("k1", "is on secp256k1; use P-256, P-384 or P-521"),
    ("locked", "is encrypted"),
    ("public", "does not hold a PEM private key"),
    ("big", "is over 64 KiB"),
    ("missing", "cannot read"),
])
def test_unusable_keys_are_refused_clearly(keys: dict[str, Path], name: str, message: str) -> None:
    path = keys.get(name, keys["ec"].with_name("missing.pem"))
    with pytest.raises(ValueError, match=r"^--client-key: ") as refused:
        read_client_key(str(path))
    assert message in str(refused.value)


@pytest.mark.slow
def test_client_key_flags_are_one_line_usage_errors(keys: dict[str, Path]) -> None:
    url = "http://127.0.0.1:9/mcp"  # never reached
    secret_key = keys["ec"].read_text()
    cases = [
        (["--oauth-headless", "--client-key", str(keys["ec"])], "--client-key needs --client-id"),
        (["--client-id", "c", "--client-key", str(keys["ec"])], "--client-key goes with --oauth"),
        (["--oauth-headless", "--client-id", "c", "--client-secret", "s", "--client-key", str(keys["ec"])],
         "cannot be combined"),
        (["--client-credentials", "--client-id", "c", "--client-key", str(keys["public"])],
         "--client-key: " + str(keys["public"]) + " does not hold a PEM private key"),
    ]
    for flags, message in cases:
        for command in ("call", "check"):
            done = subprocess.run([sys.executable, "-m", "mrtr_studio", command, url, "--tool", "t", *flags],
                                  capture_output=True, text=True, timeout=60,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
            assert done.returncode == 2, (command, flags, done.stderr)
            assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, (command, done.stderr)
            assert "Traceback" not in done.stderr and secret_key.splitlines()[1] not in done.stderr
