"""Prompts (the paper's Prompts 5-7 in our own words) and the schemas of their replies."""
from __future__ import annotations

from pydantic import BaseModel, Field

from ...models.base import Message

ANSWER_SYSTEM = "Answer the question. Be brief: give the answer first, then at most one sentence of reasoning."
CHOICE_SYSTEM = ("Answer the multiple-choice question. Reply with the letter of the correct option first, "
                 "for example \"B\", then at most one sentence of reasoning.")


def answer_messages(question: str, options: dict[str, str] | None = None, passage: str | None = None) -> list[Message]:
    """What the target sees: plain text, never JSON mode (the task does not need it)."""
    parts = []
    if passage:
        parts.append(f"Read the passage, then answer.\n\nPassage:\n{passage}\n")
    parts.append(f"Question: {question}")
    if options:
        parts.append("\n".join(f"{letter}. {text}" for letter, text in options.items()))
    system = CHOICE_SYSTEM if options else ANSWER_SYSTEM
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(parts)}]


DIFFICULTY_RULES = {
    "easy": ("EASY - recall. Ask about a fact stated in the text, the way a fill-in-the-blank item "
             "would: take a sentence, hide its key word or phrase, and ask for it."),
    "medium": ("MEDIUM - understanding. Ask what a concept, event or relation in the text means or "
               "implies, so that the reader must have understood it, not just seen the words."),
    "hard": ("HARD - analysis. Ask a question that needs several facts from different fragments "
             "combined, or a step of reasoning about causes, comparisons or consequences. Do not "
             "copy a sentence and blank a word out."),
}
EXAMPLES = {
    "easy": ('Text: "The probe was launched in 1977 from Cape Canaveral aboard a Titan IIIE rocket."\n'
             'Question: "From which launch site did the probe lift off in 1977?" Answer: "Cape Canaveral"'),
    "medium": ('Text: "Solar panels were useless that far from the Sun, so the craft carried radioisotope '
               'generators."\nQuestion: "Why did the craft need radioisotope generators rather than solar '
               'panels?" Answer: "Too little sunlight far from the Sun"'),
    "hard": ('Text: "Mission A used a gravity assist at Jupiter." / "Jupiter\'s gravity bent Mission B\'s path '
             'toward Saturn."\nQuestion: "Which planet gave both missions a gravity assist?" Answer: "Jupiter"'),
}


class GeneratedQuestion(BaseModel):
    question: str
    answer: str = Field(description="A word or short phrase, correct according to the fragments.")


class GeneratedQuestions(BaseModel):
    generated_question: list[GeneratedQuestion]


def generation_messages(fragments: str, entities: list[str], difficulty: str, count: int,
                        attempt: int = 0) -> list[Message]:
    """Prompt 5: questions on the path's fragments, at one difficulty, with concise answers."""
    retry = ("" if attempt == 0 else
             f"\n(Attempt {attempt + 1}: earlier questions were rejected. Make sure each answer is a short "
             "phrase found in or directly supported by the fragments.)")
    content = (
        "You are an interviewer writing questions from the text fragments below.\n"
        f"1. Centre the questions on these entities: {', '.join(entities)}.\n"
        "2. Each answer must be correct according to the fragments, and concise: a word or a short phrase.\n"
        f"3. Difficulty: {DIFFICULTY_RULES[difficulty]}\n"
        f"4. Each question must make sense on its own, without the fragments.\n\n"
        f"Example:\n{EXAMPLES[difficulty]}\n\n"
        f"Fragments:\n{fragments}\n\n"
        f"Write {count} question{'s' * (count > 1)} with {'their answers' if count > 1 else 'its answer'}.{retry}"
    )
    return [{"role": "user", "content": content}]


class Feedback(BaseModel):
    flaws_knowledge: str = Field(description="Background knowledge the answerer lacks.")
    flaws_capability: str = Field(description="Flaws in reasoning, understanding or attention to detail.")
    comprehensive_performance: str = Field(description="Overall performance on all the questions.")
    suggestions: str = Field(description="Guidance that helps the answerer do better on questions like these.")


def feedback_messages(transcript: str, forbidden: list[str] | None = None) -> list[Message]:
    """Prompt 6, with the leakage guard's instruction (the paper has none)."""
    guard = ("Never state, hint at or paraphrase the correct answer or the correct option of any "
             "question: the answerer will see your suggestions before answering these questions again, "
             "and suggestions that give answers away are worthless.")
    if forbidden:
        guard += " In particular do not write any of: " + "; ".join(f'"{f}"' for f in forbidden) + "."
    content = (
        "Below is how a model answered a series of questions, with the correct answers.\n\n"
        f"{transcript}\n\n"
        "Evaluate the model concisely: what background knowledge it lacks, what flaws in reasoning or "
        "understanding it shows, and how it performed overall. Then give suggestions: concrete guidance "
        "on the thinking steps, knowledge and abilities that would help it answer such questions correctly. "
        f"{guard}"
    )
    return [{"role": "user", "content": content}]
