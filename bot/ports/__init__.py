"""Ports: the protocols services need of the outside world, where adapters may import them too.

Adapters (llm/, sources/, queue/, slack/) implement them; services depend on them. Nothing here
imports a vendor, a service, a store or the settings: only our own values (bot.models, bot.core).
"""

from bot.ports.model import (
    Answerer,
    AnswerSink,
    CardWriter,
    ModelClient,
    Parsed,
    Schema,
    StreamingModel,
)
from bot.ports.queue import CardJobs
from bot.ports.source import Source

__all__ = [
    "AnswerSink",
    "Answerer",
    "CardJobs",
    "CardWriter",
    "ModelClient",
    "Parsed",
    "Schema",
    "Source",
    "StreamingModel",
]
