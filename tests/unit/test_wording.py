"""A file's diff that changes only comments, docstrings or the text of strings is told from one
that changes code (core/heuristic/wording.py), on patches shaped as GitHub sends them: hunks that begin in
the middle of a docstring or a block comment, strings rewrapped over lines, f-string fields."""

from __future__ import annotations

import time

import pytest

from bot.core.heuristic.wording import wording_only

# vllm-project/vllm#51014 "[Docs] Fix two docs build warnings": one docstring line of
# vllm/model_executor/kernels/linear/mxfp6/base.py, the hunk starting inside the docstring.
MXFP6_DOCSTRING = '''@@ -20,7 +20,7 @@ class MxFp6LinearLayerConfig:
         weight_quant_key: Identifies the weight quantization format. Can be
             kMxfp6E2M3Static or kMxfp6E3M2Static.
         activation_quant_key: Identifies the activation quantization format,
-            or None when activations must not be quantized.
+            or `None` when activations must not be quantized.
     """

     weight_quant_key: QuantKey'''

WORDING = [
    ("vllm/model_executor/kernels/linear/mxfp6/base.py", MXFP6_DOCSTRING),
    (
        "vllm/v1/core/block_pool.py",
        "@@ -8,3 +8,3 @@\n x = 1\n-# free the blocks\n+# free the blocks, newest first\n y = 2",
    ),
    ("vllm/v1/core/block_pool.py", "@@ -8,3 +8,3 @@\n x = 1\n-y = free(x)  # old\n+y = free(x)  # new words\n z = y"),
    (
        "vllm/entrypoints/openai/cli_args.py",
        '@@ -40,3 +40,4 @@\n     parser.add_argument(\n-        help="Gate the API with a key.",\n'
        '+        help="Gate the API with a key. It does not "\n+        "gate every endpoint.",\n     )',
    ),
    ("vllm/utils/log.py", '@@ -1,1 +1,1 @@\n-msg = f"freed {count} blocks"\n+msg = f"released {count} blocks"'),
    (
        "vllm/v1/pool.py",
        '@@ -3,2 +3,3 @@ class Pool:\n     def free(self):\n+        """Free every block."""\n         return 1',
    ),
    (
        "vllm/v1/pool.py",
        '@@ -3,5 +3,5 @@\n     def free(self):\n         """\n-        Frees them.\n'
        '+        Frees every block.\n         """\n',
    ),
    (
        "csrc/attention/paged.cu",
        "@@ -1,3 +1,3 @@\n int x;\n-// one block per warp\n+// one block per warp, as before\n int y;",
    ),
    (
        "csrc/attention/paged.cu",
        "@@ -9,4 +9,4 @@\n * Pages the KV cache.\n- * old words\n+ * new words\n */\n int y = 1;",
    ),
    (
        "csrc/attention/paged.cu",
        '@@ -1,1 +1,1 @@\n-  TORCH_CHECK(ok, "bad block");\n+  TORCH_CHECK(ok, "bad block size");',
    ),
    (".buildkite/test-pipeline.yaml", "@@ -1,2 +1,2 @@\n steps:\n-# run nightly\n+# run every night"),
    ("tools/build.sh", "@@ -1,2 +1,2 @@\n set -e\n-make  # build\n+make  # build it all"),
]

CODE = [
    # The docstring closes before the hunk's change: the change is code.
    (
        "vllm/v1/pool.py",
        '@@ -1,5 +1,5 @@\n     Returns the pool.\n     """\n-    size = 1\n+    size = 2\n     return size',
    ),
    (
        "vllm/v1/pool.py",
        "@@ -1,3 +1,3 @@ def f():\n     return result_0\n-    value_0 = legacy_compute(0)\n+    value_0 = compute(0)",
    ),
    ("vllm/utils/log.py", '@@ -1,1 +1,1 @@\n-msg = f"freed {count} blocks"\n+msg = f"freed {total} blocks"'),
    # A new element of a list is code, though it is a string.
    ("vllm/models/registry.py", '@@ -1,3 +1,4 @@\n MODELS = [\n     "llama",\n+    "qwen",\n ]'),
    # A string that gains a comma ends an argument where it did not.
    ("vllm/entrypoints/cli_args.py", '@@ -1,2 +1,3 @@\n f(\n-    help="Old."\n+    help="New "\n+    "words.",'),
    ("csrc/attention/paged.cu", "@@ -9,4 +9,4 @@\n * Pages the KV cache.\n */\n-int y = 1;\n+int y = 2;"),
    ("csrc/attention/paged.cu", '@@ -1,1 +1,1 @@\n-#include "paged.h"\n+#include "paged_v2.h"'),
    ("configs/model.yaml", '@@ -1,2 +1,2 @@\n a: 1\n-b: "small"\n+b: "large"'),
    # Moved lines are code, though each is the same.
    ("vllm/v1/pool.py", "@@ -1,3 +1,3 @@\n-a = 1\n-b = 2\n+b = 2\n+a = 1"),
    # Indentation is Python's syntax.
    ("vllm/v1/pool.py", "@@ -1,2 +1,2 @@\n if ok:\n-x = 1\n+    x = 1"),
]

NEVER = [
    ("docs/usage.md", "@@ -1 +1 @@\n-# Usage\n+# How to use it"),  # docs are docs, by their path
    ("vllm/v1/pool.py", None),  # no patch: binary, or too large for GitHub to send
    ("vllm/v1/pool.py", ""),  # a pure rename
    ("rust/src/lib.rs", "@@ -1 +1 @@\n-// old\n+// new"),  # a language not read here
]


@pytest.mark.parametrize(("path", "patch"), WORDING)
def test_a_diff_of_comments_docstrings_or_strings_is_wording(path: str, patch: str) -> None:
    assert wording_only(path, patch)


@pytest.mark.parametrize(("path", "patch"), CODE)
def test_a_diff_that_changes_code_is_not_wording(path: str, patch: str) -> None:
    assert not wording_only(path, patch)


@pytest.mark.parametrize(("path", "patch"), NEVER)
def test_docs_unread_languages_and_missing_patches_are_never_wording(path: str, patch: str | None) -> None:
    assert not wording_only(path, patch)


def test_a_large_patch_is_read_in_linear_time() -> None:
    # 20,000 changed lines of comments in 600 hunks, and one line inside an unclosed docstring.
    hunk = "@@ -1,40 +1,40 @@\n" + "\n".join(f"-# old note {i}\n+# new note {i}" for i in range(17)) + "\n"
    patch = hunk * 600 + '@@ -1,2 +1,2 @@\n x = """\n-' + "a" * 100_000 + "\n+" + "b" * 100_000
    start = time.perf_counter()
    assert wording_only("vllm/v1/pool.py", patch)
    assert time.perf_counter() - start < 1.0
