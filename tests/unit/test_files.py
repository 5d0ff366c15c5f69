"""File classification: the kind of a path and whether it is worth the model's budget."""

from __future__ import annotations

import pytest

from bot.core.heuristic.files import file_kind, skip_reason
from bot.models import FileChange
from tests.unit.builders import make_file

# -- file_kind and skip_reason --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("vllm/v1/core/sched.py", "source"),
        ("csrc/attention/kernel.cu", "source"),
        ("tests/v1/test_sched.py", "test"),
        ("vllm/utils/test_helpers.py", "test"),
        ("pkg/server_test.go", "test"),
        ("web/app.test.ts", "test"),
        ("lib/x_test.py", "test"),
        ("src/test/java/Foo.java", "test"),
        ("tests/README.md", "test"),
        ("docs/design/scheduler.md", "docs"),
        ("README.md", "docs"),
        ("docs/source/conf.py", "docs"),
        ("notes.rst", "docs"),
        ("docs/requirements-docs.txt", "config"),
        (".github/workflows/ci.yml", "ci"),
        (".buildkite/test-pipeline.yaml", "ci"),
        (".buildkite/check-torch-abi.py", "ci"),
        ("ci/run.sh", "ci"),
        (".gitlab-ci.yml", "ci"),
        ("Jenkinsfile", "ci"),
        ("pyproject.toml", "config"),
        ("config/app.yaml", "config"),
        ("package.json", "config"),
        ("setup.cfg", "config"),
        ("requirements/cuda.txt", "config"),
        ("requirements-dev.txt", "config"),
        ("docker/Dockerfile.rocm", "config"),
        ("setup.py", "config"),
        ("CMakeLists.txt", "config"),
    ],
)
def test_file_kind(path: str, kind: str) -> None:
    assert file_kind(path) == kind


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (make_file("assets/logo.png", 0, 0, patch=None), "binary file"),
        (make_file("data/blob", 0, 0, patch=None), "binary file"),
        (make_file("model/weights.safetensors", 3, 1), "binary file"),
        (make_file("dist/pkg-1.0-py3-none-any.whl", 0, 0, patch=None), "binary file"),
        (make_file("fonts/Inter.woff2", 0, 0, patch=None), "binary file"),
        (make_file("uv.lock", 400, 300), "lock file"),
        (make_file("web/package-lock.json", 40, 3), "lock file"),
        (make_file("go.sum", 4, 0), "lock file"),
        (make_file("static/app.min.js", 1, 1), "generated file"),
        (make_file("proto/api_pb2.py", 90, 0), "generated file"),
        (make_file("proto/api_pb2_grpc.py", 90, 0), "generated file"),
        (make_file("api/v1/api.pb.go", 90, 0), "generated file"),
        (make_file("src/generated/client.ts", 9, 0), "generated file"),
        (make_file("tests/__snapshots__/ui.snap", 9, 0), "generated file"),
        (make_file("vendor/github.com/x/y.go", 9, 0), "vendored"),
        (make_file("third_party/cutlass/gemm.h", 9, 0), "vendored"),
        (make_file("csrc/third-party/x.h", 9, 0), "vendored"),
        (make_file("web/node_modules/left-pad/index.js", 9, 0), "vendored"),
        (make_file("vllm/huge_table.py", 30000, 0, patch=None), "no diff from GitHub (too large)"),
    ],
)
def test_skip_reason(change: FileChange, reason: str) -> None:
    assert skip_reason(change) == reason


def test_source_and_deleted_files_are_not_skipped() -> None:
    assert skip_reason(make_file("vllm/core.py", 10, 2)) is None
    assert skip_reason(make_file("vllm/old.py", 0, 120, status="removed")) is None
    # A removed file over GitHub's diff limit still says something: its name and line count.
    assert skip_reason(make_file("vllm/old.py", 0, 90000, patch=None, status="removed")) is None


def test_a_pure_rename_is_not_taken_for_a_binary_file() -> None:
    rename = make_file("vllm/new.py", 0, 0, patch=None, status="renamed", previous_path="vllm/old.py")
    assert skip_reason(rename) is None
