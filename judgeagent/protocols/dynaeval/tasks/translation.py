"""Machine translation (asymmetric, writer-editor; Section 2.4, Appendix A.8).

The translator translates a source paragraph into the target language; the proofreader polishes the
translation (one pass, as in the paper's prompts). With `polish_rounds` above 1 the two exchange: the
translator answers each polish with a revision or `over`, the proofreader polishes each revision or
says `over`, until one says `over` (consensus) or the proofreader has polished `polish_rounds` times;
the final version is the last one given, the draft the translator's first.

Scoring (`-o scoring`). paper (the paper's Table 3, Appendix A.8): the referee reads the dialogue and rates
the translator and the proofreader 1-10 each with the paper's judge prompt; each seat scores its own rating
(s_T, s_Pr), and with a reference translation each seat's own version gets BLEU (sacrebleu's sentence BLEU on
the paper's 0-1 scale: b_T of the draft, b_Pr of the final) and chrF (0-100) beside it. judgeagent (the earlier
game): the referee rates both versions for adequacy and fluency (1-10 each), shown the source and the two
versions in a seeded random order, labelled `Version 1`/`Version 2`, never who wrote which; a game's score is
the final (polished) version's mean rating, shared by both seats, the draft's rating kept to show what the
proofreader changed, and chrF (0-100) of both versions where there is a reference.

What each score can tell: the rating judges meaning and fluency without a reference, but it is one
model's opinion (its own biases, its grasp of the target language; a weak referee rates noise); chrF
measures character n-gram overlap with one reference: objective and repeatable, but it penalises a
correct translation worded differently and cannot see a fluent mistranslation that shares words.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ....errors import JudgeAgentError
from ....files import jsonl_records
from . import iwslt
from .base import Game, Metric, Move, Outcome, Stamp, Task, TranslationSource, read_source
from .rating import dialogue, rate_roles

TRANSLATOR, PROOFREADER = "translator", "proofreader"


class Rating(BaseModel):
    adequacy: int = Field(ge=1, le=10)
    fluency: int = Field(ge=1, le=10)


class Ratings(BaseModel):
    reasoning: str
    version_1: Rating
    version_2: Rating


class Translation(Task):
    name = "translation"
    symmetric = False
    roles = (TRANSLATOR, PROOFREADER)
    unit = "rating (1-10)"
    epsilon = 0.5

    def headline_measures(self, config: Any) -> tuple[str, ...]:
        return ("BLEU",) if config.scoring == "paper" else ()

    def check(self, config: Any, players: int, referee: bool) -> None:
        if not config.sources:
            raise JudgeAgentError("task translation needs source paragraphs: give -o sources=FILE (JSON lines with "
                                  "text or source, and an optional reference)")
        if not referee:
            raise JudgeAgentError("task translation is scored by a referee model: give --role referee=MODEL")

    def load(self, config: Any) -> list[Any]:
        return self.load_stamped(config)[0]

    def load_stamped(self, config: Any) -> tuple[list[Any], Stamp | None]:
        if iwslt.is_archive(config.sources):  # the paper's data, IWSLT 2017's own archives
            items, stamp, (src, tgt) = iwslt.load(config.sources, config.max_words)
            languages = (iwslt.NAMES.get(src, src), iwslt.NAMES.get(tgt, tgt))
            if (config.source_language, config.target_language) != languages:
                raise JudgeAgentError(f"sources {Path(config.sources).name} translates {languages[0]} to "
                                      f"{languages[1]}: give -o source_language={languages[0]} "
                                      f"-o target_language={languages[1]}")
            random.Random(config.seed).shuffle(items)
            return items[:config.items], stamp
        file, text, stamp = read_source(config.sources, "sources")
        return parse_sources(file, text, config.items, config.seed, config.max_words), stamp

    def game(self, config: Any, seats: tuple[str, ...], item: Any, rng: random.Random) -> Game:
        return TranslationGame(config, seats, item, rng)


def paragraph(text: str, max_words: int) -> str:
    """The first paragraph of 15 words or more (else the text's start), cut to `max_words` words."""
    blocks = [b.strip() for b in text.split("\n\n") if b.strip()]
    chosen = next((b for b in blocks if len(b.split()) >= 15), blocks[0] if blocks else "")
    words = chosen.split()
    return " ".join(words[:max_words])


def parse_sources(file: Path, content: str, count: int, seed: int, max_words: int) -> list[TranslationSource]:
    """A seeded sample of `count` sources (all when fewer) from the file's `content`."""
    items: list[TranslationSource] = []
    for n, (record, where) in enumerate(jsonl_records(file, content), 1):
        text = record.get("source") or record.get("text") if isinstance(record, dict) else None
        if not isinstance(text, str) or not text.strip():
            raise JudgeAgentError(f"{where}: a source needs a non-empty text (or source) field")
        items.append(TranslationSource(id=str(record.get("doc_id") or record.get("id") or f"{file.stem}-{n}"),
                                       source=paragraph(text, max_words) if "reference" not in record else text.strip(),
                                       reference=record.get("reference")))
    if not items:
        raise JudgeAgentError(f"sources file {file} has no paragraphs")
    random.Random(seed).shuffle(items)
    return items[:count]


def chrf(hypothesis: str, reference: str) -> float:
    from sacrebleu.metrics import CHRF

    return round(CHRF().sentence_score(hypothesis, [reference]).score, 2)


def bleu(hypothesis: str, reference: str, target_language: str) -> float:
    """Sentence BLEU of one version against the reference, on the paper's 0-1 scale (its tables print 0.284).
    Chinese has no spaces between words: sacrebleu's `zh` tokenizer splits it by character, as its Chinese
    results are reported; other languages use the standard `13a`."""
    from sacrebleu.metrics import BLEU

    tokenize = "zh" if target_language.strip().lower() in ("chinese", "zh", "mandarin") else "13a"
    score = BLEU(tokenize=tokenize, effective_order=True).sentence_score(hypothesis, [reference]).score
    return round(score / 100, 4)


PAPER_JUDGE = ("You will play the role of a translation expert, and you will rate the dialogue between the translator "
               "and the proofreader. The main criteria are: 1. Whether the translator's translation of the given text "
               "is semantically consistent with the original text. 2. Whether the proofreader's polishing result of "
               "the translator's translation is more accurate. Please note: 1. Points are given on a scale of 1-10 2. "
               "Not only do you need to give a final grade, but you also need to give a specific basis for the grade "
               "3. Please reply using the following json format: {\"Translator\": {\"evaluation\": <explain>, "
               "\"score\": <score>}, \"Proofreader\": {\"evaluation\": <explain>, \"score\": <score>}}")
"""Appendix A.8's judge prompt for machine translation, word for word but for the quotes made plain."""


class TranslationGame(Game):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.versions: list[tuple[str, str]] = []
        """Every version given, in order, with its seat: the first is the draft, the last the final."""
        self.agreed = False

    @property
    def exchange(self) -> bool:
        """More than one polish: the translator answers each polish with a revision or `over`."""
        return self.config.polish_rounds > 1

    def rule(self, seat: str) -> str:
        c = self.config
        over = (" If the other's latest version needs no change, reply only 'over' without any other output."
                if self.exchange else "")
        if seat == TRANSLATOR:
            return (f"You will play the role of a professional translator. Please translate the given text from "
                    f"{c.source_language} (source language) to {c.target_language} (target language). Reply with the "
                    f"translation only.{over}")
        return (f"You will play the role of a professional translation editor. Your task is to polish the "
                f"{c.target_language} translation provided by the translator for the given text in "
                f"{c.source_language} (source language), making the translated content more accurate. Note that you "
                f"only need to reply with the polished text in the target language, not any other reply.{over}")

    def acting(self, round_: int) -> list[str]:
        return [TRANSLATOR if round_ % 2 else PROOFREADER]

    def _latest(self, seat: str) -> str:
        return next((text for who, text in reversed(self.versions) if who == seat), "")

    def prompt(self, seat: str, round_: int) -> str:
        source = f"Source language text: {self.item['source']}"
        if round_ == 1:
            return source
        if seat == PROOFREADER:
            return f"{source}\nTranslator: {self._latest(TRANSLATOR)}"
        return (f"{source}\nProofreader: {self._latest(PROOFREADER)}\nPlease give your revised translation based on "
                "the proofreader's version, or reply only 'over' if you accept it.")

    def read(self, seat: str, reply: str) -> Move:
        text = reply.strip()
        if self.exchange and self.versions and text.strip(".!'\"`").lower() == "over":
            return Move(seat, reply, None, True, "agrees")
        return Move(seat, reply, text or None, bool(text), "" if text else "empty")

    def apply(self, round_: int, moves: dict[str, Move]) -> None:
        for seat, move in moves.items():
            if move.valid and move.value is not None:
                self.versions.append((seat, move.value))
            self.agreed = self.agreed or move.note == "agrees"

    def ended(self, round_: int) -> str | None:
        if not self.exchange:
            return "polished" if round_ >= 2 else None
        if self.agreed:
            return "consensus"
        return "round limit" if round_ >= 2 * self.config.polish_rounds else None

    async def outcome(self, end: str, referee: Any) -> Outcome:
        draft = next((text for who, text in self.versions if who == TRANSLATOR), "")
        final = self.versions[-1][1] if self.versions else ""  # an empty reply leaves the last version as it was
        if self.config.scoring == "paper":
            return await self._paper_outcome(end, referee, draft, final)
        rated = await self._rate(referee, draft, final)
        shared: dict[str, Metric] = {"draft rating": rated[0], "final rating": rated[1]}
        if self.exchange:
            shared["versions"] = len(self.versions)
        if self.item.get("reference"):
            shared["draft chrF"] = chrf(draft, self.item["reference"])
            shared["final chrF"] = chrf(final, self.item["reference"])
        # No rating (the referee failed) is no score: the game is left out of the means, not counted as 0.
        return Outcome({seat: rated[1] for seat in self.seats}, end, {seat: dict(shared) for seat in self.seats})

    async def _paper_outcome(self, end: str, referee: Any, draft: str, final: str) -> Outcome:
        """Each role's own rating (s_T, s_Pr) and, with a reference, its own version's BLEU and chrF."""
        c = self.config
        turns = [(f"Source language text ({c.source_language}, to {c.target_language})", self.item["source"])]
        turns += [(who.capitalize(), text) for who, text in self.versions]
        rated = await rate_roles(referee, PAPER_JUDGE, dialogue(turns), ("Translator", "Proofreader"))
        own = {TRANSLATOR: draft, PROOFREADER: final}
        metrics: dict[str, dict[str, Metric]] = {seat: {} for seat in self.seats}
        for seat in self.seats:
            if self.exchange:
                metrics[seat]["versions"] = len(self.versions)
            if self.item.get("reference"):
                metrics[seat]["BLEU"] = bleu(own[seat], self.item["reference"], c.target_language)
                metrics[seat]["chrF"] = chrf(own[seat], self.item["reference"])
        scores = {seat: (None if rated[seat.capitalize()] is None else float(rated[seat.capitalize()]))
                  for seat in self.seats}
        return Outcome(scores, end, metrics)

    async def _rate(self, referee: Any, draft: str, final: str) -> tuple[float | None, float | None]:
        """(draft, final) mean of adequacy and fluency; the two shown in a seeded random order."""
        flipped = self.rng.random() < 0.5
        first, second = (final, draft) if flipped else (draft, final)
        c = self.config
        messages = [{"role": "system", "content": "You are a translation expert rating translations."},
                    {"role": "user", "content": (
                        f"Rate each {c.target_language} translation of the {c.source_language} text for adequacy (the "
                        "meaning of the source kept, nothing added or lost) and fluency (natural, correct "
                        f"{c.target_language}), each from 1 to 10.\nSource: {self.item['source']}\n"
                        f"Version 1: {first or '(empty)'}\nVersion 2: {second or '(empty)'}\n"
                        'Reply in JSON: {"reasoning": <why>, "version_1": {"adequacy": <1-10>, "fluency": <1-10>}, '
                        '"version_2": {"adequacy": <1-10>, "fluency": <1-10>}}')}]
        result = await referee.complete(messages, schema=Ratings)
        if not isinstance(result.parsed, Ratings):
            return None, None
        one, two = ((r.adequacy + r.fluency) / 2 for r in (result.parsed.version_1, result.parsed.version_2))
        return (two, one) if flipped else (one, two)
