"""Cards without a model: headline, verdict and points read off a PR's title, description and files,
worded in the reader's language.

Used when no LLM is configured or the model failed. The rules are core/heuristic/'s, pure and
without words: the verdict is signals.py's, the headline is the title (headlines.py), with the
description's key figure when the title states none; the "why" points quote the description's own
sentences (a root cause, a result, a decision), with the file list's points (file_points.py) as
the fallback, and none argues the other way from the verdict (core/heuristic/reasons.py). Every
figure or identifier in a text is copied from the PR's text or computed from the file list (paths,
counts), never invented, so the faithfulness check that guards model cards holds here too.
"""

from __future__ import annotations

from bot.cards.heuristic.file_points import Texts, caveats, file_points, watch
from bot.core.heuristic.description import Description
from bot.core.heuristic.figures import ResultFigure, key_figure, text_figures
from bot.core.heuristic.headlines import (
    MAX_HEADLINE_CHARS,
    cut,
    headline,
    headline_limit,
    scope_tags,
    title_figures,
    title_text,
)
from bot.core.heuristic.reasons import Point, against, contradicts
from bot.core.heuristic.sentences import explains_failure, names_code, quotable, states_decision
from bot.core.heuristic.signals import Evidence, judge
from bot.models import Card, Coverage, Language, PRSnapshot, Verdict
from bot.words import text

# Part of a heuristic card's cache key, as PROMPT_VERSION is of a model card's: change it whenever
# the rules here, in file_points.py or in core/heuristic/ (signals, figures, sentences, headlines)
# would give a different card.
HEURISTIC_VERSION = "heuristic-2026-12-09"
# The card's point limits (DESIGN.md, the card).
MAX_WHY, MAX_CAVEATS, MAX_WATCH = 3, 3, 2
# A quoted sentence is a point, not a paragraph: about three lines of a Slack card.
MAX_QUOTE_CHARS = 220
# The key figure's phrase in a headline: long enough for "up to 7.3x faster decode at batch 64",
# and the title keeps at least this much when both do not fit.
MIN_FIGURE_PHRASE_CHARS, MAX_FIGURE_PHRASE_CHARS = 36, 72
MIN_TITLE_CHARS = 40


def heuristic_card(snapshot: PRSnapshot, coverage: Coverage, language: Language) -> Card:
    """A card from metadata alone: real signal (what changed, what the author explains, what is missing), no model."""
    texts = Texts(language)
    evidence = Evidence.of(snapshot)
    judgement = judge(evidence)
    key = None if evidence.mechanical or title_figures(evidence.title) else key_figure(list(evidence.figures))
    quotes = [] if evidence.mechanical or judgement.verdict == "skip" else _quotes(evidence.description, key, texts)
    if evidence.stats is None:
        points: list[Point] = []
        notes = [texts("title_and_description" if not evidence.description.empty else "title_only")]
    else:
        points = file_points(evidence.stats, judgement.verdict, texts, evidence.title)
        notes = caveats(snapshot, evidence.title, evidence.stats, coverage, texts)
    # The description's own explanation first; the file list's points fill what is left.
    why = _agreeing([*quotes, *points][:MAX_WHY], judgement.verdict)
    return Card(
        headline=_headline(evidence.title, key, texts) or text(language, "card.untitled"),
        verdict=judgement.verdict,
        minutes=judgement.minutes,
        why=tuple(point.text for point in why),
        caveats=tuple(notes[:MAX_CAVEATS]),
        watch=tuple(watch(evidence.title, texts)[:MAX_WATCH]),
        source="heuristic",
        coverage=coverage,
        language=language,
    )


def _agreeing(points: list[Point], verdict: Verdict) -> list[Point]:
    """The points, without those that argue against the verdict when together they contradict it.
    The verdict's floors make this rare (core/heuristic/signals.py): a cap can still hold a bot's kernel
    change at a skip."""
    if not contradicts(verdict, (point.name for point in points)):
        return points
    return [point for point in points if not against(verdict, point.name)]


# -- headline ------------------------------------------------------------------------------------


def _headline(title: str, key: ResultFigure | None, texts: Texts) -> str:
    """The title's headline, with the key figure's words after it when the title states no figure."""
    plain = headline(title)
    scope = scope_tags(title)
    base = title_text(title)
    if key is None or not base:
        return plain
    if scope and scope != base:
        base = f"{scope} {base}"
    figure = _figure_words(key, MAX_HEADLINE_CHARS - len(base), texts)
    if not figure:
        return plain
    whole = texts("headline_figure", title=base, figure=figure)
    limit = headline_limit(whole)
    if len(whole) <= limit:
        return whole
    room = limit - (len(whole) - len(base))
    if room < MIN_TITLE_CHARS:
        return plain
    return texts("headline_figure", title=cut(base, room), figure=figure)


def _figure_words(key: ResultFigure, room: int, texts: Texts) -> str:
    """The figure as the PR words it: its clause, or for a table cell "up to 7.3x speedup (batch 64)"."""
    if key.clause:
        return key.phrase(max(MIN_FIGURE_PHRASE_CHARS, min(MAX_FIGURE_PHRASE_CHARS, room)))
    figure = f"{key.text} {key.column}" if key.column else key.text
    if key.condition:
        return texts("table_figure_at", figure=figure, condition=key.condition)
    return texts("table_figure", figure=figure)


# -- the description's own points ----------------------------------------------------------------


def _quotes(description: Description, key: ResultFigure | None, texts: Texts) -> list[Point]:
    """Up to MAX_WHY sentences of the description, labelled: a cause, a result, a decision, a change."""
    sentences = [(section, sentence) for section, sentence in description.sentences() if quotable(sentence)]
    causes = [sentence for section, sentence in sentences if section.kind == "cause" and section.substantive]
    failures = [sentence for _, sentence in sentences if explains_failure(sentence)]
    # The sentence of the headline's figure first, then any other that states a result.
    results = [sentence for _, sentence in sentences if key is not None and key.clause and key.clause in sentence]
    results += [sentence for _, sentence in sentences if text_figures(sentence)]
    decisions = [sentence for _, sentence in sentences if states_decision(sentence)]
    motivations = [sentence for section, sentence in sentences if section.kind == "motivation"]
    # What the PR does: its "Fix"/"Changes" section, else a sentence that names the code; else its opening.
    changes = [sentence for section, sentence in sentences if section.kind == "change"]
    changes += [sentence for _, sentence in sentences if names_code(sentence)]
    chosen: dict[str, str] = {}  # sentence → label, in the order chosen
    for label, found in (
        ("point_cause", causes),
        ("point_why", [] if causes else failures or motivations),
        ("point_result", results),
        ("point_decision", decisions),
        ("point_change", changes),
    ):
        sentence = next((sentence for sentence in found if sentence not in chosen), None)
        if sentence is not None:
            chosen[sentence] = label
    # Nothing says what it does: its opening sentence, which usually does.
    if "point_change" not in chosen.values() and sentences and sentences[0][1] not in chosen:
        chosen[sentences[0][1]] = "point_summary"
    return [texts.point(label, text=_quote(sentence)) for sentence, label in list(chosen.items())[:MAX_WHY]]


def _quote(sentence: str) -> str:
    """The sentence as written, cut between words; a cut never leaves a number without its unit."""
    quoted = cut(sentence, MAX_QUOTE_CHARS)
    if quoted.endswith("…"):
        words = quoted[:-1].split(" ")
        while len(words) > 1 and any(char.isdigit() for char in words[-1]):
            words.pop()
        quoted = " ".join(words).rstrip(" ,;:-–—/(") + "…"
    return quoted
