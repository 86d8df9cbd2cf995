"""How much `serve --auth jwt` pays per request: RS256 bearer JWT checks per second (keys cached), printed.

Run: `.venv/bin/python tools/bench_auth.py [--tokens N]`. Nothing is asserted; the numbers are for people.
"""

import argparse
import asyncio
import contextlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mrtr_studio.auth.jwt_verifier import JwtVerifier, TokenRejected
from mrtr_studio.auth.local_issuer import LocalIssuer


async def main(count: int) -> None:
    issuer = LocalIssuer("https://issuer.bench")
    verifier = JwtVerifier(issuer.issuer, "bench", issuer.jwks())
    started = time.perf_counter()
    tokens = [issuer.mint(f"user-{i}", "bench") for i in range(count)]
    minted = time.perf_counter() - started
    started = time.perf_counter()
    for token in tokens:
        await verifier.principal(token)
    valid = time.perf_counter() - started
    forged = [t[:-4] + ("AAAA" if not t.endswith("AAAA") else "BBBB") for t in tokens]
    started = time.perf_counter()
    for token in forged:
        with contextlib.suppress(TokenRejected):
            await verifier.principal(token)
    refused = time.perf_counter() - started
    print(f"RS256 (2048-bit): minted {count / minted:,.0f}/s; verified {count / valid:,.0f}/s "
          f"({valid / count * 1e6:,.0f} µs each); bad signatures refused {count / refused:,.0f}/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=2000)
    asyncio.run(main(parser.parse_args().tokens))
