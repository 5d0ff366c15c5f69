"""ModelReader: the model reads a question the rules could not (questions/reading.py), once.

Asked only when a model is configured and the rules found no days, PR, person or topic to act on;
in whatever structured-output mode the endpoint takes (the one remembered for it, then the weaker
ones); within one answer's time budget. What it returns is a draft (core/prompting/question_drafts.py) that
goes through the same checks and the same access rule as the rules' reading: a repository the
asker may not see is dropped before anything else reads the reading.
"""

from __future__ import annotations

import json
import logging
from datetime import date

from bot.core.deadline import Budget
from bot.core.pacing import Pacing
from bot.core.prompting.context_window import OUTPUT_RESERVE, request_tokens
from bot.core.prompting.question_drafts import ReadingDraft, reading_from_draft, reading_prompt
from bot.core.usage import Tally
from bot.errors import ModeRefused, SummarizerError
from bot.models import OUTPUT_MODES, Audience, Reading
from bot.ports import ModelClient
from bot.store.modes import ModeMemory

log = logging.getLogger(__name__)


class ModelReader:
    def __init__(self, model: ModelClient, budget: Budget, pacing: Pacing, memory: ModeMemory | None = None) -> None:
        self._model = model
        self._budget = budget
        self._pacing = pacing
        self._memory = memory
        # What a request carries besides its messages, counted in what it may spend.
        self._schema = json.dumps(ReadingDraft.model_json_schema())

    def read(self, question: str, audience: Audience, today: date, tally: Tally | None = None) -> Reading | None:
        """The model's reading of `question` for `audience` on `today`, checked; None when the
        model gave none (a failure is logged, never the asker's problem: the help is said)."""
        repos = tuple(sorted(audience.repos))
        messages = reading_prompt(question, today, repos).messages()
        learned = self._memory.recall() if self._memory is not None else None
        start = learned.mode if learned is not None else OUTPUT_MODES[0]
        deadline = self._budget.start(self._pacing.clock, self._pacing.sleep)
        for mode in OUTPUT_MODES[OUTPUT_MODES.index(start) :]:
            try:
                if tally is not None:  # BudgetSpent: not sent, and no reading, as for a failure
                    tally.reserve(request_tokens(messages, OUTPUT_RESERVE, self._schema))
                parsed = self._model.parse(messages, ReadingDraft, deadline, mode, tally)
            except ModeRefused:
                continue
            except SummarizerError as exc:
                log.info("the model gave no reading of a question: %s", type(exc).__name__)
                return None
            return reading_from_draft(parsed.value, question, today, audience.repos)
        log.info("the model gave no reading of a question: it takes none of the output modes")
        return None
