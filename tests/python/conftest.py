# SPDX-License-Identifier: MIT
"""Fixtures of the Python tests: the tiny tokenizer made by make_tokenizer.sh (ctest fixture
python_tokenizer), the `morpheus` binary and the shared dev sentences, all passed by ctest in the
environment (tests/python/CMakeLists.txt)."""
import os
import subprocess

import pytest


def _env(name):
    value = os.environ.get(name, "")
    if not value:
        pytest.fail(f"{name} is not set (run these tests through ctest -L python)")
    return value


@pytest.fixture(scope="session")
def tokdir():
    return _env("MORPHEUS_TEST_TOKENIZER")


@pytest.fixture(scope="session")
def morpheus_bin():
    return _env("MORPHEUS_BIN")


@pytest.fixture(scope="session")
def dev_lines():
    with open(_env("MORPHEUS_DEV_SENTENCES"), "rb") as f:
        data = f.read()
    assert data.endswith(b"\n")
    return [line.decode("utf-8") for line in data[:-1].split(b"\n")]


def run_cli(morpheus_bin, *args, stdin=None):
    """stdout of `morpheus ARGS...` (fails the test on a non-zero exit)."""
    done = subprocess.run([morpheus_bin, *args], input=stdin, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return done.stdout
