"""Words as people type them (pure): one form of a word for its others, and typos of one letter.

"decoding" and "decode" are one word to a question about PRs; "speculatvie" is "speculative".
Both rules are small on purpose: a question's topic is a few words, matched against a PR's.
"""

from __future__ import annotations


def stem(word: str) -> str:
    """The word without a plural or verb ending ("fixes", "fixed" → "fix"; "decoding" → "decod")."""
    for suffix in ("ings", "ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one letter added, dropped, changed or two swapped."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
