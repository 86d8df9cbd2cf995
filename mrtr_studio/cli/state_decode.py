"""`mrtr-studio state decode`: any server's requestState, its format detected, every check said.

The command and its `--json` shape are fixed (scripts read them). Keys are parsed here (`hex:`, `base64:`, else
UTF-8 text) and key files (PEM, JWKS) read here, bounded, so the decoders stay I/O-free. Anything
printed from the token goes through `printable`: a hostile state cannot drive the terminal.
"""

import argparse
import json
import sys
from typing import Any

from ..defaults import STATE_MAX_KEY_BYTES
from ..states import Decoded, RequestContext, decode_state, parse_key
from ..states.detect import printable
from ..trace.bounded_read import read_capped


class FlagError(ValueError):
    """A flag's value is unusable; the message names the flag."""


def keys_of(args: argparse.Namespace, secrets: list[str]) -> list[bytes]:
    keys = []
    for secret in secrets:
        try:
            keys.append(parse_key(secret))
        except ValueError as exc:
            raise FlagError(f"argument --secret: {exc}") from None
    for name in args.key_file or []:
        try:
            data = read_capped(name, STATE_MAX_KEY_BYTES, "argument --key-file")
        except ValueError as exc:
            raise FlagError(str(exc)) from None
        if not data:
            raise FlagError(f"argument --key-file: {name} is empty")
        keys.append(data)
    return keys


def request_of(args: argparse.Namespace) -> RequestContext | None:
    arguments: Any = None
    if args.args is not None:
        try:
            arguments = json.loads(args.args)
        except ValueError as exc:
            raise FlagError(f"argument --args: not JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise FlagError("argument --args: expected a JSON object")
    given = (args.method, args.name, arguments, args.principal, args.bind)
    if all(v is None for v in given) and not args.audience:
        return None
    return RequestContext(method=args.method, name=args.name, arguments=arguments, principal=args.principal,
                          audiences=tuple(args.audience), bind_value=args.bind)


def run_state_decode(args: argparse.Namespace, secrets: list[str]) -> int:
    try:
        keys = keys_of(args, secrets)
        request = request_of(args)
    except FlagError as exc:
        print(f"mrtr-studio state decode: {exc}", file=sys.stderr)
        return 2
    decoded = decode_state(args.token, keys, format=args.format, request=request, ttl=args.state_ttl,
                           rounds=list(args.round or []))
    if args.json:
        print(json.dumps(decoded.as_dict(), indent=2))  # ensure_ascii: control characters are escaped
    else:
        print_text(decoded)
    return 1 if decoded.verdict == "fail" else 0


def print_text(decoded: Decoded) -> None:
    if decoded.header is not None:
        print("header:")
        for key, value in decoded.header.items():
            print(f"  {printable(str(key)):6} {printable(json.dumps(value, ensure_ascii=False))}")
    if decoded.payload is not None:
        print("payload:")
        for key, value in decoded.payload.items():
            label = decoded.labels.get(key, "") if decoded.format != "studio" else ""
            shown = printable(json.dumps(value, ensure_ascii=False))
            print(f"  {printable(str(key)):6} {shown}" + (f"   # {label}" if label else ""))
    print("checks:")
    for check in decoded.checks:
        print(f"  {check.status.upper():12} {check.name:10} {printable(check.why)}")
    print(f"format: {decoded.format}")
    print(f"verdict: {decoded.verdict}")
