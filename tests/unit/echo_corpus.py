"""Two corpora for the prompt-echo filter (llm/echoes.py): our prompts recited in disguise, and
genuine answers that must pass untouched. Generated from fixed seeds, so every run is the same."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from devkit.fakes import dataset

from bot.core.prompting.prompts import answer_prompt, card_prompt

FILLERS = [
    "banana",
    "really",
    "um",
    "okay",
    "so",
    "basically",
    "PR",
    "code",
    "the",
    "indeed",
    "xyzzy",
    "kernel",
    "well",
]
LEET = {"e": "3", "a": "4", "o": "0", "i": "1", "l": "1", "s": "5", "t": "7"}
EXCERPT_WORDS = (25, 40, 60, None)  # None: the whole prompt
FILLER_EVERY = (1, 2, 3, 4, 5)


def prompts() -> list[str]:
    """Our system prompts as the model receives them, in both languages."""
    found = []
    for language in ("en", "zh-CN"):
        found += [card_prompt("DATA", language).system, answer_prompt("DATA", language).system]  # type: ignore[arg-type]
    return found


def excerpt(rng: random.Random, text: str, words: int | None) -> str:
    split = text.split()
    if words is None or words >= len(split):
        return " ".join(split)
    start = rng.randrange(len(split) - words)
    return " ".join(split[start : start + words])


def with_fillers(rng: random.Random, text: str, every: int) -> str:
    """A filler word after every `every` words."""
    out = []
    for number, word in enumerate(text.split(), 1):
        out.append(word)
        if number % every == 0:
            out.append(rng.choice(FILLERS))
    return " ".join(out)


def leet(rng: random.Random, text: str, share: float = 1.0) -> str:
    return "".join(LEET[char.lower()] if char.lower() in LEET and rng.random() < share else char for char in text)


def punctuated(rng: random.Random, text: str) -> str:
    marks = [",", ";", "...", " -", "!", "?", ":", " /", "*", "~", " |"]
    return " ".join(word + (rng.choice(marks) if rng.random() < 0.6 else "") for word in text.split())


def spelled_out(rng: random.Random, text: str) -> str:
    """Some words written letter by letter with dots: "u.n.t.r.u.s.t.e.d"."""
    return " ".join(".".join(word) if len(word) > 3 and rng.random() < 0.3 else word for word in text.split())


def hyphenated(rng: random.Random, text: str) -> str:
    return re.sub(" ", lambda _: "-" if rng.random() < 0.5 else " ", text)


def random_case(rng: random.Random, text: str) -> str:
    return "".join(char.upper() if rng.random() < 0.5 else char.lower() for char in text)


def in_lines(text: str, words: int) -> str:
    split = text.split()
    return "\n".join(" ".join(split[start : start + words]) for start in range(0, len(split), words))


def evasions(seed: int = 0, repeats: int = 3) -> list[tuple[str, str]]:
    """(kind, text): excerpts of our prompts with one or several disguises."""
    rng = random.Random(seed)
    disguises: dict[str, Callable[..., str]] = {
        "plain": lambda text: text,
        "leet": lambda text: leet(rng, text),
        "leet-half": lambda text: leet(rng, text, 0.5),
        "punctuation": lambda text: punctuated(rng, text),
        "spelled-out": lambda text: spelled_out(rng, text),
        "hyphens": lambda text: hyphenated(rng, text),
        "case": lambda text: random_case(rng, text),
        "upper": str.upper,
        "one-line-each-3-words": lambda text: in_lines(text, 3),
    }
    for every in FILLER_EVERY:
        disguises[f"filler-every-{every}"] = lambda text, every=every: with_fillers(rng, text, every)
        disguises[f"mixed-every-{every}"] = lambda text, every=every: random_case(
            rng, punctuated(rng, leet(rng, with_fillers(rng, text, every), 0.5))
        )
        disguises[f"mixed-lines-every-{every}"] = lambda text, every=every: in_lines(
            leet(rng, with_fillers(rng, text, every)), 4
        )
    found = []
    for prompt in prompts():
        for words in EXCERPT_WORDS:
            for _ in range(repeats):
                base = excerpt(rng, prompt, words)
                found += [(f"{kind}/{words or 'all'}", disguise(base)) for kind, disguise in disguises.items()]
    return found


# Answers in the style the answer prompt asks for, some sharing words with it on purpose.
ANSWERS = [
    "The PR does not say.",
    "The PR does not say. It only changes `vllm/config.py` and the tests in `tests/test_config.py`.",
    "The PR does not say whether this was benchmarked; the description shows no figures.",
    "The PR does not state a figure for the speed-up, so I can't give one.",
    "The data does not show why the old path was removed, only that `vllm/worker/model_runner.py` no longer calls it.",
    "It moves routing into `vllm/moe/router.py` and keeps the old entry point as a thin wrapper.",
    "Yes. The fallback is in `vllm/attention/backends/flash_attn.py`: when FlashAttention is not installed, it "
    "uses the xformers backend instead.",
    "The scheduler now preempts the request with the lowest priority first instead of the newest one. See "
    "`vllm/core/scheduler.py`.",
    "Tests: `tests/v1/test_scheduler.py` adds two cases for preemption; there is no test for the new metric.",
    "- `vllm/config.py`: adds `max_num_batched_tokens` validation\n- `vllm/engine/arg_utils.py`: the new flag "
    "`--max-num-seqs`\n- tests: none",
    "It fixes a race in the KV cache allocator: two workers could free the same block. The fix takes the lock "
    "before reading the free list.",
    "According to the description, the change is needed for the Kimi-K3 model, whose attention layers use packed rows.",
    "The PR only touches CI: `.github/workflows/lint.yml` pins ruff to 0.6.9.",
    "The description says this halves memory use for long prompts, but no measurement is shown in the PR data.",
    "I can't tell from the PR whether the old behaviour is still reachable; the diff for "
    "`vllm/entrypoints/openai/serving_chat.py` is not shown.",
    "The reviewer asked for a test of the error path, and the author added `test_invalid_tool_call` in "
    "`tests/entrypoints/test_tools.py`.",
    "It is a revert of #12345 because the new kernel produced wrong results on AMD GPUs.",
    "Both. The first commit adds the config option and the second wires it through `vllm/v1/engine/core.py`.",
    "Only the files shown: `csrc/attention/attention_kernels.cu` and `vllm/_custom_ops.py`. The other 12 files "
    "were not shown, so I don't know what they change.",
    "The new flag is off by default, so existing deployments are not affected unless they pass "
    "`--enable-chunked-prefill`.",
    "None of today's PRs mention billing in their titles or files.",
    "The headline says it is faster because the PR replaces a Python loop with a single fused kernel call.",
    "There are no tests for the new path, and the PR does not say how it was validated.",
    "This PR adds a short section to the docs on how to run the server behind a proxy; no code changes.",
    "The PR changes the default value of `gpu_memory_utilization` from 0.9 to 0.92 in `vllm/config.py`.",
    "It adds support for reading LoRA adapters from S3; the loader is in `vllm/lora/utils.py`, and credentials "
    "come from the usual AWS environment variables.",
    "Not from what is shown. The description mentions a follow-up PR for the ROCm path, but gives no number.",
    "It is part of a series: this PR moves the code, and the next one is meant to change the behaviour.",
    "The data shows two review comments, both about naming; the author renamed `do_step` to `execute_step`.",
    "The main risk is the changed lock order in `vllm/distributed/parallel_state.py`: a deadlock is possible if "
    "another caller takes the locks in the old order.",
    "You can ignore it unless you maintain the TPU backend: the change is limited to `vllm/worker/tpu_worker.py`.",
    "Everything in this PR is behind the `VLLM_USE_V1` switch, so nothing changes unless you turn it on.",
    "It rejects requests whose `max_tokens` is larger than the model's context instead of truncating them, and "
    "returns a 400 with a message that names the limit.",
    "The verdict is skim: one idea (a cached lookup table) worth a few minutes.",
    "Between the two versions, only the error message changed; the data does not show any other difference.",
    "The author says they tested it on 8 H100 GPUs with tensor parallel size 8, but the PR includes no logs.",
    "The PR does not say what the other files contain; they were not shown in the data.",
    "It adds a check that every number in the headline appears in the PR description, and drops the card's "
    "points that do not.",
    "The change makes the bot ignore instructions written inside pull request descriptions; the tests cover a "
    "body that pretends to come from the operator.",
    "Yes: the new prompt asks the model for JSON with a headline, a verdict and a few short points, and the "
    "parser rejects anything else.",
    "The verdict is read: there is a design worth studying (a two-level cache) and a debugging story about a "
    "race in the allocator.",
    "Skip: it is a version bump of the CUDA base image, nothing else.",
    "Engineers who follow the scheduler code should read it: the root cause was found by bisecting the "
    "preemption order.",
    "This PR adds links to the docs and removes the @-mentions from the release notes template.",
    "The author notes that the fallback is used when the backend is not installed, and that it does not apply "
    "to CPUs without AVX-512.",
    "No tests were added; the permission change in `.github/workflows/release.yml` (contents: write) is worth "
    "a careful look.",
    "The answer prompt changed: answers are now limited to 150 words and cite files by their full path.",
    "Between them, the two PRs move the data loading into a worker thread and add a timeout of 30 s.",
    "Earlier turns of this thread asked about #123; this answer is about #456, which the PR links as a follow-up.",
    "Write access is needed for the new workflow step, which is a security concern the PR does not discuss.",
    "PR 中没有说明。",
    "它把路由逻辑移到了 `vllm/moe/router.py`，旧的入口保留为一个简单的包装。",
    "这个 PR 只修改了 CI 配置：`.github/workflows/lint.yml`。",
    "描述中说这样可以减少长提示的显存占用，但 PR 中没有给出测量数据。",
]
TEMPLATES = [
    "PR #{number} ({title}) changes {count} files, mostly `{path}`.",
    "#{number} touches `{path}`; the description does not say why.",
    "The PR does not say. From the diff, `{path}` gains {added} lines and loses {removed}.",
    "{title}: the main change is in `{path}`, and the tests are in `{test}`.",
    "It is about {title}. The files are `{path}` and `{last}`.",
    "Read `{path}` first: that is where the change ({title}) happens.",
    "The PR does not state a figure. It changes `{path}` ({added} additions, {removed} deletions).",
]


def genuine(seed: int = 1) -> list[str]:
    """Answers and PR titles as they are: the hand-written answers, the data set's titles, answers
    about its PRs, and longer answers made of several paragraphs."""
    rng = random.Random(seed)
    found = list(ANSWERS)
    found += ["\n\n".join(ANSWERS[start : start + 4]) for start in range(0, len(ANSWERS) - 4, 3)]
    rows = dataset.load_rows() if dataset.DATASET_PATH.exists() else []
    for row in rows:
        files = row["files"] or [{"path": "README.md"}]
        tests = [file["path"] for file in files if "test" in file["path"]] or ["tests/test_core.py"]
        values = {
            "number": row["number"],
            "title": row["title"],
            "count": len(files),
            "path": files[0]["path"],
            "last": files[-1]["path"],
            "added": row["additions"],
            "removed": row["deletions"],
            "test": tests[0],
        }
        found += [row["title"], rng.choice(TEMPLATES).format(**values)]
    return found
