"""A screenshot run (`--scenario NAME --auto --screenshot-dir`, what `make screenshots` runs) settles
the window by awaiting, not by processEvents inside a task: no task is stepped re-entrantly, so no
"Cannot enter into task" traceback and no listing (the explorer's Skills) left half done."""

from pathlib import Path

import pytest

from tests.ui.test_main_window import run_auto


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["delete_file", "modes"])
def test_a_screenshot_run_ends_without_a_traceback(tmp_path: Path, scenario: str) -> None:
    out = tmp_path / scenario
    done = run_auto("--scenario", scenario, "--screenshot-dir", str(out), "--screen-size", "1366x768")
    assert done.returncode == 0, done.stderr
    assert list(out.glob("*.png"))
    assert "Traceback" not in done.stderr and "Cannot enter into task" not in done.stderr, done.stderr
