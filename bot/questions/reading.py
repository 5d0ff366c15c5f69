"""The one reader of questions (pure): what people type, in English and Chinese, turned into a
Reading (models/reading.py) — the days (questions/dates.py), the repository, topic words and paths,
a person, a verdict, a relation to an earlier PR, a count, the biggest PR, the PR meant by the
words of its title, the PRs named outright.

Every surface reads a question here. Whether the reading is answered across days, about one
PR or about a digest is the caller's (`Reading.across`); who may be told what, the Audience's.
Every pattern runs in time linear in the text (no nested repetition, bounded gaps), as in
questions.py: anyone in Slack can send it.
"""

from __future__ import annotations

import re
from datetime import date

from bot.core.refs import pr_number
from bot.core.release_words import WHICH_RELEASE, release_said
from bot.core.strings.patterns import lazy
from bot.core.strings.spelling import one_edit
from bot.models import DayProblem, PRRef, Reading, Verdict
from bot.models.reading import Intent, Relation
from bot.questions.dates import days_and_rest
from bot.questions.which_pr import find_refs, words

# Topic words and paths kept of one question: a question names a few; a message of thousands of
# words is not a topic, and every term is shown back in the reply's first line.
MAX_TERMS = 8
# What of a message is read for days, people and topics: more than anyone types as a question
# (Slack allows 40,000 characters), so that reading one costs the same whatever its length, beside
# every acknowledgement the process owes (the model, if asked, still sees the whole question).
MAX_READ_CHARS = 2_000
# The longest topic word kept ("fused_kimi_k3_mla_key_concat_kv_cache_kernel" is 44).
MAX_WORD_CHARS = 60
MAX_PATH_CHARS = 200
# Stands for "no repository named" when the question's references are read (never a real one).
BARE = "_/_"

