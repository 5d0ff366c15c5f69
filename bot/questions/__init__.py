"""Questions about PRs: which PR is meant, the reading of what is asked, and the answer in a
thread, a DM or the terminal; questions across days (questions/across/).

The doors: ThreadQuestions and DMQuestions (their requests: ThreadQuestion, DMQuestion), a
question about one PR in the terminal, and questions across days.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.questions.across.days import AcrossDays, Known
    from bot.questions.across.summaries import summarized
    from bot.questions.ask import ask_about_pr
    from bot.questions.dm import DMQuestion, DMQuestions
    from bot.questions.qa import QAService
    from bot.questions.suggestions import PromptSuggestions
    from bot.questions.thread import ThreadQuestion, ThreadQuestions

__all__ = [
    "AcrossDays",
    "DMQuestion",
    "DMQuestions",
    "Known",
    "PromptSuggestions",
    "QAService",
    "ThreadQuestion",
    "ThreadQuestions",
    "ask_about_pr",
    "summarized",
]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
