"""OpenAIModel.complete_streaming against the fake model's Chat Completions stream (SSE), with the
real openai client: pieces as they come, usage counted, and a stop that closes the request."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from devkit.fakes.llm import FakeOpenAI

from bot.core.deadline import Budget
from bot.core.usage import Tally
from bot.llm.openai_model import OpenAIModel, build_openai
from bot.models import Message

MESSAGES = [Message("system", "Answer briefly."), Message("user", "What changed?")]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as served:
        yield served


def model_of(fake: FakeOpenAI) -> OpenAIModel:
    return OpenAIModel(build_openai("test", f"{fake.url}/v1", timeout=10), "fake-model")


def test_pieces_arrive_in_order_and_usage_is_counted(fake: FakeOpenAI) -> None:
    fake.stream_script = ["It fuses ", "the kernels. ", "Decode is faster."]
    seen: list[str] = []
    tally = Tally()

    def take(piece: str) -> bool:
        seen.append(piece)
        return True

    text = model_of(fake).complete_streaming(MESSAGES, Budget().start(time.monotonic, time.sleep), tally, take)
    assert seen == fake.stream_script and text == "".join(seen)
    (request,) = fake.chat_requests()
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    assert tally.total.prompt == fake.usage_given()[0] > 0
    assert fake.streams[0].finished


def test_returning_false_closes_the_stream(fake: FakeOpenAI) -> None:
    fake.chunk_delay = 0.05
    fake.stream_script = [f"word{index} " for index in range(60)]
    seen: list[str] = []

    def take(piece: str) -> bool:
        seen.append(piece)
        return len(seen) < 4

    text = model_of(fake).complete_streaming(MESSAGES, Budget().start(time.monotonic, time.sleep), None, take)
    assert text.split() == ["word0", "word1", "word2", "word3"]
    stream = fake.streams[0]
    assert stream.settled.wait(10) and stream.cut and len(stream.pieces) < 60