# "did anything revert #N", "was #N reverted", "有没有回滚 #N", "#N 被撤销了吗".
_REVERT = lazy(r"\brevert(?:s|ed|ing)?\b|回滚|撤销|撤回|还原", re.IGNORECASE)
_FOLLOW_UP = lazy(r"\bfollow[- ]?ups?\b|后续", re.IGNORECASE)
# The owner/repo is tried only where a run of name characters begins (tried at each of its
# letters, "x" * 40000 is 40,000 scans to the end with the GIL held: questions.py's rule).
_REF_N = r"(?P<r{i}>(?<![\w.-])[\w.-]++/[\w.-]++)?#(?P<n{i}>\d{{1,10}})"
_LINK_TO = lazy(
    r"\b(?:revert(?:s|ed|ing)?|follow[- ]?ups?(?:\s+(?:on|to|of|for))?)\s+(?:of\s+)?(?:pr\s*)?"
    + _REF_N.format(i=1)
    + r"|(?:回滚|撤销|撤回|还原|跟进)了?\s*"
    + _REF_N.format(i=2)
    + r"|"
    + _REF_N.format(i=3)
    + r"\s*(?:(?:has\s+|have\s+)?(?:been|was|get|got|being)\s+)?(?:reverted|followed up)"
    + r"|"
    + _REF_N.format(i=4)
    + r"\s*(?:是否|有没有)?已?被(?:回滚|撤销|撤回|还原|跟进)",
    re.IGNORECASE,
)
# A question that asks for PRs, not about one: "what merged", "is there a PR about", "anything
# on", "any … changes", "有没有", "相关的".
_LISTING = lazy(
    r"\b(?:merged?|landed|changed|changes|chnages|which|what|any|any\w{1,6}|prs|list|show|stuff|updates|news"
    r"|is\s+there|are\s+there|was\s+there"
    r"|were\s+there|did\s+we\s+get|got)\b|合并|哪些|什么|有没有|有无|改动|变化|列出|相关|有关|关于|涉及|的\s?(?:PR|pr)",
    re.IGNORECASE,
)
# A question after one PR by what it does, naming no number: "find the PR that bumps torch",
# "which PR added FlashKDA?", "is there a PR about lamport", "哪个 PR 升级了 torch". Not "PRs".
_SEEKING = lazy(
    r"\b(?:find|search\s{1,3}for|look(?:ing)?\s{1,3}for|where(?:'s|\s{1,3}is)|which|what)\s{1,3}(?:is\s{1,3})?"
    r"(?:(?:the|a|an|that)\s{1,3})?(?:pr|pull\s{1,3}request)\b(?!s)"
    r"|\b(?:the|a|an)\s{1,3}(?:pr|pull\s{1,3}request)\s{1,3}(?:that|which|where|for|about|with)\b"
    r"|哪个\s?(?:PR|pr)|(?:PR|pr)\s?是哪个|找.{0,8}?(?:PR|pr)",
    re.IGNORECASE,
)
_PLURAL = lazy(r"\b(?:prs|pull\s{1,3}requests|changes|ones|top\s{1,3}\d{1,2})\b|几个|哪些", re.IGNORECASE)
_HERE = lazy(
    r"\b(?:in\s{1,3}here|here|these|this\s{1,3}one|this\s{1,3}digest|the\s{1,3}digest|this\s{1,3}thread)\b"
    r"|这里|这些|这期|本期|这个摘要|这份",
    re.IGNORECASE,
)
_WHY = lazy(r"\bwhy\b|为什么", re.IGNORECASE)
_COUNT = lazy(r"\bhow\s{1,3}many\b|\bnumber\s{1,3}of\s{1,3}prs\b|\bcount\b|多少|几个", re.IGNORECASE)
_BIGGEST = lazy(
    r"\b(?:biggest|largest|hugest|most\s{1,3}lines|most\s{1,3}changes)\b|最大|最多改动|改动最多|改得最多", re.IGNORECASE
)
# "what should I read carefully", "must-reads", "值得细读" (verdict read); "skim" / "skip".
_VERDICT_READ = lazy(
    r"\b(?:read\s{1,3}carefully|careful\s{1,3}read|must[- ]reads?"
    r"|worth\s{1,3}(?:a\s{1,3})?(?:careful\s{1,3})?read(?:ing)?"
    r"|should\s{1,3}i\s{1,3}read|need\s{1,3}to\s{1,3}read|important\s{1,3}ones?)\b|细读|必读|仔细看|值得.{0,3}读|重要",
    re.IGNORECASE,
)
_VERDICT_SKIM = lazy(r"\b(?:to\s{1,3}skim|skimm?able|skim)\b|略读|扫一眼", re.IGNORECASE)
# "the lamport PR", "the DeepGEMM fix", "that XPU one", "那个 lamport 的 PR".
_ONE = lazy(
    r"\b(?:the|that|this)\s{1,3}(?P<words>[\w.+/-]{2,40}(?:\s{1,3}[\w.+/-]{2,40}){0,2}?)\s{1,3}"
    r"(?:pr|pull\s{1,3}request|fix|change|patch|one|commit)\b(?!s)"
    r"|(?:那个|这个)\s?(?P<zh_words>[\w.+/-]{2,40}?)\s?(?:的)?\s?(?:PR|pr|修复|改动|提交)",
    re.IGNORECASE,
)
# "tilelang 那个 PR 是干嘛的", "MiniJinja 升级的那个 PR", "bitsandbytes 迁移的 PR 讲一下".
_ONE_ZH = lazy(
    r"(?:那个|这个)[^\n]{0,12}?(?:PR|pr|修复|改动|提交|优化)|(?:PR|pr)\s{0,2}(?:讲一下|讲讲|是干嘛|介绍一下|改了啥|改了什么|做了什么)"
    r"|那个\S{0,12}?(?:回滚|撤销)"
)
_ZH_MANY = lazy(r"哪些|几个|多少|所有|都")
# People: "what did Nick Hill merge", "PRs by @nhill", "Nick Hill's PRs", "nhill 合并了什么".
# A login, or a name of up to three words ("Nick Hill", "nick hill"); words after it that are
# no name ("PRs by nick hill this week") are dropped in `_author`. Never what follows a "/": in
# "acme/widgets 这周合并了哪些" that is a repository's (or a path's) name, not a person.
# Tried only where a run of name characters begins, and never giving characters back (possessive):
# tried at each letter of "x" * 40000, it cost 0.3 s with the GIL held.
_NAME = r"(?<![\w./@-])@?[A-Za-z][\w.-]{0,38}+(?:\s{1,2}[A-Za-z][\w.-]{0,38}+){0,2}"
_AUTHOR = lazy(
    rf"\bwhat\s{{1,3}}(?:did|has|have)\s{{1,3}}(?P<a1>{_NAME})\s{{1,3}}(?:merge|merged|land|landed|ship|shipped|do|done|push|pushed|get\s{{1,3}}in)\b"
    rf"|\b(?:prs?|pull\s{{1,3}}requests?|changes|commits|work|anything|something|stuff)\s{{1,3}}(?:by|from|of)\s{{1,3}}(?P<a2>{_NAME})"
    rf"|\bby\s{{1,3}}(?P<a3>@[\w.-]{{1,39}})"
    rf"|(?P<a4>{_NAME})'s\s{{1,3}}(?:prs?|pull\s{{1,3}}requests?|changes|commits|work)\b"
    rf"|(?P<a5>{_NAME})\s{{0,2}}(?:最近|这周|本周|昨天|今天)?\s{{0,2}}(?:合并|提交)了?(?:什么|哪些|几个)"
    rf"|(?P<a6>{_NAME})\s{{0,2}}(?:提交的|合并的)\s{{0,2}}(?:PR|pr|改动)",
    re.IGNORECASE,
)
# What an author pattern may catch that is no person: "what did we merge", "today's PRs".
_NOT_A_PERSON = frozenset(
    [
        "we",
        "i",
        "you",
        "they",
        "it",
        "anyone",
        "anybody",
        "everyone",
        "someone",
        "the",
        "this",
        "that",
        "these",
        "those",
        "today",
        "yesterday",
        "tomorrow",
        "week",
        "month",
        "day",
        "last",
        "past",
        "next",
        "any",
        "all",
        "my",
        "our",
        "your",
        "their",
        "his",
        "her",
        "its",
        "vllm",
        "repo",
        "repository",
        "which",
        "what",
        "who",
        "how",
        "when",
        "where",
        "why",
        "whose",
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ]
)
# A path-like term: two or more parts joined by "/"; or a file or folder named by its extension
# or a leading dot ("Dockerfile.cpu", ".buildkite", "setup.py"), never a version ("v0.12", "3.5x").
_PATH = lazy(r"(?<![\w./-])[\w.-]++(?:/[\w.-]++)++/?")
_FILE = lazy(r"(?<![\w./-])(?:\.[A-Za-z][\w-]{1,40}|[A-Za-z][\w-]{0,40}\.(?:[A-Za-z]{1,8}))(?![\w./-])")
# Words of the question that say when, how or what is wanted, not what about: never a topic.
_NOT_TOPIC = frozenset(
    [
        "merged",
        "merge",
        "merges",
        "merging",
        "today",
        "today's",
        "yesterday",
        "yesterday's",
        "week",
        "week's",
        "weeks",
        "last",
        "past",
        "previous",
        "days",
        "day",
        "since",
        "until",
        "till",
        "before",
        "after",
        "between",
        "from",
        "touch",
        "touched",
        "touches",
        "touching",
        "mention",
        "mentions",
        "anything",
        "something",
        "everything",
        "revert",
        "reverts",
        "reverted",
        "reverting",
        "follow",
        "follow-up",
        "follow-ups",
        "up",
        "did",
        "has",
        "been",
        "get",
        "got",
        "land",
        "landed",
        "went",
        "go",
        "in",
        "of",
        "on",
        "to",
        "by",
        "at",
        "or",
        "if",
        "so",
        "we",
        "i",
        "my",
        "an",
        "a",
        "the",
        "and",
        "is",
        "are",
        "was",
        "were",
        "there",
        "repo",
        "repository",
        "re",
        "pr",
        "prs",
        "pull",
        "request",
        "requests",
        "any",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "how",
        "many",
        "much",
        "number",
        "count",
        "biggest",
        "largest",
        "hugest",
        "most",
        "lines",
        "show",
        "list",
        "tell",
        "me",
        "about",
        "please",
        "pls",
        "plz",
        "hey",
        "hi",
        "bot",
        "thanks",
        "thx",
        "should",
        "read",
        "carefully",
        "careful",
        "worth",
        "must",
        "must-read",
        "must-reads",
        "need",
        "important",
        "skim",
        "skip",
        "one",
        "ones",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "do",
        "does",
        "done",
        "change",
        "changes",
        "changed",
        "see",
        "look",
        "looking",
        "give",
        "find",
        "new",
        "recent",
        "recently",
        "month",
        "morning",
        "tonight",
        "around",
        "related",
        "regarding",
        "concerning",
        "kind",
        "sort",
        "can",
        "could",
        "would",
        "you",
        "anyone",
        "merged?",
        "prs?",
        "happen",
        "happened",
        "ship",
        "shipped",
        "push",
        "pushed",
        "work",
    ]
)
# Chinese phrases that only frame the question (the topic is what is left). Longest first.
_ZH_FRAME = lazy(
    r"合并了?什么|合并了?哪些|有哪些|有什么|哪些|什么|合并|涉及|关于|有关|相关|以来|开始|有没有|是否|变化|改动|改了|了吗|吗|呢"
    r"|的|了|和|与|请问|一下|帮我|看看|看下|列出|最大|多少|几个|细读|必读|值得|仔细|那个|这个|提交|是干嘛|干嘛|讲讲"
    r"|介绍|改了啥|做了啥|啥|是哪个|哪个|后来|被|里面|里|这里|这些|目录|文件夹|文件|下面|是"
)
# "gemma 4", "qwen 3": a name and its version, as titles and files also write them ("gemma4").
_NAME_NUMBER = lazy(r"\b([A-Za-z]{3,20})\s(\d{1,2}(?:\.\d)?)\b")
# Words that mean "a fix": a question about fixes matches PRs whose title says fix or bug.
_FIX_WORDS = frozenset({"fix", "fixes", "fixed", "fixing", "bug", "bugs", "bugfix", "bugfixes", "修复", "bug修复"})


