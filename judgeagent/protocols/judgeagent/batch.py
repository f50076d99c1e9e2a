"""One batch through the three stages: grading, extension rounds, feedback (Algorithm 1's loop body)."""
from __future__ import annotations

import asyncio
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...benchmark import Item
from ...features import FeatureStore
from ...grading.answers import AnswerChecker, Verdict
from ...grading.judge import echoes
from ...grading.leakage import leaked_strings, redact
from ...graph.model import ContextGraph
from ...graph.sample import KnowledgePath, PathSampler
from ...models import Models
from ...runs import RowLog, Run
from ...threads import one_thread
from ..base import Progress, ProgressEvent
from ..record import call_id
from ..runner import gather_all
from .authors import ALL_RIGHT, skips_feedback
from .checks import rejection
from .config import EvalConfig
from .feedback import feedback_log
from .prompts import (
    Feedback,
    GeneratedQuestion,
    GeneratedQuestions,
    answer_messages,
    feedback_messages,
    generation_messages,
)
from .records import (
    FeedbackEntry,
    FeedbackText,
    JudgedAs,
    Leakage,
    PathInfo,
    QuestionRecord,
    RoundInfo,
    Tokens,
)
from .scoring import points, tier_of
from .together import Question, Together, ask_together, no_answer, one_article


@dataclass
class Context:
    """What every batch shares: models, graph, sampler, run, its feedback log and knobs."""

    config: EvalConfig
    models: Models
    run: Run
    graph: ContextGraph | None = None
    sampler: PathSampler | None = None
    checker: AnswerChecker = field(default_factory=AnswerChecker)
    """Deterministic rules, then the judge only if the judge policy and its calibration allow it."""
    progress: Progress | None = None
    """Hears each question as it is judged, and each batch as its feedback is written (the command's bar)."""
    worker: Any = field(default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="sampler"))
    """The encoder, FAISS and the walk (torch releases the GIL while it encodes)."""
    reader: Any = field(default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="spacy"))
    """spaCy on the batches' questions, ahead of `worker`; when far enough ahead, it encodes questions for `worker`
    (`_help`): the two run on both cores at once."""
    ahead: dict[int, Ahead] = field(default_factory=dict)
    """Per batch, its CPU work queued when the run starts (`plan_ahead`)."""
    unwalked: deque[tuple[int, list[str]]] = field(default_factory=deque)
    """Batches in order, whose questions the reader may encode for `worker` (`_help`) until it starts them."""
    walking: set[int] = field(default_factory=set)
    """Batches whose paths `worker` has started: the reader leaves their questions to it."""
    taking: threading.Lock = field(default_factory=threading.Lock)
    """Guards `unwalked`."""
    store: FeatureStore | None = None
    """The questions' vectors and mentions kept across runs (the sampler's); closed with the run."""

    feedback: RowLog = field(init=False)
    """The run's feedback.jsonl."""

    def __post_init__(self) -> None:
        self.feedback = feedback_log(self.run)

    def close(self) -> None:
        for pool in (self.reader, self.worker):
            pool.shutdown(wait=True, cancel_futures=True)
        if self.sampler is not None:  # its reader's process (graph/reader.py)
            self.sampler.close()
        if self.store is not None:
            self.store.close()


Walked = tuple[KnowledgePath | list[str], PathInfo]
"""A round's path and what the record says of it."""


@dataclass(frozen=True)
class Ahead:
    """A batch's CPU work, all of which is known before its first model call. `named`: the graph entities
    its base questions name (spaCy), needed by its first calls' records. `paths`: each extension round's
    path (a path depends on the batch's questions, the round and the paths of its earlier rounds, never on
    an answer), needed only once the base questions are answered."""

    named: Future[dict[str, list[str]]]
    """Per qid of the batches read with this one (`_groups`)."""
    paths: Future[list[Walked]]
    """Round r's path at index r - 1."""


