"""What a scorer reads of a run's input and output: the question, the answer, an agent's shape."""

from __future__ import annotations

from typing import Any

import pytest

from offline_recall import ConfigurationError
from offline_recall.scorer.inputs import answer_text, input_fields, is_agent_input, question_text

AGENT_INPUT = {
    "inputMessages": [],
    "rememberedMessages": [],
    "systemMessages": [],
    "taggedSystemMessages": {},
}


@pytest.mark.parametrize(
    ("output", "answer"),
    [
        ("Paris.", "Paris."),
        # The first assistant message of a list; a user message and a stray string before it.
        (
            [
                {"role": "user", "content": "Where?"},
                "not a message",
                {"role": "assistant", "content": {"content": "First."}},
                {"role": "assistant", "content": "Second."},
            ],
            "First.",
        ),
        ({"role": "assistant", "content": {"text": "From text."}}, "From text."),
        ({"role": "assistant", "content": {"content": "", "text": "Not empty."}}, "Not empty."),
        # The last text part; other parts and strings are not text.
        (
            {
                "role": "assistant",
                "content": {
                    "parts": [
                        {"type": "text", "text": "One."},
                        {"type": "text", "text": "Two."},
                        {"type": "image", "text": "an image"},
                    ]
                },
            },
            "Two.",
        ),
        ({"role": "assistant", "content": {"parts": [{"type": "image"}]}}, None),
        ({"role": "assistant", "content": [{"type": "text", "text": "Listed."}]}, "Listed."),
        ({"role": "assistant", "text": "Bare text."}, "Bare text."),
        ({"content": "No role: an answer."}, "No role: an answer."),
        ({"role": "assistant", "text": 5}, None),
        ({"role": "user", "content": "A question."}, None),
        ([{"role": "user", "content": "Only a question."}], None),
        (42, None),
    ],
)
def test_the_answer_of_an_output(output: Any, answer: str | None) -> None:
    assert answer_text(output) == answer


@pytest.mark.parametrize(
    ("value", "question"),
    [
        ("Where is it?", "Where is it?"),
        ("  ", None),
        ({**AGENT_INPUT, "inputMessages": [{"role": "user", "content": "Agent?"}]}, "Agent?"),
        (
            {
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Q?"},
                ]
            },
            "Q?",
        ),
        ({"input_messages": [{"role": "user", "content": "Snake case?"}]}, "Snake case?"),
        ({"prompt": "A prompt."}, "A prompt."),
        ({"text": "A text."}, "A text."),
        ({"input": "An input."}, "An input."),
        ({"messages": [{"role": "assistant", "content": "No user."}]}, None),
        (["Where?"], None),
    ],
)
def test_the_question_of_an_input(value: Any, question: str | None) -> None:
    assert question_text(value) == question


def test_only_a_mapping_of_message_arrays_is_an_agent_input() -> None:
    assert is_agent_input(AGENT_INPUT)
    assert not is_agent_input({**AGENT_INPUT, "taggedSystemMessages": []})
    assert not is_agent_input({k: v for k, v in AGENT_INPUT.items() if k != "systemMessages"})
    assert not is_agent_input("Where is it?")
    assert not is_agent_input([AGENT_INPUT])


def test_a_runs_fields_under_any_conventions_names() -> None:
    given, others = input_fields(
        {"reference": "A.", "retrieved_contexts": ["c"], "question": "Q?", 7: "seven"}
    )
    assert given == {"ground_truth": "A.", "context": ["c"], "input": "Q?"}
    assert others == {"7": "seven"}
    given, _ = input_fields({"ground_truths": ["A.", "B."], "context": ["c"]})
    assert given["ground_truth"] == "A.\nB."


def test_two_names_of_one_field_are_refused_naming_both() -> None:
    with pytest.raises(ConfigurationError) as caught:
        input_fields({"groundTruth": "A.", "ground_truth": "B."})
    assert str(caught.value) == (
        "both 'groundTruth' and 'ground_truth' given for the ground truth; give one"
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"context": "one chunk"}, "a run's `context` must be a list of strings"),
        (
            {"retrieved_contexts": ["a", 1]},
            "a run's `retrieved_contexts` must be a list of strings",
        ),
    ],
)
def test_a_context_that_is_not_a_list_of_strings_is_refused(
    raw: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        input_fields(raw)
    assert str(caught.value) == message
