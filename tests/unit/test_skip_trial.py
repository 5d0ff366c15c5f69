"""The figures docs/benchmarks.md gives for `python -m scripts.skip_trial` on the vLLM data set."""

from __future__ import annotations

from scripts import skip_trial
from tests.shared_data import shared_rows


def test_on_the_vllm_data_set_only_one_pr_is_settled_by_metadata() -> None:
    found = skip_trial.trial([skip_trial.snapshot(row) for row in shared_rows()])
    counts = {kind: [s.listing.number for s in prs] for kind, prs in found.items()}
    assert counts == {"bot-bumps": [], "lockfile-only": [], "ci-one-line": [51079], "any": [51079]}
