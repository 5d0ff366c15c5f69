"""The suggested prompts of the Messages tab, in the person's language (pure).

What they suggest is decided from data (questions/suggestions.py hands over what
`prompt_words` turns into PromptIdeas); the words are bot/words' `dm.*`. Slack shows at most
four prompts, each a title and a message (assistant.threads.setSuggestedPrompts reference).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.models import Language
from bot.render.mrkdwn import clip
from bot.words import text

MAX_PROMPTS = 4
# Our own cap: a prompt's title is a button's label; a long path must not make it a paragraph.
MAX_PROMPT_TITLE_CHARS = 75
MAX_AREA_CHARS = 40


@dataclass(frozen=True)
class PromptIdeas:
    """What the person's channels suggest: whether any follows repositories, an area of their
    recent digests ("attention"), and a recent PR of theirs ("owner/repo#N")."""

    follows: bool
    area: str | None = None
    pr: str | None = None


@dataclass(frozen=True)
class Prompts:
    title: str
    prompts: tuple[dict[str, str], ...]


def suggested_prompts(ideas: PromptIdeas, language: Language) -> Prompts:
    """Prompts that fit: the day's digest, an area this week, a PR to explain; or, for someone in
    no channel that follows a repository, how to look one up."""
    if not ideas.follows:
        return Prompts(
            text(language, "dm.lookup_title"),
            (_prompt(language, "dm.prompt_lookup"),),
        )
    prompts = [_prompt(language, "dm.prompt_digest")]
    if ideas.area:
        prompts.append(_prompt(language, "dm.prompt_area", area=ideas.area))
    if ideas.pr:
        prompts.append(_prompt(language, "dm.prompt_explain", ref=ideas.pr))
    prompts.append(_prompt(language, "dm.prompt_lookup"))
    return Prompts(text(language, "dm.prompts_title"), tuple(prompts[:MAX_PROMPTS]))


def _prompt(language: Language, key: str, **values: str) -> dict[str, str]:
    title = clip(text(language, f"{key}_title", **values), MAX_PROMPT_TITLE_CHARS)
    return {"title": title, "message": text(language, key, **values)}


def area_of(paths: Iterable[str]) -> str | None:
    """The directory most of these changed paths are under, below the root they all share
    ("vllm/attention/x.py", "vllm/attention/y.py", "vllm/moe/z.py" → "attention"); None when
    the files share no directory worth naming."""
    dirs = [path.split("/")[:-1] for path in paths if "/" in path]
    if not dirs:
        return None
    shared = 0
    while all(len(parts) > shared + 1 for parts in dirs) and len({parts[shared] for parts in dirs}) == 1:
        shared += 1
    counts = Counter(parts[shared] for parts in dirs if len(parts) > shared)
    if not counts:
        return None
    area, _ = counts.most_common(1)[0]
    # Names only (GitHub's path characters): a path is the PR author's text, shown in a button.
    if not area or len(area) > MAX_AREA_CHARS or not all(ch.isalnum() or ch in "._-" for ch in area):
        return None
    return area


def prompt_words(
    follows: bool, paths: Sequence[str], pr: str | None, language: Language
) -> tuple[str, tuple[dict[str, str], ...]]:
    """bot/ports/wording.py's PromptWords: the prompts for what the person's channels suggest."""
    ideas = PromptIdeas(follows=True, area=area_of(paths), pr=pr) if follows else PromptIdeas(follows=False)
    prompts = suggested_prompts(ideas, language)
    return prompts.title, prompts.prompts
