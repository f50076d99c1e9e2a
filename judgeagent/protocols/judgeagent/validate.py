"""Algorithm 2: each base question answered plainly and with its batch's suggestions; the rates."""
from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NamedTuple, NotRequired, TypedDict

from ...config import CheckerConfig
from ...errors import JudgeAgentError
from ...files import write_json_atomic, write_text_atomic
from ...grading.answers import AnswerChecker, other_golds
from ...grading.leakage import leaked_strings, redact
from ...grading.verdict import Verdict
from ...metrics import bootstrap, breakdown, rates
from ...models.base import Message
from ...runs import Run, a_run_of, finish_hint, load_manifest, load_run, lock_run, run_protocol_name
from ..record import call_id
from ..runner import gather_all
from .authors import ALL_RIGHT, reuse_reason, reuses_first_answers, skips_feedback
from .feedback import read_feedback
from .records import FeedbackEntry, QuestionRecord, question_records
from .together import AskedAgain, again_together, no_answer

SUGGESTION_NOTE = ("An interviewer who reviewed your earlier answers to questions like this one left these "
                   "suggestions:\n{suggestions}\n\nKeep them in mind and answer the question above.")


class ValidationRow(TypedDict):
    """A row of validation.jsonl: a base question answered plainly (before) and with its batch's suggestions."""

    qid: str | None
    batch: int
    difficulty: str | None
    question_type: str | None
    held_out: bool
    question: str
    gold: str
    answer_before: str
    answer_after: str
    before: bool
    after: bool
    method_before: str
    method_after: str
    reused: NotRequired[str]
    """setting=authors, a batch without feedback (`all right`, `feedback failed`): the answer after is the first
    answer, not asked again (absent from every other row)."""
    call_after: NotRequired[str]
    """The journaled call the answer after came from (`record.call_id`): absent where that call failed, and in rows
    written before it was kept."""


RoundRates = dict[str, float | None]
"""`metrics.rates` of the feedback written after a round, with `round` and `feedback_failed` (batches with none)."""


def with_suggestions(messages: list[Message], suggestions: str) -> list[Message]:
    """Prompt 7: the same question, followed by the batch's suggestions (plain text, no JSON mode)."""
    last = messages[-1]
    note = SUGGESTION_NOTE.format(suggestions=suggestions)
    return [*messages[:-1], {**last, "content": f"{last['content']}\n\n{note}"}]


def open_finished(folder: str | Path) -> Run:
    run = load_run(folder)
    protocol = run_protocol_name(run.manifest, run.folder)  # runs from before protocols are JudgeAgent runs
    if protocol != "judgeagent":
        raise JudgeAgentError(f"run {folder} is {a_run_of(protocol)}: this step is JudgeAgent's; "
                              f"its report: judgeagent report {folder}")
    if not run.finished:
        raise JudgeAgentError(f"run {folder} is unfinished: complete it first with "
                              f"{finish_hint(run.folder, run.manifest)}")
    return run


