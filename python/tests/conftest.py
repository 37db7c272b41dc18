"""Shared fixtures: the repository's reference facts and the CLI binary.

With DARKHEX_REQUIRE_ALL=1 (scripts/test.sh sets it) no test may be
skipped: OpenSpiel and Ray must be importable and a skipped test fails, so
that the suite CI runs is the whole suite.
"""

import importlib.util
import json
import os
import pathlib
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
REQUIRE_ALL = os.environ.get("DARKHEX_REQUIRE_ALL") == "1"


def pytest_configure(config):
    if REQUIRE_ALL:
        missing = [m for m in ("pyspiel", "ray") if importlib.util.find_spec(m) is None]
        if missing:
            raise pytest.UsageError(
                f"DARKHEX_REQUIRE_ALL=1 runs every test, and {' and '.join(missing)} cannot be imported: "
                "pip install open_spiel ray (scripts/test.sh does)"
            )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_ALL and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped, and DARKHEX_REQUIRE_ALL=1 runs every test: {report.longrepr}"


@pytest.fixture(scope="session")
def reference():
    """Facts measured with OpenSpiel (reference/openspiel.json)."""
    with open(REPO / "reference" / "openspiel.json") as f:
        return json.load(f)["games"]


def cli_binary():
    """The darkhex CLI: $DARKHEX_BIN, the workspace's release build, or PATH."""
    for candidate in (
        os.environ.get("DARKHEX_BIN"),
        REPO / "target" / "release" / "darkhex",
        shutil.which("darkhex"),
    ):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    return None


@pytest.fixture(scope="session")
def darkhex_cli():
    """Runs the CLI and returns its standard output; skips without a binary."""
    binary = cli_binary()
    if binary is None:
        pytest.skip("the darkhex CLI is not built: run `cargo build --release` (scripts/test.sh does)")

    def run(*args, cwd=None):
        done = subprocess.run(
            [binary, *args], cwd=cwd, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run
