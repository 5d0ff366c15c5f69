"""The sentence releaser: only whole, checked sentences of a streamed answer leave it."""

from __future__ import annotations

from bot.core.checks.faithfulness import SourceText
from bot.core.checks.prompt_echoes import echoes_prompt
from bot.core.checks.sentence_release import MAX_HELD_CHARS, SentenceReleaser, checked_sentence
from bot.core.prompting.prompts import answer_prompt

REPO_URL = "https://github.com/vllm-project/vllm"
SOURCE = SourceText.of("Fuses the MoE dispatch kernels. Decode is 12% faster on H100 (from 41 ms to 36 ms).")


def releaser(limit: int = 2900) -> SentenceReleaser:
    return SentenceReleaser(lambda sentence: checked_sentence(sentence, SOURCE, (REPO_URL,)), limit)


def feed_all(r: SentenceReleaser, pieces: list[str]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        out.extend(r.feed(piece))
    return out + r.finish()


def test_nothing_is_released_before_its_sentence_ends() -> None:
    r = releaser()
    assert r.feed("It fuses the MoE dis") == []
    assert r.feed("patch kernels.") == []  # "." may still go on ("kernels.py")
    assert r.feed(" Decode") == ["It fuses the MoE dispatch kernels. "]


def test_a_number_with_a_point_is_not_a_sentence_end() -> None:
    r = releaser()
    assert r.feed("Decode is 12") == []
    assert r.feed(".5") == []
    assert feed_all(r, ["% faster."]) == []  # 12.5% is not in the PR: withheld


def test_the_held_remainder_is_checked_at_the_end() -> None:
    r = releaser()
    assert r.feed("Decode is 12% faster") == []
    assert r.finish() == ["Decode is 12% faster"]
    assert r.text == "Decode is 12% faster"


def test_a_mass_mention_split_across_pieces_never_leaves() -> None:
    shown = feed_all(releaser(), ["Heads up <!chan", "nel> and @he", "re: it fuses the kernels. ", "Done."])
    joined = "".join(shown)
    assert "<!channel>" not in joined and "@here" not in joined and "!chan" not in joined
    assert "it fuses the kernels." in joined


def test_a_foreign_link_is_removed_and_a_link_into_the_repository_kept() -> None:
    shown = "".join(
        feed_all(
            releaser(),
            [
                "See <https://evil.example/x|this> for more. ",
                f"The kernel is in <{REPO_URL}/pull/50911/files|the diff>. ",
            ],
        )
    )
    assert "evil.example" not in shown
    assert f"{REPO_URL}/pull/50911/files" in shown


def test_an_invented_figure_withholds_its_sentence_and_a_grounded_one_passes() -> None:
    shown = feed_all(
        releaser(), ["Decode is 12% faster. ", "It uses 3.5 GiB less memory. ", "Latency drops from 41 ms to 36 ms."]
    )
    assert shown == ["Decode is 12% faster. ", "Latency drops from 41 ms to 36 ms."]


def test_chinese_sentences_end_without_a_space() -> None:
    r = releaser()
    assert r.feed("它融合了 MoE 内核。解码") == ["它融合了 MoE 内核。"]


def test_a_line_without_an_end_is_released_at_a_space_once_long() -> None:
    r = releaser()
    words = "word " * (MAX_HELD_CHARS // 5 + 10)
    out = r.feed(words)
    assert out and all(piece.endswith(" ") for piece in out)
    assert len(r.text) >= MAX_HELD_CHARS - 5


def test_the_answer_cap_is_kept_without_splitting_a_word() -> None:
    r = releaser(limit=40)
    shown = feed_all(r, ["It fuses the MoE dispatch kernels. ", "It fuses the MoE dispatch kernels again. "])
    assert len(r.text) <= 40
    assert "".join(shown) == r.text
    assert not r.text.endswith("ag")


def test_a_recital_spread_over_short_sentences_stops_the_release_once_it_shows() -> None:
    """Each sentence alone is too short to recognise as our prompt; together they are one."""
    words = answer_prompt("DATA", "en").system.split()[:60]
    pieces = [" ".join(words[i : i + 4]).rstrip(".") + ". " for i in range(0, len(words), 4)]
    r = SentenceReleaser(
        lambda sentence: checked_sentence(sentence, SOURCE, (REPO_URL,)), 2900, whole=lambda t: not echoes_prompt(t)
    )
    shown = feed_all(r, pieces)
    assert r.poisoned
    assert not echoes_prompt("".join(shown))  # what was shown never holds a recital
    assert len(shown) < len(pieces) // 2  # and the rest was withheld


def test_a_figure_in_angle_brackets_is_a_claim_like_any_other() -> None:
    assert checked_sentence("It is <40%> faster.", SOURCE, (REPO_URL,)) is None
    assert checked_sentence("Decode is <12%> faster.", SOURCE, (REPO_URL,)) is not None


def test_chinese_without_spaces_is_cut_after_a_clause_mark_once_long() -> None:
    r = releaser()
    clause = "它把路由逻辑移到了融合内核里，"
    out = r.feed(clause * (MAX_HELD_CHARS // len(clause) + 2))
    assert out and all(part.endswith("，") for part in out)


def test_one_endless_token_is_dropped_not_held_and_searched_forever() -> None:
    r = releaser()
    for _ in range(200):
        r.feed("x" * 100)  # 20,000 characters with nowhere to cut: held at most MAX_HELD_CHARS
    assert r.finish() == [] and r.text == ""