def validate(folder: str | Path, *, registry: Any = None, cache_dir: str | Path | None = None, cache: bool = True,
             resamples: int = 2000, progress: Callable[[int, int], None] | None = None,
             all_rounds: bool = False, allow_model_change: bool = False) -> dict[str, Any]:
    """Validate a finished run; writes validation.jsonl and validation.json into its folder.

    `progress(done, total)` is called as each base question is answered both ways. `all_rounds` also validates
    the feedback the interviewer gives after each earlier round (the authors' `--eval_all_rounds`): round 0 from
    the base questions alone (the paper's w/o interactive extension), round r from the base questions and
    extension rounds 1..r; validation.json's `by_round` holds each round's rates, the last being the run's own.
    The run's models are asked again: where a name now resolves to another model (another server, other weights or
    settings), it refuses unless `allow_model_change`, and then records the change in the manifest."""
    from ...models import open_models
    from ...models.roles import hold_to_run
    from ...models.spec import load_registry
    from ..runner import refuse_inside_a_loop

    refuse_inside_a_loop("validate", "asyncio.to_thread(validate, ...)")

    protocol = run_protocol_name(load_manifest(Path(folder)), Path(folder))
    if protocol != "judgeagent":
        raise JudgeAgentError(f"validate re-answers with JudgeAgent's feedback; {folder} is {a_run_of(protocol)} "
                              f"(its report: judgeagent report {folder})")
    run = open_finished(folder)
    names = {role: m["name"] for role, m in run.manifest["models"].items()}
    registry = registry or load_registry()
    changes = hold_to_run(run.manifest["models"], registry, command="validate", folder=run.folder,
                          allow_change=allow_model_change)
    # Validation writes the run's journal and files: it takes the writer lock, so that a second one is
    # refused instead of repeating every call.
    with lock_run(run.folder):
        if changes:
            record_model_change(run, "validate", changes)
        with open_models(names["target"], names["interviewer"], names["judge"],
                         registry=registry, cache_dir=cache_dir, cache=cache,
                         journal=run.folder) as models:
            checker = run_checker(run, models.judge)
            rows, by_round = asyncio.run(_answer_both(run, models, checker, progress, all_rounds))
            usage = models.ledger.totals()
        result = summarise_validation(rows, read_feedback(run), resamples, run.manifest["config"]["seed"])
        if by_round is not None:
            result["by_round"] = by_round
        result["usage"] = usage
        write_text_atomic(run.folder / "validation.jsonl",
                          "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        write_json_atomic(run.folder / "validation.json", result)
    return result


def record_model_change(run: Run, command: str, changes: list[str]) -> None:
    """A later command that went on with other models (--allow-model-change) says so in the run's manifest."""
    from datetime import datetime, timezone

    entry = {"command": command, "at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "changes": changes}
    run.manifest["model_changes"] = [*run.manifest.get("model_changes", []), entry]
    write_json_atomic(run.folder / "manifest.json", run.manifest)


def run_checker(run: Run, judge: Any) -> AnswerChecker:
    """The checker the run graded with: its settings, its judge decision and its learned step, from the manifest.

    Runs written before checker settings were recorded get today's defaults with their F1 threshold,
    and use the judge as they did then.
    """
    config = run.manifest["config"]
    if "checker" in config:
        settings = CheckerConfig(**config["checker"])
        used = (run.manifest.get("judge_calibration") or {}).get("used", False)
    else:
        settings, used = CheckerConfig(f1_threshold=config.get("f1_threshold", 0.8), judge_policy="trust"), True
    base = [r for r in question_records(run) if r.stage == "grading"]
    others = other_golds([g for r in base for g in r.golds])
    note = "the judge is off" if settings.judge_policy == "off" else "the judge is not calibrated"
    from ...grading.equivalence import for_manifest

    return AnswerChecker(settings, judge if used else None, others, note, for_manifest(run.manifest.get("equivalence")))


async def _answer_all(run: Run, models: Any, checker: AnswerChecker,
                      progress: Callable[[int, int], None] | None = None, close: bool = True) -> list[ValidationRow]:
    try:
        jobs: list[Awaitable[ValidationRow]] = []
        records = question_records(run)
        together = run.manifest["config"].get("setting") == "authors"
        reuse = reuses_first_answers(run.manifest["config"])
        for entry in read_feedback(run):
            if entry.suggestions is None and not reuse:
                continue  # a batch whose feedback failed has nothing to validate
            # In record-id order, not the order answers finished in the run: the rows, and so the
            # bootstrap intervals drawn over them, are then the same for the same run.
            base = sorted((r for r in records if r.batch == entry.batch and r.stage == "grading"),
                          key=lambda r: r.record_id)
            reused = None if entry.suggestions is not None else reuse_reason(entry.feedback_error)
            if together:  # the batch asked again in one prompt, as it was asked (`together.py`)
                jobs.extend(_pairs_together(base, entry, models, checker, reused))
            else:
                jobs.extend(_pair(r, entry.suggestions, models, checker, reused) for r in base)
        done = 0

        async def counted(job: Awaitable[ValidationRow]) -> ValidationRow:
            nonlocal done
            row = await job
            done += 1
            if progress:
                progress(done, len(jobs))
            return row

        return await gather_all(*(counted(job) for job in jobs))
    finally:
        if close:
            await models.aclose()


async def _answer_both(run: Run, models: Any, checker: AnswerChecker, progress: Callable[[int, int], None] | None,
                       all_rounds: bool) -> tuple[list[ValidationRow], list[RoundRates] | None]:
    """The final validation's rows and, with `all_rounds`, each round's rates: on one event loop, whose clients
    are closed once both are done."""
    try:
        rows = await _answer_all(run, models, checker, progress, close=False)
        return rows, (await _every_round(run, models, checker, rows) if all_rounds else None)
    finally:
        await models.aclose()


async def _every_round(run: Run, models: Any, checker: AnswerChecker,
                       final: list[ValidationRow]) -> list[RoundRates]:
    """Rates of each round's feedback (rounds 0..R-1 asked now, from the run's own records; round R is the run's
    feedback, `final`). The answers without suggestions are the final validation's: Algorithm 2 asks them once."""
    config = run.manifest["config"]
    # setting=authors: every batch, each round's skipped or failed feedback validated with the first answers reused
    authors = reuses_first_answers(config)
    entries = [e for e in read_feedback(run) if e.feedback or authors]
    rounds = int(config.get("rounds", 0)) if config.get("extension", True) else 0
    plain = {(r["batch"], r["qid"]): r for r in final}
    records = question_records(run)
    out: list[RoundRates] = []
    for r in range(rounds):
        rows = await gather_all(*(_batch_at_round(records, models, checker, e, r, plain, authors) for e in entries))
        pairs = [p for batch in rows for p in batch.pairs]
        out.append({"round": r, "feedback_failed": sum(1 for b in rows if b.failed), **rates(pairs)})
        if authors:
            out[-1]["feedback_skipped"] = sum(1 for b in rows if b.skipped)
    last: RoundRates = {"round": rounds, "feedback_failed": 0, **rates([(x["before"], x["after"]) for x in final])}
    if authors:
        last["feedback_failed"] = sum(1 for e in entries if not e.feedback and e.feedback_error != ALL_RIGHT)
        last["feedback_skipped"] = sum(1 for e in entries if e.feedback_error == ALL_RIGHT)
    return [*out, last]


class AtRound(NamedTuple):
    """A batch's (before, after) pairs with the feedback of one round; `failed`: it had none to give (`skipped`:
    setting=authors asked none, the answers so far being all right)."""

    pairs: list[tuple[bool, bool]]
    failed: bool = False
    skipped: bool = False


async def _batch_at_round(records: list[QuestionRecord], models: Any, checker: AnswerChecker, entry: FeedbackEntry,
                          r: int, plain: dict[tuple[int, str | None], ValidationRow], authors: bool = False) -> AtRound:
    """One batch's (before, after) pairs with the feedback written from its records up to round `r`. `authors`:
    none asked on records all right, and the first answers reused where there is no feedback (authors.py)."""
    from .batch import transcript
    from .prompts import Feedback, feedback_messages

    b = entry.batch
    order = {q: i for i, q in enumerate(entry.qids)}
    mine = [x for x in records if x.batch == b and not x.held_out and x.stage in ("grading", "extension")
            and x.round <= r]
    mine.sort(key=lambda x: (x.round, order.get(x.qid, 0), x.record_id))
    base = [x for x in records if x.batch == b and x.stage == "grading"]
    before = [plain[(b, x.qid)]["before"] for x in sorted(base, key=lambda x: x.record_id)] if authors else []
    first = [(x, x) for x in before]
    if skips_feedback("authors" if authors else "ours", mine):
        return AtRound(first, skipped=True)
    reply = await models.interviewer.complete(feedback_messages(transcript(mine)), schema=Feedback)
    if not (reply.ok and isinstance(reply.parsed, Feedback)):
        return AtRound(first, failed=True)
    # the guard of evaluate, without its second request: a leaked gold is redacted
    suggestions = reply.parsed.suggestions
    found = leaked_strings(suggestions, [(x.gold, x.options, x.gold_letter) for x in base])
    suggestions = redact(suggestions, found) if found else suggestions

    together = None
    if base and base[0].batch_reply is not None:  # setting=authors: the batch in one prompt again
        together = (await again_together(models.target, base[0].prompt, len(entry.qids), suggestions)).answers

    async def after(record: QuestionRecord) -> tuple[bool, bool]:
        if together is None:
            helped = await models.target.complete(with_suggestions(record.prompt, suggestions))
            text: str | None = helped.text if helped.ok else ""
        else:
            text = together[order[record.qid]]
        verdict = await _check(checker, record, text)
        return plain[(b, record.qid)]["before"], verdict.correct

    return AtRound(list(await gather_all(*(after(x) for x in sorted(base, key=lambda x: x.record_id)))))


async def _pair(record: QuestionRecord, suggestions: str | None, models: Any, checker: AnswerChecker,
                reused: str | None = None) -> ValidationRow:
    """A base question answered plainly and with `suggestions`; None (setting=authors, `reused` says why): the
    plain answer stands for both, as the authors' requery reuses the first answers of a batch without feedback."""
    check = lambda reply: checker.check(record.question, record.golds, reply.text if reply.ok else "",  # noqa: E731
                                        options=record.options, gold_letter=record.gold_letter)
    sent = record.prompt if suggestions is None else with_suggestions(record.prompt, suggestions)
    if suggestions is None:
        plain = helped = await models.target.complete(record.prompt)
        before = after = await check(plain)
    else:
        plain, helped = await gather_all(models.target.complete(record.prompt), models.target.complete(sent))
        before, after = await gather_all(check(plain), check(helped))
    call = call_id(sent, helped.text) if helped.ok else None
    return _row(record, plain.text, helped.text, before, after, reused, call)


def _row(record: QuestionRecord, plain: str, helped: str, before: Verdict, after: Verdict,
         reused: str | None = None, call: str | None = None) -> ValidationRow:
    row: ValidationRow = {
        "qid": record.qid, "batch": record.batch, "difficulty": record.difficulty,
        "question_type": record.question_type, "held_out": record.held_out,
        "question": record.question, "gold": record.gold, "answer_before": plain,
        "answer_after": helped, "before": before.correct, "after": after.correct,
        "method_before": before.method, "method_after": after.method,
    }
    if reused:
        row["reused"] = reused
    if call:
        row["call_after"] = call
    return row


def _pairs_together(base: list[QuestionRecord], entry: FeedbackEntry, models: Any, checker: AnswerChecker,
                    reused: str | None = None) -> list[Awaitable[ValidationRow]]:
    """`setting=authors`: the batch's base questions asked again in one prompt, plainly (the run's own prompt: its
    journal gives back the run's answers, as the authors compare with the first answers) and with the suggestions
    (`REANSWER_PROMPT_*`): two calls a batch, each question's answers parsed from the two JSON replies. A batch
    without suggestions (`reused` says why) is asked plainly once, and that answer stands for both."""
    prompt, count, suggestions = base[0].prompt, len(entry.qids), entry.suggestions
    order = {qid: k for k, qid in enumerate(entry.qids)}
    asked: list[asyncio.Future[list[AskedAgain]]] = []

    async def both() -> list[AskedAgain]:
        if not asked:  # the first row to get here asks; the others wait for its answers
            plain = again_together(models.target, prompt, count)
            asked.append(asyncio.ensure_future(
                _twice(plain) if suggestions is None else
                gather_all(plain, again_together(models.target, prompt, count, suggestions))))
        return await asyncio.shield(asked[0])

    async def row(record: QuestionRecord) -> ValidationRow:
        first, again = await both()
        plain, helped = first.answers[order[record.qid]], again.answers[order[record.qid]]
        before, after = await gather_all(_check(checker, record, plain), _check(checker, record, helped))
        return _row(record, plain or "", helped or "", before, after, reused, again.call)


    return [row(r) for r in base]


async def _twice(answers: Awaitable[AskedAgain]) -> list[AskedAgain]:
    once = await answers
    return [once, once]


async def _check(checker: AnswerChecker, record: QuestionRecord, answer: str | None) -> Verdict:
    """A question's answer judged; None (the batch reply gave it none) is wrong without a look."""
    if answer is None:
        return no_answer()
    return await checker.check(record.question, record.golds, answer, options=record.options,
                               gold_letter=record.gold_letter)


def summarise_validation(rows: list[ValidationRow], feedback: list[FeedbackEntry], resamples: int = 2000,
                         seed: int = 0) -> dict[str, Any]:
    pairs = [(r["before"], r["after"]) for r in rows]
    reused = {why: len({r["batch"] for r in rows if r.get("reused") == why}) for why in ("all right", "feedback failed")}
    seen = [(r["before"], r["after"]) for r in rows if not r["held_out"]]
    held = [(r["before"], r["after"]) for r in rows if r["held_out"]]
    return {
        "overall": rates(pairs),
        "intervals": bootstrap(pairs, resamples, seed),
        "by_difficulty": _groups(rows, "difficulty", resamples, seed),
        "by_question_type": _groups(rows, "question_type", resamples, seed),
        "seen": rates(seen),
        "held_out": rates(held) if held else None,
        "held_out_intervals": bootstrap(held, resamples, seed) if held else None,
        "batches": len(feedback),
        "batches_without_feedback": sum(1 for f in feedback if not f.feedback),
        "leakage": {
            "batches_with_leaks": sum(1 for f in feedback if f.leakage.detected),
            "regenerated": sum(1 for f in feedback if f.leakage.regenerated),
            "redacted": sum(1 for f in feedback if f.leakage.redacted),
            "strings_caught": sum(len(f.leakage.detected) for f in feedback),
        },
        # setting=authors: batches without feedback, in N with their first answers (absent at `ours`: none)
        **({"batches_reused": reused} if any(reused.values()) else {}),
    }


def _groups(rows: list[ValidationRow], key: str, resamples: int, seed: int) -> dict[str, dict[str, Any]]:
    """`metrics.breakdown` by `key`, each group with its own 95% bootstrap `intervals` (Table 2's per-difficulty
    ACC1, ACC2, CR and CtE with their n and intervals)."""
    groups = breakdown(rows, key)
    for name, group in groups.items():
        pairs = [(r["before"], r["after"]) for r in rows if str(r.get(key) or "unlabelled") == name]
        group["intervals"] = bootstrap(pairs, resamples, seed)
    return groups


def render_validation(v: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.1f}"

    def ci(k: str, source: dict[str, Any] | None) -> str:
        iv = (source or {}).get(k)
        return "" if not iv else f" [{pct(iv[0])}, {pct(iv[1])}]"

    lines = ["validation (percent; 95% bootstrap intervals)"]
    o = v["overall"]
    lines.append(f"  n {o['n']}  ACC1 {pct(o['acc1'])}{ci('acc1', v['intervals'])}  ACC2 {pct(o['acc2'])}"
                 f"{ci('acc2', v['intervals'])}")
    lines.append(f"  CR {pct(o['cr'])}{ci('cr', v['intervals'])}  CtE {pct(o['cte'])}{ci('cte', v['intervals'])}  "
                 f"delta {pct(o['delta'])}{ci('delta', v['intervals'])}  McNemar p {o['mcnemar_p']:.3g}")
    lines.append(f"  CR | initially wrong {pct(o['cr_given_wrong'])}  CtE | initially right {pct(o['cte_given_right'])}")
    for name, group in (("difficulty", v["by_difficulty"]), ("question type", v["by_question_type"])):
        for key, r in group.items():
            lines.append(f"  {name} {key:<18} n {r['n']:>4}  ACC1 {pct(r['acc1'])}  ACC2 {pct(r['acc2'])}  "
                         f"CR {pct(r['cr'])}  CtE {pct(r['cte'])}")
    if v["held_out"]:
        s, h = v["seen"], v["held_out"]
        lines.append(f"  seen by the interviewer: n {s['n']} delta {pct(s['delta'])}; held out: n {h['n']} "
                     f"delta {pct(h['delta'])}")
    for r in v.get("by_round") or []:
        lines.append(f"  after round {r['round']}: n {r['n']}  ACC2 {pct(r['acc2'])}  CR {pct(r['cr'])}  "
                     f"CtE {pct(r['cte'])}  delta {pct(r['delta'])}"
                     + (f"  ({r['feedback_failed']} batches without feedback)" if r["feedback_failed"] else ""))
    reused = v.get("batches_reused")
    if reused:
        lines.append(f"  first answers reused (setting=authors): {reused['all right']} batches all right (no "
                     f"feedback asked), {reused['feedback failed']} whose feedback failed")
    leak = v["leakage"]
    lines.append(f"  leakage guard: {leak['batches_with_leaks']} of {v['batches']} batches caught, "
                 f"{leak['redacted']} redacted")
    return "\n".join(lines)
