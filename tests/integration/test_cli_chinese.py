"""`prdigest … --lang zh-CN` against the fakes on loopback: no English sentence of ours on stdout
or stderr, whatever the digest had to say (unreadable PRs, the model down, bad input)."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator

import pytest
from devkit.fakes.github import FakeGitHub

from bot.cli import waiting
from bot.cli.main import main
from tests.integration.conftest import REPO, day
from tests.unit.test_catalogue import english_in, json_readable

# Titles and paths of our own choosing: GitHub's text is not ours to translate.
PRS = [
    (201, "修复调度器的死锁", [("vllm/core/调度.py", 900, 40), ("uv.lock", 20, 20), ("image.png", 0, 0)]),
    (202, "更新 CI 工作流", [(".github/workflows/ci.yml", 3, 1)]),
    (203, "重写引擎", [("vllm/engine/引擎.py", 120, 5), ("tests/测试_引擎.py", 30, 0)]),
    (204, "回滚 #150", [("vllm/core/调度.py", 10, 60)]),
]


@pytest.fixture
def chinese_prs(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    for number, title, files in PRS:
        paths = [{"path": path, "additions": adds, "deletions": dels} for path, adds, dels in files]
        github.add_pr(REPO, number, title=title, merged_at=day(number - 200), files=paths)
    # One PR's files are gone by the time the digest reads them: its card rests on the title.
    github.fail_next(r"/pulls/203/files$", 404, body={"message": "Not Found"})
    return github


@pytest.fixture
def model_down(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A model endpoint on a port bound but not listening: every connection is refused."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed.getsockname()[1]}/v1")
        yield


@pytest.mark.usefixtures("chinese_prs", "model_down")
def test_a_chinese_digest_in_the_terminal_has_no_english_of_ours(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # stderr as a terminal (the one capsys captures): the progress bar and the waiting notice show too.
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(waiting, "NOTICE_AFTER_SECONDS", 0.0)
    assert main(["digest", REPO, "--date", "2026-08-05", "--lang", "zh-CN"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{REPO} · 2026-08-05 (UTC)\n合并 4 个 · ")
    assert "GitHub 未能返回：#203" in out and "个未能连上模型" in out
    assert "没有生成卡片" in err and "4/4 张卡片" in err
    assert english_in(out) == []
    assert english_in(err) == []


@pytest.mark.usefixtures("chinese_prs", "model_down")
def test_a_chinese_digest_as_json_has_no_english_of_ours(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["digest", REPO, "--date", "2026-08-05", "--lang", "zh-CN", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["language"] == "zh-CN" and len(data["notes"]) == 2
    assert data["note_kinds"] == ["note.unreadable", "note.model_degraded"]
    assert {item["card"]["verdict"] for item in data["items"]} <= {"read", "skim", "skip"}  # keys stay keys
    assert english_in(json_readable(data)) == []
    assert english_in(err) == []


@pytest.mark.usefixtures("chinese_prs")
@pytest.mark.parametrize(
    ("argv", "told"),
    [
        (["digest", "nobody/nothing", "--date", "2026-08-05"], "nobody/nothing：在 GitHub 上找不到"),
        (["digest", REPO, "--date", "2026-02-30"], "--date：'2026-02-30' 不是日期"),
        (["digest", REPO, "--since", "forever"], "--since：'forever' 不是有效的时长"),
        (["digest", "vllm"], "'vllm' 不是仓库名"),
        (["card", "vllm#1"], "'vllm#1' 不是 PR 引用"),
        (["card", f"{REPO}#999"], f"{REPO}#999：在 GitHub 上找不到"),
    ],
)
def test_a_mistake_is_told_in_chinese_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], told: str
) -> None:
    assert main([*argv, "--lang", "zh-CN"]) == 1
    err = capsys.readouterr().err
    (line,) = [line for line in err.splitlines() if line.startswith("prdigest: ") and told in line]
    assert english_in(line) == []
