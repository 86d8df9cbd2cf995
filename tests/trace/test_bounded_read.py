"""read_capped: the one bounded read of a named small file, and its two one-line errors."""

from pathlib import Path

import pytest

from mrtr_studio.trace.bounded_read import read_capped


def test_reads_up_to_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "k"
    path.write_bytes(b"x" * 1024)
    assert read_capped(path, 1024) == b"x" * 1024


def test_over_the_limit_names_the_flag_never_the_content(tmp_path: Path) -> None:
    path = tmp_path / "k"
    path.write_bytes(b"SECRET" * 200)
    with pytest.raises(ValueError) as over:
        read_capped(path, 1024, "--key")
    assert str(over.value) == f"--key: {path} is over 1 KiB"
    with pytest.raises(ValueError, match=r"^\S+ is over 1000 bytes$"):
        read_capped(path, 1000)


def test_endless_device_is_cut_at_the_limit() -> None:
    with pytest.raises(ValueError, match="is over 64 KiB"):
        read_capped("/dev/zero", 64 * 1024, "--x")


def test_missing_says_why(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^--jwt: cannot read .*missing: No such file or directory$"):
        read_capped(tmp_path / "missing", 10, "--jwt")