def read_question(
    question: str,
    today: date,
    known_repos: frozenset[str],
    named: frozenset[str] | None = None,
    preferred: str | None = None,
) -> Reading:
    """What `question` asks, with days relative to `today` (the asker's).

    `known_repos` are the repositories (lower case) a term "owner/name" may be: among them it is
    the repository asked about, else a path. A bare name ("vllm") is the repository of `named`
    (default: every known one) whose name it is, `preferred` (the channel's own) first.
    """
    question = question[:MAX_READ_CHARS]
    # A release first: "0.12.0" is a version, not a day, and "release" no topic.
    release, unreleased = release_said(question)
    days, rest = days_and_rest(unreleased, today)
    target, relation, repo = _asked_link(question)
    if target is None and relation is None:
        # "which PRs were reverted this week?", "最近 3 天有哪些后续 PR": the PRs in that relation.
        relation = "revert" if _REVERT.search(question) else "follow_up" if _FOLLOW_UP.search(question) else None
    refs = tuple(ref for ref in refs_said(question, BARE) if target is None or ref.number != target)
    if release == WHICH_RELEASE and not refs:
        release = None  # "what was released yesterday": days, and no PR to place in a release
    author = _author(rest)  # days blanked out: "the PR from Aug 4" names no person "Aug"
    intent: Intent = "count" if _COUNT.search(question) else "biggest" if _BIGGEST.search(question) else "list"
    if (
        intent == "list"
        and not refs
        and (_ONE.search(question) or (_ONE_ZH.search(question) and not _ZH_MANY.search(question)))
    ):
        intent = "one"
    verdict: Verdict | None = (
        "read" if _VERDICT_READ.search(question) else "skim" if _VERDICT_SKIM.search(question) else None
    )
    paths: list[str] = []
    # Paths are read once the days are blanked out: "8/13" is a day, not a path.
    for term in _PATH.findall(rest) + _FILE.findall(rest):
        if term.lower() in known_repos and repo is None:
            repo = term
        elif term.lower() not in known_repos and term != repo and _a_path(term):
            paths.append(term.rstrip("/"))
    named = known_repos if named is None else named
    by_name = {name.rpartition("/")[2]: name for name in sorted(named)}
    if preferred is not None and preferred.lower() in named:
        by_name[preferred.lower().rpartition("/")[2]] = preferred.lower()
    rest = _FILE.sub(" ", _PATH.sub(" ", rest))
    for how in (_REVERT, _FOLLOW_UP, _COUNT, _BIGGEST, _VERDICT_READ, _VERDICT_SKIM):
        rest = how.sub(" ", rest)
    if author is not None:
        rest = rest.replace(author, " ")
    topic: list[str] = [f"{name}{number}".lower() for name, number in _NAME_NUMBER.findall(rest)]
    # The digest's stop words, less those that say a PR fixes something: "fixes" asks for fixes.
    said_words = words(_ZH_FRAME.sub(" ", rest)) | {
        word for word in _FIX_WORDS if re.search(rf"\b{word}\b", rest, re.I)
    }
    for said in sorted(said_words):
        word = said.removesuffix("'s")
        if len(word) > MAX_WORD_CHARS:
            continue  # no word anyone types: a run of 40,000 "x"s is not a topic to say back
        if _framing(word) or word.isdigit() or word.startswith("#") or (author and word == author.lower()):
            continue
        if repo is None and word in by_name:
            repo = by_name[word]
            continue
        topic.append("fix" if word in _FIX_WORDS else word)
    return Reading(
        span=days if not isinstance(days, DayProblem) else None,
        problem=days if isinstance(days, DayProblem) else None,
        repo=repo,
        topic=tuple(dict.fromkeys(topic))[:MAX_TERMS],
        paths=tuple(dict.fromkeys(paths))[:MAX_TERMS],
        author=author,
        verdict=verdict,
        target=target,
        relation=relation,
        intent=intent,
        named=tuple(ref for ref in refs if ref.repo != BARE) + tuple(ref for ref in refs if ref.repo == BARE),
        listing=_LISTING.search(question) is not None,
        seeking=_SEEKING.search(question) is not None,
        plural=_PLURAL.search(question) is not None,
        here=_HERE.search(question) is not None,
        release=release,
    )


