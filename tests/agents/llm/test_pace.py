"""A call's deadline: the model's timeout where set, else sized from the endpoint's
measured pace and the call's size, within a floor and a ceiling."""

import pytest

from recmarket.agents.llm.api import ChatRequest
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.pace import BEFORE_MEASURED, CEILING, FLOOR, Pace, deadline

CFG = ModelConfig(name="m", base_url="http://fake/v1")


def call(prompt_chars: int = 4000, max_tokens: int = 512) -> ChatRequest:
    return ChatRequest(
        "explain", [{"role": "user", "content": "x" * prompt_chars}], max_tokens, 0.0, None
    )


def test_a_timeout_setting_fixes_every_deadline() -> None:
    fixed = CFG.model_copy(update={"timeout": 7.0})
    assert deadline(fixed, Pace(0.1, 5.0), call()) == (7.0, "the model's timeout setting")


def test_a_slow_endpoint_gets_time_for_the_call_and_a_fast_one_the_floor() -> None:
    slow, how = deadline(CFG, Pace(0.5, 10.0), call())  # a small model on a busy laptop
    # 3 x (0.5 s + (512 + 1000 / 8) tokens at 10 a second)
    assert slow == pytest.approx(3 * (0.5 + (512 + 125) / 10))
    assert "measured 10.0 tokens/s" in how and "set timeout (seconds)" in how
    fast, _ = deadline(CFG, Pace(0.3, 150.0), call())  # a hosted API
    assert fast == FLOOR


def test_longer_calls_get_longer_deadlines_up_to_the_ceiling() -> None:
    pace = Pace(0.5, 4.0)
    short, _ = deadline(CFG, pace, call(max_tokens=64))
    long, _ = deadline(CFG, pace, call(max_tokens=512))
    assert FLOOR < short < long
    assert deadline(CFG, Pace(1.0, 0.5), call())[0] == CEILING


def test_before_the_pace_is_known_the_check_gets_a_fixed_start() -> None:
    seconds, how = deadline(CFG, None, call())
    assert seconds == BEFORE_MEASURED and "not measured" in how


def test_a_pace_is_measured_only_from_an_answer_long_enough_to_time() -> None:
    assert Pace.measured(fixed=0.2, seconds=2.2, tokens=40) == Pace(0.2, 20.0)
    assert Pace.measured(fixed=0.2, seconds=0.3, tokens=3) is None
    assert Pace.measured(fixed=0.5, seconds=0.4, tokens=40).tokens_per_second == 2000.0


def test_a_slow_reader_gets_time_for_its_prompt() -> None:
    """A small model on a CPU may write 200 tokens a second and read a long prompt at 70:
    the measured reading pace, not a fixed ratio, sizes the prompt's share."""
    fast_writer = Pace.measured(fixed=0.1, seconds=0.34, tokens=48)
    assert fast_writer is not None and fast_writer.tokens_per_second == pytest.approx(200.0)
    slow_reader = fast_writer.reading(seconds=14.4, tokens=1000)
    assert slow_reader.read_per_second == pytest.approx(1000 / 14.3)
    assumed, _ = deadline(CFG, fast_writer, call(prompt_chars=4000, max_tokens=64))
    measured, how = deadline(CFG, slow_reader, call(prompt_chars=4000, max_tokens=64))
    assert assumed == FLOOR  # 1,000 tokens at 1,600 a second: well under the floor
    assert measured == pytest.approx(3 * (0.1 + 1000 / (1000 / 14.3) + 64 / 200))
    assert "200.0 tokens/s written and 70 read" in how


def test_calls_queued_ahead_at_a_one_slot_server_extend_the_deadline() -> None:
    """The clock runs from sending: at a server that serves one call at a time, a call sent
    with three of ours in flight waits for the others; at one that serves four, it does
    not."""
    one_slot = Pace(0.1, 20.0, 300.0, parallel=1)
    alone, _ = deadline(CFG, one_slot, call(), in_flight=1)
    queued, how = deadline(CFG, one_slot, call(), in_flight=3)
    assert queued == pytest.approx(3 * alone) and "3 call(s) in flight" in how
    four_slots = Pace(0.1, 20.0, 300.0, parallel=4)
    assert deadline(CFG, four_slots, call(), in_flight=3)[0] == alone
