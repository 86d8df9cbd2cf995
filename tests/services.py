"""The programs some tests need (redis-server, haproxy): skipped with the reason on a developer's
machine without them, but a FAILURE under CI=true, where `.ci/run` must have installed them; a CI
that silently skips the cluster tests would pass without testing them."""

import os
import shutil

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require(*programs: str) -> None:
    """Return when every program is on PATH; else skip (locally) or fail (under CI=true)."""
    missing = [program for program in programs if shutil.which(program) is None]
    if not missing:
        return
    why = f"{' and '.join(missing)} not installed (Debian: apt-get install {' '.join(missing)})"
    if in_ci():
        pytest.fail(f"{why}; under CI=true this is a failure, not a skip (.ci/run installs them)", pytrace=False)
    pytest.skip(why)