def _a_path(term: str) -> bool:
    """A path anyone would type, said back in the reply: no link, no reference, not 40,000 long."""
    return not term.startswith("http") and "#" not in term and len(term) <= MAX_PATH_CHARS


def _framing(word: str) -> bool:
    """Whether a word only frames the question ("anything", "changes"), typed right or one letter
    off ("anythign", "chnages"): never a topic."""
    if word in _NOT_TOPIC or word.startswith("anyth"):
        return True
    return len(word) >= 6 and any(len(other) >= 6 and one_edit(word, other) for other in _NOT_TOPIC)


def _author(question: str) -> str | None:
    """The person a question asks about, as typed ("Nick Hill", "@nhill"), or None."""
    for match in _AUTHOR.finditer(question):
        said = next(value for value in match.groups() if value).strip().removeprefix("@")
        first, *more = said.split()
        if first.lower() in _NOT_A_PERSON or first.lower() in _NOT_TOPIC:
            continue
        names = [first]
        for word in more:  # "nhill about xpu": the name ends at the first word that is no name
            if word.lower() in _NOT_A_PERSON or word.lower() in _NOT_TOPIC:
                break
            names.append(word)
        return " ".join(names)
    return None


def _asked_link(question: str) -> tuple[int | None, Relation | None, str | None]:
    """For "did anything revert #N?" / "was #N reverted?" / "#N 被回滚了吗": N, the link asked
    about and the repository named with it. Not "why was #N reverted?" (about #N itself) nor
    "what does #N revert?" (about what #N reverted)."""
    if _WHY.search(question):
        return None, None, None
    match = _LINK_TO.search(question)
    if match is None:
        return None, None, None
    i = next(i for i in "1234" if match.group(f"n{i}"))
    number = pr_number(match.group(f"n{i}"))
    if number is None:
        return None, None, None
    repo = match.group(f"r{i}")
    said = match.group(0).lower()
    relation: Relation = "follow_up" if "follow" in said or "跟进" in said or "后续" in said else "revert"
    return number, relation, repo


# "PR 52079", "pr#12", "pull 123": a PR named without its "#" first.
_PR_SAID = lazy(r"\b(?:PR|pr|Pr|pull)\s?#?(\d{2,10}+)\b")


def refs_said(question: str, default_repo: str | None) -> list[PRRef]:
    """Every PR a question names: as references (`#N`, `owner/repo#N`, links; questions.py),
    and as people write them ("PR 52079"), for `default_repo`."""
    found = find_refs(question, default_repo)
    if default_repo is not None:
        for match in _PR_SAID.finditer(question):
            number = pr_number(match.group(1))
            if number is not None and PRRef(default_repo, number) not in found:
                found.append(PRRef(default_repo, number))
    return found