def plan_ahead(ctx: Context, batches: list[tuple[int, list[Item]]]) -> None:
    """Queue every unfinished batch's CPU work as the run starts, in batch order: spaCy on `reader`, the
    encoder and the walk on `worker`, so both cores work while earlier batches' model calls are in
    flight (issue 31). The reader takes the batches in groups (`_groups`). A finished batch (a resumed
    run) queues nothing."""
    todo = [(b, items) for b, items in batches if ctx.feedback.get(b) is None and b not in ctx.ahead]
    helps = ctx.sampler is not None and _walks(ctx.config)
    if helps:
        ctx.unwalked.extend((b, [i.question for i in _seen(ctx.config, b, items)]) for b, items in todo)
    # `read`: how many batches `worker` will have started when it reaches the end of the groups queued so far.
    groups, read = _groups(todo), len(ctx.walking)
    for k, group in enumerate(groups):
        named = ctx.reader.submit(_read_ahead, ctx, group)
        for b, items in group:
            ctx.ahead[b] = Ahead(named, ctx.worker.submit(_walk_ahead, ctx, b, items, named))
        read += len(group)
        if helps:
            ctx.reader.submit(_help, ctx, read if k < len(groups) - 1 else None)


READ_GROUP = 8
"""The most batches the reader reads in one go: fewer, larger spaCy and encoder calls (80 -> 16 and 89 -> 57 on
bench/evaluate.py's 40 batches; a few percent less CPU per question), and the first groups are smaller (1, 2, 4,
then 8 batches) so that the first batches' paths are ready early."""


def _groups(batches: list[tuple[int, list[Item]]]) -> list[list[tuple[int, list[Item]]]]:
    groups, size, start = [], 1, 0
    while start < len(batches):
        groups.append(batches[start:start + size])
        start, size = start + size, min(2 * size, READ_GROUP)
    return groups


def _queue(ctx: Context, b: int, items: list[Item]) -> Ahead:
    named = ctx.reader.submit(_read_ahead, ctx, [(b, items)])
    return Ahead(named, ctx.worker.submit(_walk_ahead, ctx, b, items, named))


def _read_ahead(ctx: Context, group: list[tuple[int, list[Item]]]) -> dict[str, list[str]]:
    """Per qid of the group's batches, the graph entities its base question names; and the seeds'
    mentions read into the sampler."""
    # spaCy, the encoder, faiss and numpy on one thread each: these inputs are small (threads.py says why).
    with one_thread():
        named = _mentioned_entities(ctx, [i for _, items in group for i in items])
        if ctx.sampler is not None and _walks(ctx.config) and ctx.config.setting != "authors":
            # The seeds' mentions now, so that the sampler's thread seldom runs spaCy: only when a round tries
            # another seed because its path repeated an earlier round's (`_path`). Not under `setting=authors`:
            # its rounds are windows of one rooted walk (`batch_windows`), which reads no seeds (issue 50: each
            # question went through spaCy twice, once here for nothing, and the seeds' mentions were encoded).
            ctx.sampler.read_ahead([q for b, items in group for q in _starts(ctx.config, b, items)])
        return named


LEAD = READ_GROUP
"""The reader reads the next group once `worker` is this many batches from the end of what was read."""


def _help(ctx: Context, read: int | None) -> None:
    """Encode questions for `worker` (`_encode_next`) while it is more than LEAD batches from `read`, the
    count it will have started when it reaches the end of what the reader has read (None: all is read).
    Encoding is most of the worker's CPU and spaCy most of the reader's, which would finish long before:
    this way both cores stay on the batches in order (issue 31)."""
    while ctx.unwalked and (read is None or read - len(ctx.walking) > LEAD) and _encode_next(ctx):
        pass


def _encode_next(ctx: Context) -> bool:
    """Encode the questions of the second batch `worker` has not started, while the worker encodes the first:
    the two encode side by side, and the worker then finds the second encoded (taking the first would make
    the worker wait on each in turn). An error is left in this task's future, unread: the batch's own walk
    encodes again and reports it."""
    with ctx.taking:
        while ctx.unwalked and ctx.unwalked[0][0] in ctx.walking:
            ctx.unwalked.popleft()
        if len(ctx.unwalked) < 2:
            return False
        _, questions = ctx.unwalked[1]
        del ctx.unwalked[1]
    assert ctx.sampler is not None
    with one_thread():
        ctx.sampler.encode_ahead(questions)  # a batch the worker starts meanwhile waits for it, is not encoded twice
    return True


