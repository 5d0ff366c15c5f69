"""The labelled files `prdigest eval` reads: PRs with a careful reader's verdict (eval/seed.jsonl),
and questions with what a good answer must say (eval/answers.jsonl). Pure: lines in (split on
"\n" only, as bot/eval/files.py reads them, so a JSON string may hold U+2028), values out.

A line that is not what eval/README.md describes (not JSON, nested past what the JSON reader
recurses into, an unknown or missing field, a reference that does not parse, a verdict that is
not skip/skim/read) is a UsageError naming the file and the line, raised before anything is
fetched, asked or cached.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, get_args

from bot.core.refs import parse_ref, parse_repo
from bot.errors import UsageError, quoted
from bot.models import PRRef, Verdict

CARD_FIELDS = frozenset({"ref", "verdict", "minutes", "figures", "forbidden", "note"})
ANSWER_FIELDS = frozenset({"ref", "question", "must_say", "not_stated", "note"})
# A reading time beyond a working day is a typo, not a label.
MAX_MINUTES = 480


@dataclass(frozen=True)
class Labelled:
    """One PR as a careful reader judged it."""

    ref: PRRef
    verdict: Verdict
    minutes: int | None
    figures: tuple[str, ...]  # what a good headline carries: "16.98 GiB", "1.5~3x", "ROCm"
    forbidden: tuple[str, ...]  # what must appear nowhere in the card
    where: str  # "eval/seed.jsonl:3", for the report


@dataclass(frozen=True)
class Asking:
    """One question about a PR (`ref`) or about the PRs of a repository over days (`repo` only),
    and what a good answer says: every item of `must_say`, or that the PR does not say."""

    repo: str
    ref: PRRef | None
    question: str
    must_say: tuple[str, ...]
    not_stated: bool
    where: str


class _Bad(Exception):
    """A line's problem, as (words key, values); the caller adds the file and the line."""

    def __init__(self, kind: str, **values: str) -> None:
        super().__init__(kind)
        self.kind = kind
        self.values = values


def parse_labels(lines: Iterable[str], name: str) -> list[Labelled]:
    """Every labelled PR of a file's lines; `name` is how errors name the file."""
    return [_labelled(fields, f"{name}:{number}") for number, fields in _lines(lines, name, CARD_FIELDS)]


def parse_questions(lines: Iterable[str], name: str) -> list[Asking]:
    return [_asking(fields, f"{name}:{number}") for number, fields in _lines(lines, name, ANSWER_FIELDS)]


def _lines(lines: Iterable[str], name: str, allowed: frozenset[str]) -> list[tuple[int, dict[str, Any]]]:
    read = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            fields = _object(line, allowed)
        except _Bad as bad:
            raise UsageError(f"error.eval_{bad.kind}", file=name, line=number, **bad.values) from None
        read.append((number, fields))
    if not read:
        raise UsageError("error.eval_empty", file=name)
    return read


def _object(line: str, allowed: frozenset[str]) -> dict[str, Any]:
    try:
        fields = json.loads(line)
    except ValueError:
        raise _Bad("not_json") from None
    except RecursionError:
        # The json module recurses once per nested bracket: past the interpreter's limit (1,000)
        # it raises this instead of a ValueError. No labelled line nests more than twice.
        raise _Bad("too_deep") from None
    if not isinstance(fields, dict):
        raise _Bad("not_json")
    unknown = sorted(set(fields) - allowed)
    if unknown:
        raise _Bad("unknown_field", field=quoted(str(unknown[0])), fields=", ".join(sorted(allowed)))
    return fields


def _labelled(fields: dict[str, Any], where: str) -> Labelled:
    try:
        ref = parse_ref(_text(fields, "ref"))
    except _Bad as bad:
        raise _told(bad, where) from None
    except UsageError:
        raise _told(_Bad("bad_ref", ref=quoted(str(fields.get("ref")))), where) from None
    try:
        labelled = Labelled(
            ref, _verdict(fields), _minutes(fields), _texts(fields, "figures"), _texts(fields, "forbidden"), where
        )
        _text(fields, "note", required=False)
    except _Bad as bad:
        raise _told(bad, where) from None
    return labelled


def _verdict(fields: dict[str, Any]) -> Verdict:
    verdict = _text(fields, "verdict")
    for known in get_args(Verdict):
        if verdict == known:
            return known  # type: ignore[no-any-return]
    raise _Bad("bad_verdict", verdict=quoted(verdict))


def _minutes(fields: dict[str, Any]) -> int | None:
    minutes = fields.get("minutes")
    if minutes is not None and (type(minutes) is not int or not 1 <= minutes <= MAX_MINUTES):
        raise _Bad("bad_field", field="minutes")
    return minutes


def _not_stated(fields: dict[str, Any], must_say: tuple[str, ...]) -> bool:
    not_stated = fields.get("not_stated", False)
    if not isinstance(not_stated, bool):
        raise _Bad("bad_field", field="not_stated")
    if bool(must_say) == not_stated:
        # Either what it must say, or that the PR does not say: one of the two.
        raise _Bad("bad_field", field="must_say")
    return not_stated


def _asking(fields: dict[str, Any], where: str) -> Asking:
    try:
        question = _text(fields, "question")
        must_say = _texts(fields, "must_say")
        not_stated = _not_stated(fields, must_say)
        _text(fields, "note", required=False)
        raw = _text(fields, "ref")
    except _Bad as bad:
        raise _told(bad, where) from None
    try:
        ref = parse_ref(raw) if "#" in raw or "/pull/" in raw else None
        repo = ref.repo if ref is not None else parse_repo(raw)
    except UsageError:
        raise _told(_Bad("bad_ref", ref=quoted(raw)), where) from None
    return Asking(repo, ref, question, must_say, not_stated, where)


def _told(bad: _Bad, where: str) -> UsageError:
    file, _, line = where.rpartition(":")
    return UsageError(f"error.eval_{bad.kind}", file=file, line=int(line), **bad.values)


def _text(fields: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = fields.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise _Bad("bad_field", field=name)
    return value


def _texts(fields: dict[str, Any], name: str) -> tuple[str, ...]:
    value = fields.get(name, [])
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise _Bad("bad_field", field=name)
    return tuple(value)
