"""A card job names who asked for the card: the tokens of a card a worker makes are theirs."""

from __future__ import annotations

import json

import pytest

from bot.core.card_jobs import CardJob


def test_a_card_job_carries_who_asked_and_an_older_job_without_it_still_reads() -> None:
    job = CardJob("acme/widgets", 5, "en", "a" * 40, "C0123456789")
    assert CardJob.from_json(json.loads(json.dumps(job.to_json()))) == job
    older = {"repo": "acme/widgets", "number": 5, "language": "en", "merge_sha": None}
    assert CardJob.from_json(older).payer is None and "payer" not in CardJob("acme/widgets", 5, "en").to_json()
    with pytest.raises(ValueError, match="payer"):
        CardJob.from_json({**older, "payer": "C0 <script>"})


def test_a_digest_job_says_the_digest_reads_the_pr_and_an_older_job_reads_as_before() -> None:
    job = CardJob("acme/widgets", 5, "en", "a" * 40, "C0123456789", read_by_asker=True)
    assert CardJob.from_json(json.loads(json.dumps(job.to_json()))) == job
    older = {"repo": "acme/widgets", "number": 5, "language": "en", "merge_sha": None}
    assert CardJob.from_json(older).read_by_asker is False
    assert "read_by_asker" not in CardJob("acme/widgets", 5, "en").to_json()
    with pytest.raises(ValueError, match="read_by_asker"):
        CardJob.from_json({**older, "read_by_asker": "yes"})