def _walk_ahead(ctx: Context, b: int, items: list[Item], read: Future[dict[str, list[str]]]) -> list[Walked]:
    ctx.walking.add(b)
    read.result()  # the mentions are in the sampler (or the error is this batch's too)
    if not ctx.config.extension:
        return []
    with one_thread():
        seen = _seen(ctx.config, b, items)
        if ctx.config.setting == "authors" and ctx.sampler is not None and _walks(ctx.config):
            from .authors_paths import batch_windows

            return list(batch_windows(ctx.sampler, ctx.config, b, [i.question for i in seen]))
        used: set[tuple[str, ...]] = set()
        return [_path(ctx, b, r, seen, used) for r in range(1, ctx.config.rounds + 1)]


def _starts(config: EvalConfig, b: int, items: list[Item]) -> list[str]:
    """The questions the batch's rounds draw their paths from, at each round's first try."""
    seen = [i.question for i in _seen(config, b, items)]
    return [seen[PathSampler.drawn(len(seen), _round_seed(config, b, r, 0))] for r in range(1, config.rounds + 1)]


def _walks(config: EvalConfig) -> bool:
    """Whether the rounds' paths are walks on the graph (not dense top chunks or random ones)."""
    return config.extension and config.graph and config.path != "dense"


def _seen(config: EvalConfig, b: int, items: list[Item]) -> list[Item]:
    """The batch's questions its extension rounds build on: those not held out of its feedback."""
    held = held_out(config, b, items)
    return [i for i in items if i.qid not in held] or items


@dataclass
class Asked:
    """A question to put to the target (base or extension)."""

    record_id: str
    stage: str
    round: int
    question: str
    gold: str
    difficulty: str | None
    options: dict[str, str] | None = None
    letter: str | None = None
    passage: str | None = None
    qid: str | None = None
    path: PathInfo | None = None
    tier: str | None = None
    question_type: str | None = None
    held_out: bool = False
    aliases: tuple[str, ...] = ()
    generator: str | None = None
    """How an extension question was made: `cloze` (no model) or `llm`."""
    entities: list[str] | None = None
    """Graph entities a base question and its gold mention (the report's knowledge gaps)."""


@dataclass(frozen=True)
class Candidate:
    """An extension question ready to ask: its text, gold and the gold's aliases."""

    question: str
    answer: str
    aliases: tuple[str, ...] = ()
    options: dict[str, str] | None = None
    letter: str | None = None
    """A multiple-choice question's options and its right option's letter (`setting=authors`)."""


@dataclass
class BatchState:
    total: float = 0.0
    asked: int = 0
    trajectory: list[str] = field(default_factory=list)
    rounds: list[RoundInfo] = field(default_factory=list)
    records: list[QuestionRecord] = field(default_factory=list)
    article: str | None = None
    """`setting=authors`: the batch's article, put into its extension prompts too (`together.py`)."""

    def add(self, records: list[QuestionRecord]) -> None:
        self.records.extend(records)
        self.total += sum(r.points for r in records)
        self.asked += len(records)


async def run_batch(ctx: Context, b: int, items: list[Item]) -> FeedbackEntry:
    finished = ctx.feedback.get(b)
    if finished is not None:  # a resumed run: this batch is done
        return FeedbackEntry.from_dict(finished)
    state = BatchState()
    held = held_out(ctx.config, b, items)
    ahead = ctx.ahead.pop(b, None) or _queue(ctx, b, items)
    # The base questions go out at once; their records wait for the entities they name (spaCy, read ahead).
    named = asyncio.wrap_future(ahead.named)
    named.add_done_callback(_read_once)  # a resumed batch may await none of it: its error reaches the paths
    base = [_base_question(ctx, b, item, item.qid in held) for item in items]
    state.article = one_article([q.passage for q in base])
    state.add(await ask_all(ctx, b, base, named))
    state.trajectory.append(tier_of(state.total, state.asked))
    for r, path in enumerate(await asyncio.wrap_future(ahead.paths), start=1):
        await _extension_round(ctx, b, r, path, state, [i.question for i in items])
    return await _feedback(ctx, b, items, state)


