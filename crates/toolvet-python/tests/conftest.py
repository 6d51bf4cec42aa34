import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from policy import make_host  # noqa: E402


@pytest.fixture(scope="session")
def shared_host(tmp_path_factory):
    """One host for tests that do not care about the ledger's contents."""
    return make_host(tmp_path_factory.mktemp("policy"))


@pytest.fixture
def host(tmp_path):
    """A host of its own (fresh memory ledger) for each test."""
    return make_host(tmp_path)
