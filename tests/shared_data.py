"""The shared data set of real vLLM PRs, for the tests that read it.

It lives beside the project (../shared/data), not in it, so a clone elsewhere lacks it: those
tests then skip with the reason shown in the summary, except on CI (CI=true), where a missing
data set is a broken checkout and fails.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from devkit.fakes import dataset


def shared_rows() -> list[dict[str, Any]]:
    path = dataset.DATASET_PATH
    if path.exists():
        return dataset.load_rows()
    reason = f"the shared data set is not at {path}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI=true, so it must be there")
    pytest.skip(reason)