def _read_once(future: asyncio.Future[Any]) -> None:
    """Mark the reader's result as read: when every base record is there already (a resumed run), nothing awaits
    it, and its error, which the batch's paths raise anyway, would be logged a second time as never retrieved."""
    if not future.cancelled():
        future.exception()


def held_out(config: EvalConfig, b: int, items: list[Item]) -> set[str]:
    """The qids kept out of this batch's feedback: a seeded draw, the same on every replay."""
    k = int(config.holdout * len(items))
    if k == 0:
        return set()
    rng = np.random.default_rng([config.seed, b, 7])
    return {items[i].qid for i in rng.choice(len(items), size=k, replace=False).tolist()}


def _base_question(ctx: Context, b: int, item: Item, held: bool = False) -> Asked:
    passage = item.passage
    if passage and ctx.config.max_passage_words:
        passage = " ".join(passage.split()[: ctx.config.max_passage_words])
    return Asked(f"b{b}-base-{item.qid}", "grading", 0, item.question, item.gold, item.difficulty,
                 item.options, item.gold_letter, passage, item.qid, question_type=item.question_type,
                 held_out=held, aliases=item.aliases)


def _mentioned_entities(ctx: Context, items: list[Item]) -> dict[str, list[str]]:
    """Per base question, the graph entities its question and gold name (spaCy, as for path seeds), less
    the generic concepts (issue 29: no knowledge-gap row for "land")."""
    if ctx.sampler is None or ctx.graph is None:
        return {}
    texts = [f"{i.question}\n{i.gold}" for i in items]
    from ...graph.specificity import GENERIC

    known, specificity = ctx.graph.entity_row, ctx.graph.specificity
    found = ctx.sampler.extract(texts)
    return {i.qid: sorted({m.name for m in mentions if m.name in known and specificity[known[m.name]] >= GENERIC})
            for i, mentions in zip(items, found)}


async def ask_all(ctx: Context, b: int, questions: list[Asked],
                  named: asyncio.Future[dict[str, list[str]]] | None = None,
                  article: str | None = None) -> list[QuestionRecord]:
    """Put a batch's (or a round's) questions to the target: one call each, or under `setting=authors` one call for
    them all (`together.py`), made only while one of their records is missing (a resumed run's journal answers it)."""
    if ctx.config.setting != "authors":
        return await gather_all(*(ask(ctx, b, q, named) for q in questions))
    together = None
    if any(ctx.run.get(q.record_id) is None for q in questions):
        together = await ask_together(ctx.models.target, [Question(q.question, q.options) for q in questions],
                                      article or one_article([q.passage for q in questions]))
    return await gather_all(*(ask(ctx, b, q, named, None if together is None else (together, k))
                              for k, q in enumerate(questions)))


async def ask(ctx: Context, b: int, q: Asked, named: asyncio.Future[dict[str, list[str]]] | None = None,
              asked: tuple[Together, int] | None = None) -> QuestionRecord:
    """Put one question to the target, judge it, record it (once: a resumed run reuses the record).
    `named`: the graph entities per qid, for a base question's record (known once spaCy has read it).
    `asked`: the batch call that asked it already, and its place there (`setting=authors`)."""
    done = ctx.run.get(q.record_id)
    if done is not None:
        return QuestionRecord.read(done, ctx.run.folder / "records.jsonl")
    if asked is None:
        messages = answer_messages(q.question, q.options, q.passage)
        reply = await ctx.models.target.complete(messages)
        text = reply.text if reply.ok else ""
    else:
        messages, reply, text = asked[0].messages, asked[0].reply, asked[0].answer(asked[1]) or ""
    verdict: Verdict = (no_answer() if asked is not None and asked[0].answer(asked[1]) is None else
                        await ctx.checker.check(q.question, (q.gold, *q.aliases), text, options=q.options,
                                                gold_letter=q.letter))
    if named is not None:
        q = replace(q, entities=(await named).get(q.qid or ""))
    record = QuestionRecord(
        q.record_id, b, q.stage, q.round, q.qid, q.difficulty, q.question, q.gold,
        reply.text if asked is None else text, verdict.correct,
        JudgedAs.of(verdict),
        points(verdict.correct, q.difficulty, ctx.config.hard_wrong_penalty, ctx.config.unlabelled_points),
        tier=q.tier, question_type=q.question_type, held_out=q.held_out, options=q.options, aliases=q.aliases,
        gold_letter=q.letter, path=q.path, generator=q.generator, entities=q.entities, prompt=messages,
        target_error=reply.error, tokens=Tokens(reply.usage.input_tokens, reply.usage.output_tokens, reply.cached),
        batch_reply=None if asked is None else reply.text)
    ctx.run.add_record(dict(record.to_dict()))
    if ctx.progress:
        ctx.progress(ProgressEvent(question=record, ledger=ctx.models.ledger))
    return record


