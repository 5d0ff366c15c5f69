"""How `prdigest eval` reads its files (bot/eval/files.py): regular files only, line by line on "\n"
alone, each line capped and strict UTF-8, every refusal one error naming the file."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.errors import UsageError, quoted
from bot.eval.files import MAX_LINE_BYTES, jsonl_lines
from bot.eval.labels import parse_labels, parse_questions

GOOD = '{"ref": "a/b#7", "verdict": "read"}'
GOOD_QUESTION = '{"ref": "a/b#7", "question": "how fast?", "must_say": ["2x"]}'


def _refusal(path: str) -> str:
    """What reading `path` says, from a thread: a read that blocks fails the test, not the run."""
    said: list[str] = []

    def read() -> None:
        try:
            list(jsonl_lines(path))
        except UsageError as exc:
            said.append(str(exc))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), f"reading {path} blocked"
    (line,) = said
    return line


def test_a_fifo_a_device_and_a_directory_are_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "labels.jsonl"
    os.mkfifo(fifo)  # nobody writes to it: opening it to read would wait forever
    for path in (str(fifo), "/dev/zero", str(tmp_path)):
        assert _refusal(path) == f"{quoted(path)} is not a regular file (a FIFO, a device or a directory is not read)"
    missing = str(tmp_path / "none.jsonl")
    assert _refusal(missing) == f"cannot read {quoted(missing)}"


def test_a_line_past_the_cap_is_refused_with_the_cap_and_one_at_it_is_read(tmp_path: Path) -> None:
    at_cap = GOOD[:-1] + ', "note": "' + "x" * (MAX_LINE_BYTES - len(GOOD) - 12) + '"}'
    assert len(at_cap.encode()) == MAX_LINE_BYTES
    path = tmp_path / "x.jsonl"
    path.write_bytes(f"{at_cap}\n{at_cap}x\n".encode())
    lines = jsonl_lines(str(path))
    assert next(lines) == at_cap
    with pytest.raises(UsageError) as raised:
        next(lines)
    assert str(raised.value) == (f"{path} line 2: longer than 65,536 bytes; a labelled line is one JSON object")


def test_a_line_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(GOOD.encode() + b"\n\n" + b'{"ref": "a/b#8", "note": "\xff"}\n')
    with pytest.raises(UsageError) as raised:
        parse_labels(jsonl_lines(str(path)), str(path))
    assert str(raised.value) == f"{path} line 3: not UTF-8 text"


# Each is a line break to str.splitlines, and none is one in JSON Lines: inside a JSON string
# they are text (JSON escapes only what is below U+0020, and only when it is written in a string).
SEPARATORS = ["\u2028", "\u2029", "\x85", "\x1c", "\x1d", "\x1e"]


@pytest.mark.parametrize("separator", SEPARATORS)
def test_a_valid_line_holding_a_separator_splitlines_breaks_on_is_read_whole(tmp_path: Path, separator: str) -> None:
    path = tmp_path / "x.jsonl"
    label = {"ref": "a/b#7", "verdict": "read", "note": f"one{separator}two"}
    question = {"ref": "a/b#7", "question": f"how{separator}fast?", "must_say": ["2x"]}
    path.write_text(json.dumps(label, ensure_ascii=False) + "\n", encoding="utf-8")
    (labelled,) = parse_labels(jsonl_lines(str(path)), str(path))
    assert labelled.where == f"{path}:1"
    path.write_text(json.dumps(question, ensure_ascii=False) + "\n", encoding="utf-8")
    (asking,) = parse_questions(jsonl_lines(str(path)), str(path))
    assert asking.question == f"how{separator}fast?"


@pytest.mark.parametrize(("parse", "good"), [(parse_labels, GOOD), (parse_questions, GOOD_QUESTION)])
def test_json_nested_past_the_readers_depth_is_one_error_naming_the_line(parse: Any, good: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse([good, "[" * 100_000], "x.jsonl")
    assert str(raised.value) == "x.jsonl line 2: JSON nested too deeply; a labelled line is one flat JSON object"


def test_lines_are_read_only_up_to_the_first_bad_one() -> None:
    read: list[int] = []

    def lines() -> Iterator[str]:
        for number in range(1, 1_000_000):
            read.append(number)
            yield "not json" if number == 2 else GOOD

    with pytest.raises(UsageError, match=r"x\.jsonl line 2: not a JSON object"):
        parse_labels(lines(), "x.jsonl")
    assert read == [1, 2]
