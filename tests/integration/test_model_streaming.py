"""OpenAIModel.complete_streaming against the fake model's Chat Completions stream (SSE), with the
real openai client: pieces as they come, usage counted, and a stop that closes the request."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from devkit.fakes.llm import FakeOpenAI

from bot.core.deadline import Budget
from bot.core.usage import Tally
from bot.errors import ModelTimeout
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
    # The client has read [DONE]; the server's side marks the stream finished just after.
    assert fake.streams[0].settled.wait(5) and fake.streams[0].finished


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


def test_a_stopped_stream_has_its_tokens_estimated_since_no_usage_comes(fake: FakeOpenAI) -> None:
    fake.chunk_delay = 0.05
    fake.stream_script = [f"word{index} " for index in range(60)]
    tally = Tally()
    budget = Budget().start(time.monotonic, time.sleep)
    model_of(fake).complete_streaming(MESSAGES, budget, tally, lambda piece: "word2" not in piece)
    assert tally.total.prompt > 0 and tally.total.completion > 0  # estimated: no usage chunk came


def test_a_model_writing_past_its_time_is_cut_and_what_it_wrote_stands(fake: FakeOpenAI) -> None:
    """Each piece comes well within a read's timeout; the whole answer does not come within the
    model's time. llama.cpp on two cores wrote one answer for 13 minutes this way."""
    fake.chunk_delay = 0.1
    fake.stream_script = [f"word{index} " for index in range(100)]
    started = time.monotonic()
    text = model_of(fake).complete_streaming(MESSAGES, Budget(seconds=1.0).start(), None, lambda piece: True)
    assert time.monotonic() - started < 3
    assert 3 <= len(text.split()) < 100
    stream = fake.streams[0]
    assert stream.settled.wait(10) and stream.cut


def test_no_words_within_the_models_time_is_a_timeout(fake: FakeOpenAI) -> None:
    fake.chunk_delay = 0.1
    fake.stream_script = [""] * 15 + ["late words"]
    with pytest.raises(ModelTimeout):
        model_of(fake).complete_streaming(MESSAGES, Budget(seconds=1.0).start(), None, lambda piece: True)