async def _extension_round(ctx: Context, b: int, r: int, walked: Walked,
                           state: BatchState, all_questions: list[str]) -> None:
    tier = ctx.config.fixed_difficulty or (_most_informative(state) if ctx.config.adaptive == "irt"
                                          else state.trajectory[0] if ctx.config.setting == "authors"
                                          else state.trajectory[-1])  # authors: the tier after grading
    path, path_info = walked
    choice = _choice_form(ctx, state)
    if tier == "easy" and ctx.config.easy_generator == "cloze" and not choice:
        # avoid the batch's earlier extension questions too: two rounds' paths can share a sentence (issue 45)
        earlier = [rec.question for rec in state.records if rec.stage == "extension"]
        accepted, rejected, generator = _cloze(ctx, path, b, r, [*all_questions, *earlier]), [], "cloze"
    else:
        (accepted, rejected), generator = await _generate(ctx, path, tier, all_questions, choice), "llm"
    info: RoundInfo = {"round": r, "tier": tier, "path": path_info, "rejected": rejected, "generator": generator}
    if not accepted:
        reasons = ", ".join(sorted(set(rejected))) or "no path sentence could be made a cloze question"
        info["skipped"] = f"every generated question failed the checks ({reasons})"
        state.rounds.append(info)
        return
    asked = [Asked(f"b{b}-r{r}-q{k}", "extension", r, g.question, g.answer, tier, g.options, g.letter,
                   path=path_info, tier=tier, aliases=g.aliases, generator=generator)
             for k, g in enumerate(accepted)]
    state.add(await ask_all(ctx, b, asked, article=state.article))
    state.trajectory.append(tier_of(state.total, state.asked))
    state.rounds.append(info)


def _choice_form(ctx: Context, state: BatchState) -> bool:
    """`setting=authors` asks multiple-choice extension questions when the batch's base questions have options
    (the benchmark's format, not its name: the authors' `QTYPE.KMC`/`RMC` for MedQA and QuALITY)."""
    base = [r for r in state.records if r.stage == "grading"]
    return ctx.config.setting == "authors" and bool(base) and all(r.options for r in base)


def _most_informative(state: BatchState) -> str:
    """`--adaptive irt`: the level at which the batch's answers so far are least predictable."""
    from .validity.irt import estimate, most_informative, responses

    return most_informative(estimate(responses(state.records)))


def _cloze(ctx: Context, path: KnowledgePath | list[str], b: int, r: int, asked: list[str]) -> list[Candidate]:
    """Easy-tier questions with no model call: a path entity blanked in a path sentence."""
    from .cloze import cloze_questions

    assert ctx.graph is not None
    chunk_ids, entity_ids = (path, []) if isinstance(path, list) else (path.chunk_ids, path.entity_ids)
    found = cloze_questions(ctx.graph, chunk_ids, entity_ids, count=ctx.config.questions_per_round,
                            seed=ctx.config.seed * 1_000_003 + b * 1009 + r, avoid=asked)
    return [Candidate(c.question, c.gold, c.aliases) for c in found]


def _path(ctx: Context, b: int, r: int, items: list[Item], used: set[tuple[str, ...]] | None = None) -> Walked:
    """A round's path that no earlier round of the batch walked (a repeated path only repeats its
    questions), trying a few more seeds before accepting a repeat."""
    found = _one_path(ctx, b, r, items, 0)
    for attempt in range(1, _NEW_PATH_TRIES):
        if used is None or tuple(found[1]["chunk_ids"]) not in used:
            break
        found = _one_path(ctx, b, r, items, attempt)
    path, info = found
    if used is not None:
        used.add(tuple(info["chunk_ids"]))
    if ctx.sampler is not None:  # one measure for the three sources, comparable across runs
        info["relevance"] = ctx.sampler.relevance([i.question for i in items], info["chunk_ids"])
    return path, info


