"""What kind of file a path is, and whether it is worth the model's budget.

Owns file classification (kind, skip reason) from a path and GitHub's per-file counts. Pure: no
I/O. It must not read or clean file contents, nor decide how much of a file fits: that is
core/prompting/context.py's job.
"""

from __future__ import annotations

from bot.core.strings.patterns import lazy
from bot.models import FileChange

KIND_ORDER = ("source", "test", "docs", "config", "ci")

_TEST_DIRS = frozenset({"tests", "test"})
_TEST_NAME = lazy(r"^test_.*\.py$|_test\.(?:py|go)$|\.(?:test|spec)\.[jt]sx?$|^conftest\.py$")
_DOC_DIRS = frozenset({"docs", "doc"})
_DOC_SUFFIXES = (".md", ".rst", ".adoc", ".txt")
_DOC_NAMES = frozenset({"README", "LICENSE", "CHANGELOG", "NOTICE", "AUTHORS"})
_CI_DIRS = frozenset({".github", ".buildkite", ".circleci", "ci"})
_CI_NAMES = frozenset({".gitlab-ci.yml", "Jenkinsfile", ".travis.yml", "azure-pipelines.yml"})
_CONFIG_SUFFIXES = (".toml", ".yaml", ".yml", ".json", ".cfg", ".ini")
_CONFIG_NAMES = frozenset({"setup.py", "CMakeLists.txt"})

_BINARY_SUFFIXES = (
    *(".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd"),
    *(".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar"),
    *(".pt", ".pth", ".bin", ".safetensors", ".onnx", ".gguf", ".ckpt", ".h5", ".npy", ".npz", ".pkl"),
    *(".so", ".dylib", ".dll", ".exe", ".o", ".a", ".pyc", ".whl"),
    *(".ttf", ".otf", ".woff", ".woff2", ".eot", ".pdf", ".mp3", ".mp4", ".wav", ".mov", ".webm"),
)
LOCK_FILES = frozenset(
    {
        *("package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "uv.lock", "Cargo.lock"),
        *("go.sum", "Pipfile.lock", "composer.lock", "Gemfile.lock"),
    }
)
_GENERATED_SUFFIXES = (".min.js", ".min.css", ".map", "_pb2.py", "_pb2.pyi", "_pb2_grpc.py", ".pb.go", ".snap")
_GENERATED_DIRS = frozenset({"generated", "__generated__"})
_VENDOR_DIRS = frozenset({"vendor", "third_party", "third-party", "node_modules", "external"})


def _parts(path: str) -> tuple[list[str], str]:
    *dirs, name = path.split("/")
    return dirs, name


def file_kind(path: str) -> str:
    """One of KIND_ORDER: "source", "test", "docs", "config", "ci" (in that order of interest)."""
    dirs, name = _parts(path)
    if _TEST_DIRS.intersection(dirs) or _TEST_NAME.search(name):
        return "test"
    if _is_requirements(dirs, name) or name in _CONFIG_NAMES:
        return "config"
    if _DOC_DIRS.intersection(dirs) or name.lower().endswith(_DOC_SUFFIXES) or name in _DOC_NAMES:
        return "docs"
    if _CI_DIRS.intersection(dirs) or name in _CI_NAMES:
        return "ci"
    if name.lower().endswith(_CONFIG_SUFFIXES) or name.startswith("Dockerfile"):
        return "config"
    return "source"


def _is_requirements(dirs: list[str], name: str) -> bool:
    return "requirements" in dirs or (name.startswith("requirements") and name.endswith((".txt", ".in")))


def skip_reason(change: FileChange) -> str | None:
    """Why a file is not worth the model's budget, or None. A deleted file is never skipped for it."""
    dirs, name = _parts(change.path)
    lower = name.lower()
    no_diff = change.patch is None
    # A pure rename has no patch and no line counts either, and is not binary.
    if lower.endswith(_BINARY_SUFFIXES) or (
        no_diff and change.changes == 0 and change.status not in ("renamed", "copied")
    ):
        return "binary file"
    if name in LOCK_FILES:
        return "lock file"
    if lower.endswith(_GENERATED_SUFFIXES) or _GENERATED_DIRS.intersection(dirs):
        return "generated file"
    if _VENDOR_DIRS.intersection(dirs):
        return "vendored"
    # A removed file needs no diff: its name and line count are the information.
    if no_diff and change.changes > 0 and change.status != "removed":
        return "no diff from GitHub (too large)"
    return None
