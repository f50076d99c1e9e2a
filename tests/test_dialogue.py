"""Dialogue views: each participant sees its own turns as assistant and others' as user; addressed turns
stay private; a synchronous round hides same-round moves; a dialogue round-trips through a record."""
import pytest

from judgeagent.models.dialogue import Dialogue


def test_a_two_party_conversation_from_each_seat():
    d = Dialogue(["interviewer", "candidate"], system={"candidate": "Answer briefly."})
    d.say("interviewer", "What is the capital of France?")
    d.say("candidate", "Paris.")
    d.say("interviewer", "Why is it the capital?")
    assert d.view("candidate") == [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "What is the capital of France?"},
        {"role": "assistant", "content": "Paris."},
        {"role": "user", "content": "Why is it the capital?"},
    ]
    assert [m["role"] for m in d.view("interviewer")] == ["assistant", "user", "assistant"]


def test_a_message_pool_with_private_turns_and_synchronous_rounds():
    d = Dialogue(["referee", "seat-1", "seat-2"])
    d.say("referee", "Each of you has 10 coins. How many do you invest?")
    d.say("referee", "Your private note: you are seat-1.", to=["seat-1"])
    d.begin_round(1)
    d.say("seat-1", "I invest 4.")
    assert "I invest 4." not in str(d.view("seat-2"))  # not yet: same round
    d.say("seat-2", "I invest 6.")
    d.end_round()
    seen = d.view("seat-2")
    assert "[seat-1] I invest 4." in seen[0]["content"] and "private note" not in str(seen)
    assert "private note" in str(d.view("seat-1"))
    assert all(m["role"] != seen[i + 1]["role"] for i, m in enumerate(seen[:-1]))  # roles alternate


def test_round_trip_and_unknown_speakers():
    d = Dialogue(["a", "b"])
    d.say("a", "hello", to=["b"], kind="greeting")
    again = Dialogue.from_dict(d.to_dict())
    assert again.view("b") == d.view("b") and again.turns[0].meta == {"kind": "greeting"}
    with pytest.raises(ValueError, match="not in this dialogue"):
        d.say("c", "hi")