_NEW_PATH_TRIES = 4


def _one_path(ctx: Context, b: int, r: int, items: list[Item], attempt: int) -> Walked:
    """The round's chunks and what the record says of them: Algorithm 4 on the graph; `--path dense`,
    the top chunks for the questions; `--no-graph`, H chunks drawn at random from the whole corpus."""
    seed = _round_seed(ctx.config, b, r, attempt)
    assert ctx.graph is not None
    questions = [i.question for i in items]
    path: KnowledgePath | list[str]
    if not ctx.config.graph or ctx.sampler is None:
        rng = np.random.default_rng(seed)
        rows = rng.choice(len(ctx.graph.chunk_ids), size=min(ctx.config.hops, len(ctx.graph.chunk_ids)), replace=False)
        path = [ctx.graph.chunk_ids[i] for i in sorted(rows.tolist())]
        info: PathInfo = {"entities": [], "entity_ids": [], "chunk_ids": path, "random": True}
    elif ctx.config.path == "dense":
        path = ctx.sampler.dense(questions, hops=ctx.config.hops, seed=seed)
        info = {"entities": [], "entity_ids": [], "chunk_ids": path, "dense": True}
    else:
        path = ctx.sampler.sample(questions, hops=ctx.config.hops, seed=seed)
        info = {"entities": path.entities, "entity_ids": path.entity_ids, "chunk_ids": path.chunk_ids,
                "seed": path.seed, "seed_kind": path.seed_kind, "similarities": path.similarities,
                "stopped_early": path.stopped_early}
    return path, info


def _round_seed(config: EvalConfig, b: int, r: int, attempt: int) -> int:
    return config.seed * 1_000_003 + b * 1009 + r + attempt * 7_919


async def _generate(ctx: Context, path: KnowledgePath | list[str], tier: str,
                    base: list[str], choice: bool = False) -> tuple[list[Candidate], list[str]]:
    """Ask the interviewer for questions until enough pass the checks or attempts run out."""
    assert ctx.graph is not None
    if isinstance(path, list):
        rows = [ctx.graph.chunk_row[c] for c in path]
        text, entities = "\n".join(ctx.graph.chunk_texts[i] for i in rows), ["the main subjects of the text"]
    else:
        text, entities = path.text, path.entities
    if choice:
        from .choice_questions import generate_choices

        found, why = await generate_choices(ctx.models.interviewer, ctx.checker, ctx.config, text, entities, tier, base)
        return [Candidate(c.question, c.answer, options=c.options, letter=c.letter) for c in found], why
    accepted: list[Candidate] = []
    rejected: list[str] = []
    want = ctx.config.questions_per_round
    for attempt in range(ctx.config.generation_attempts):
        messages = generation_messages(text, entities, tier, want, attempt)
        reply = await ctx.models.interviewer.complete(messages, schema=GeneratedQuestions)
        if not reply.ok or reply.parsed is None:
            rejected.append("unparseable")
            continue
        assert isinstance(reply.parsed, GeneratedQuestions)
        fresh = _passing(ctx, reply.parsed.generated_question, text, base, accepted, rejected)
        fresh = fresh[: want - len(accepted)]
        if tier in ctx.config.self_check:
            fresh = await _self_checked(ctx, fresh, text, rejected)
        accepted.extend(Candidate(c.question, c.answer) for c in fresh)
        if len(accepted) >= want:
            break
    return accepted, rejected


def _passing(ctx: Context, candidates: list[GeneratedQuestion], text: str, base: list[str],
             accepted: list[Candidate], rejected: list[str]) -> list[GeneratedQuestion]:
    """The candidates that pass every check (`checks.rejection`); each failure's reason is counted."""
    kept: list[GeneratedQuestion] = []
    for candidate in candidates:
        asked = [a.question for a in accepted] + [k.question for k in kept]
        why = rejection(candidate, text, base, asked, ctx.config.max_answer_words, ctx.config.duplicate_jaccard)
        if why:
            rejected.append(why)
        else:
            kept.append(candidate)
    return kept


