"""The repository label of /metrics: the config file's public repositories by name, every other
one (private, followed from Slack, another workspace's) as `other`, so the series stay few."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from bot.errors import StoreError
from bot.ops.metric_labels import OTHER, RepoLabels
from bot.ops.metrics import PrometheusSink

PUBLIC, PRIVATE = "vllm-project/vllm", "acme/secret"


def repo_values(sink: PrometheusSink) -> dict[str, float]:
    """Tokens by repository label, as scraped."""
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(sink.exposition().decode()):
        for sample in family.samples:
            if sample.name == "prdigest_model_tokens_by_repo_total":
                found[sample.labels["repo"]] = sample.value
    return found


def sink_for(named: tuple[str, ...], private: set[str]) -> PrometheusSink:
    labels = RepoLabels(named, lambda repo: repo in private)
    return PrometheusSink(bounded={"repo": labels.label})


def test_only_the_files_public_repositories_keep_their_names() -> None:
    sink = sink_for((PUBLIC, PRIVATE), {PRIVATE})
    sink.count("model_tokens_by_repo_total", 100, {"repo": PUBLIC})
    sink.count("model_tokens_by_repo_total", 727, {"repo": PRIVATE})
    sink.count("model_tokens_by_repo_total", 5, {"repo": "someone/else"})  # followed from Slack

    assert repo_values(sink) == {PUBLIC: 100, OTHER: 732}


def test_a_thousand_tenant_repositories_are_one_series() -> None:
    sink = sink_for((PUBLIC,), set())
    for number in range(1000):
        sink.count("model_tokens_by_repo_total", 1, {"repo": f"tenant{number}/repo{number}"})

    assert repo_values(sink) == {OTHER: 1000}


def test_names_are_matched_whatever_their_case() -> None:
    labels = RepoLabels(("VLLM-Project/vLLM",), lambda repo: False)
    assert labels.label("vllm-project/VLLM") == PUBLIC


def test_a_repository_whose_visibility_cannot_be_read_is_other() -> None:
    def unreadable(repo: str) -> bool:
        raise StoreError("error.redis_unreachable", error="ConnectionError")

    assert RepoLabels((PUBLIC,), unreadable).label(PUBLIC) == OTHER


def test_the_file_is_asked_first_so_a_tenants_name_costs_no_lookup() -> None:
    asked: list[str] = []

    def is_private(repo: str) -> bool:
        asked.append(repo)
        return False

    labels = RepoLabels((PUBLIC,), is_private)
    assert labels.label("tenant/repo") == OTHER
    assert asked == []
