"""A card job's PR number is one GitHub could give (its GraphQL Int), and a job queued for an
announced merge says so in its JSON, which a job written without the mark still reads."""

from __future__ import annotations

import json

import pytest

from bot.core.card_jobs import MAX_PR_NUMBER, CardJob

OLDER = {"repo": "acme/widgets", "number": 5, "language": "en", "merge_sha": None}


@pytest.mark.parametrize("number", [10**30, MAX_PR_NUMBER + 1, 0, True, 5.0])
def test_a_job_for_a_number_github_could_not_give_is_not_read(number: object) -> None:
    with pytest.raises(ValueError, match="number"):
        CardJob.from_json({**OLDER, "number": number})


def test_a_job_queued_for_a_merge_keeps_its_mark_and_an_older_job_has_none() -> None:
    job = CardJob("acme/widgets", MAX_PR_NUMBER, "en", for_merge=True)
    assert CardJob.from_json(json.loads(json.dumps(job.to_json()))) == job
    assert CardJob.from_json(OLDER).for_merge is False and "for_merge" not in CardJob("acme/widgets", 5, "en").to_json()
    with pytest.raises(ValueError, match="for_merge"):
        CardJob.from_json({**OLDER, "for_merge": "yes"})