async def _self_checked(ctx: Context, candidates: list[GeneratedQuestion], text: str,
                        rejected: list[str]) -> list[GeneratedQuestion]:
    """Keep the questions the interviewer itself answers from the path text in agreement with its gold:
    a question its own author gets wrong is ambiguous or has a wrong gold."""
    replies = await gather_all(*(ctx.models.interviewer.complete(answer_messages(c.question, passage=text))
                                 for c in candidates))
    kept = []
    for candidate, reply in zip(candidates, replies):
        verdict = await ctx.checker.check(candidate.question, candidate.answer, reply.text if reply.ok else "")
        if verdict.correct:
            kept.append(candidate)
        else:
            rejected.append("interviewer's own answer disagrees with its gold")
    return kept


def transcript(records: list[QuestionRecord]) -> str:
    lines = []
    for i, r in enumerate(records, start=1):
        lines.append(f"Q{i} ({r.stage}, {r.difficulty or 'unlabelled'}): {r.question}")
        if r.options:
            lines.extend(f"   {k}. {v}" for k, v in r.options.items())
        gold = f"{r.gold_letter}. {r.gold}" if r.gold_letter else r.gold
        lines.append(f"   correct answer: {gold}")
        lines.append(f"   model's answer: {(r.answer or '(no answer)').strip()[:500]}")
        lines.append(f"   judged: {'correct' if r.correct else 'wrong'}")
    return "\n".join(lines)


async def _feedback(ctx: Context, b: int, items: list[Item], state: BatchState) -> FeedbackEntry:
    """Stage 3 with the leakage guard: detect, regenerate once with the strings named, then redact."""
    if skips_feedback(ctx.config.setting, state.records):  # setting=authors: none on a batch all right (authors.py)
        return _written(ctx, FeedbackEntry(b, [i.qid for i in items], None, ALL_RIGHT, Leakage(), state.total,
                                           state.asked, state.trajectory, state.rounds))
    golds = [(i.gold, i.options, i.gold_letter) for i in items]
    text = transcript([r for r in state.records if not r.held_out])
    sent = feedback_messages(text)
    reply = await ctx.models.interviewer.complete(sent, schema=Feedback)
    leak = Leakage()
    feedback = reply.parsed if reply.ok else None
    call = call_id(sent, reply.text) if reply.ok else None
    error = None
    if isinstance(feedback, Feedback) and echoes(feedback.suggestions, Feedback):
        # The schema's description said back is no advice: validated as advice it would measure nothing.
        feedback, error = None, "the interviewer's suggestions repeat the schema's description of them"
    if isinstance(feedback, Feedback):
        found = leaked_strings(feedback.suggestions, golds)
        if found:
            leak = Leakage(found, regenerated=True)
            sent = feedback_messages(text, found)
            again = await ctx.models.interviewer.complete(sent, schema=Feedback)
            # a second reply that says back the schema is no advice, as a first one would be: it failed, and the
            # first is kept, redacted below
            if again.ok and isinstance(again.parsed, Feedback) and not echoes(again.parsed.suggestions, Feedback):
                feedback, call = again.parsed, call_id(sent, again.text)
            still = leaked_strings(feedback.suggestions, golds)
            if still:
                feedback = feedback.model_copy(update={"suggestions": redact(feedback.suggestions, still)})
                leak = replace(leak, redacted=True)
    entry = FeedbackEntry(
        b, [i.qid for i in items], FeedbackText(**feedback.model_dump()) if isinstance(feedback, Feedback) else None,
        None if isinstance(feedback, Feedback) else (error or reply.error or "no feedback"),
        leak, state.total, state.asked, state.trajectory, state.rounds,
        call if isinstance(feedback, Feedback) else None)
    return _written(ctx, entry)


def _written(ctx: Context, entry: FeedbackEntry) -> FeedbackEntry:
    ctx.feedback.add(dict(entry.to_dict()))
    if ctx.progress:
        ctx.progress(ProgressEvent(ledger=ctx.models.ledger))  # no question: a batch is done
    return entry
