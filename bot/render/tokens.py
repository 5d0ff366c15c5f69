"""Tokens and their estimated cost in words: `prdigest doctor`'s lines (English, as every doctor
line is) and the App Home's line per channel (in the person's language, bot/words). Pure."""

from __future__ import annotations

from bot.core.usage import Period, Report, Spent
from bot.models import Language
from bot.words import text


def money(cost: float) -> str:
    """Dollars: cents for a sum of a dollar or more, more digits below (a day of a small model)."""
    return f"${cost:,.2f}" if cost >= 1 else f"${cost:.4f}"


def spent_text(spent: Spent) -> str:
    usage = spent.usage
    price = f"≈ {money(spent.cost)}" if spent.cost is not None else "no price configured"
    return f"{usage.total:,} (in {usage.prompt:,}, out {usage.completion:,}), {price}"


def period_text(period: Period) -> str:
    return f"today {spent_text(period.today)}; 7 days {spent_text(period.days)}"


def doctor_lines(report: Report, budget_key: str = "[defaults] daily_token_budget") -> list[tuple[bool, str]]:
    """(whether it is a warning, the line): the total, the budget (set by `budget_key`: the home
    workspace's, or `[slack] workspace_daily_token_budget` for another), each repository and payer."""
    lines: list[tuple[bool, str]] = [(False, f"total: {period_text(report.total())}")]
    if report.budget > 0:
        spent = report.spent_today
        over = spent >= report.budget
        state = "spent: no model calls until 00:00 UTC" if over else f"{spent * 100 // report.budget}% spent"
        lines.append((over, f"daily budget {report.budget:,} tokens: {spent:,} today, {state}"))
    else:
        lines.append((False, f"daily budget: none ({budget_key} = 0)"))
    lines.extend((False, f"repository {repo}: {period_text(report.repo(repo))}") for repo in report.repos())
    for payer in report.payers():
        kind = "channel" if payer[:1] in ("C", "G", "D") and payer.isupper() else "surface"
        lines.append((False, f"{kind} {payer}: {period_text(report.payer(payer))}"))
    return lines


def home_tokens(period: Period, language: Language) -> str:
    """A channel's tokens on the App Home: today and over the last 7 days, with their cost."""

    def one(spent: Spent) -> str:
        if spent.cost is None:
            return text(language, "home.tokens_no_price", tokens=f"{spent.usage.total:,}")
        return text(language, "home.tokens_cost", tokens=f"{spent.usage.total:,}", cost=money(spent.cost))

    return text(language, "home.tokens", today=one(period.today), week=one(period.days))


def home_repo_tokens(repo: str, period: Period, language: Language) -> str:
    return text(
        language,
        "home.tokens_repo",
        repo=repo,
        today=f"{period.today.usage.total:,}",
        week=f"{period.days.usage.total:,}",
    )
