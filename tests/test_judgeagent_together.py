"""`setting=authors`, how the target is asked (issue 45): the whole batch in one prompt, the answers parsed from a JSON
list as the authors' `_process_llm_answers` (DataArcTech/JudgeAgent@2b1b921, judge_agent.py) reads them, and on
QuALITY one batch per article with the article once (`stage_benchmark_grading`, `QTYPE.RMC`). Scripted targets
on loopback servers (the real client, journal and files); the QuALITY small split from ../shared/data."""
import json

from judgeagent import EvalConfig
from judgeagent.benchmark import attach_passages, load_benchmark
from judgeagent.config import CheckerConfig
from judgeagent.protocols.judgeagent.evaluate import evaluate
from judgeagent.protocols.judgeagent.together import NO_ANSWER, Question, batch_messages, parse_answers
from judgeagent.protocols.judgeagent.validate import validate
from tests.conftest import DATA
from tests.scripted import Roles, Script

QUALITY = DATA / "quality"
AUTHORS = EvalConfig(setting="authors", extension=False, checker=CheckerConfig(judge_policy="off"))


def test_answers_are_read_as_the_authors_read_them():
    """`_process_llm_answers` after their client's fence stripping: `json.loads(reply)["response"]`, each entry's
    `answer`; any failure loses every answer of the batch; missing ones are None, extra ones dropped. Seen to fail
    with the failure kept per entry (a non-object entry costing only its own answer) and without the fence strip."""
    reply = json.dumps({"response": [{"answer": "B"}, {"answer": "Paris"}, {"answer": "x"}]})
    assert parse_answers(reply, 2) == ["B", "Paris"]
    assert parse_answers(f"```json\n{reply}\n```", 3) == ["B", "Paris", "x"]
    assert parse_answers('{"response": [{"answer": "B"}]}', 3) == ["B", None, None]
    assert parse_answers('{"response": [{"answer": "B"}, "C"]}', 2) == [None, None]  # "C".get raises
    assert parse_answers('{"response": [{"answer": "B"}, {"choice": "C"}]}', 2) == ["B", None]
    assert parse_answers("The answers are B and C.", 2) == [None, None]
    assert parse_answers('{"answers": ["B", "C"]}', 2) == [None, None]
    assert parse_answers('{"response": [{"answer": 2}, {"answer": "C"}]}', 2) == [None, "C"]  # not text: no answer


def test_the_batch_prompt_carries_each_question_once_and_the_article_once():
    questions = [Question("Who wrote it?", {"A": "Ann", "B": "Bo"}), Question("Where?", {"A": "Rome", "B": "Oslo"})]
    (message,) = batch_messages(questions, "THE ARTICLE TEXT")
    text = message["content"]
    assert message["role"] == "user" and text.count("THE ARTICLE TEXT") == 1
    assert text.index("Question 1: Who wrote it?\nA. Ann\nB. Bo") < text.index("Question 2: Where?\nA. Rome")
    assert "letter" in text and '{"response": [' in text
    assert "short phrase" in batch_messages([Question("Who?")])[0]["content"]


def _quality(limit=None):
    docs = {d["doc_id"]: d["text"] for d in map(json.loads, (QUALITY / "small.docs.jsonl").read_text().splitlines())}
    return attach_passages(load_benchmark(QUALITY / "small.questions.jsonl", limit=limit), docs), docs


class Unparsable(Script):
    """Answers the batches in JSON, except the batch on one article: prose there."""

    def __init__(self, article: str, **kw):
        super().__init__(**kw)
        self.article = article

    def target(self, request):
        if self.article[:400] in request["messages"][-1]["content"]:
            return "Question 1: B. Question 2: C."
        return super().target(request)


def test_quality_under_the_authors_setting_one_call_per_article(tmp_path):
    """QuALITY small (3 articles, 26 questions): under `setting=authors` 3 target calls, each with one article once
    and its questions, in JSON mode; a record per question with the batch's reply; the article whose reply is not
    JSON has every question wrong, the others as the target answered. Validation asks each batch once more (with
    the suggestions); the plain answers come from the run's journal, and ACC1 is the graded answers. Seen to fail
    with the default batching (9 calls of 3 items, articles repeated) and with validation asking per question."""
    bench, docs = _quality()
    golds = {i.question: i.gold for i in bench.items}
    knows = {q for k, q in enumerate(golds) if k % 2 == 0}
    bad = docs["quality-52845"]
    with Roles(Unparsable(bad, target_right=knows)) as roles:
        roles.script.golds.update(golds)
        result = evaluate(bench, None, "tgt", interviewer="int", config=AUTHORS, run_dir=tmp_path / "run",
                          registry=roles.registry(), cache=False)
        asked = [b for b in roles.target.bodies]
        v = validate(result.folder, registry=roles.registry(), cache=False, resamples=100)
        again = roles.target.bodies[len(asked):]
    assert len(asked) == 3 and all(b["response_format"] == {"type": "json_object"} for b in asked)
    articles = set(docs.values())
    for body in asked:
        (message,) = body["messages"]
        assert sum(message["content"].count(a[:400]) for a in articles) == 1
    records = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    assert len(records) == 26 and len({r["batch"] for r in records}) == 3
    by_batch = {}
    for r in records:
        by_batch.setdefault(r["batch"], []).append(r)
        assert r["batch_reply"] and r["prompt"] == by_batch[r["batch"]][0]["prompt"]
    for rows in by_batch.values():
        assert len({bench.items[[i.qid for i in bench.items].index(r["qid"])].passage for r in rows}) == 1
        if bad[:400] in rows[0]["prompt"][0]["content"]:
            assert all(not r["correct"] and r["verdict"]["reason"] == NO_ANSWER and r["answer"] == "" for r in rows)
        else:
            assert all(r["correct"] == (r["question"] in knows) and len(r["answer"]) == 1 for r in rows)
    assert len(again) == 3 and all("left these suggestions" in b["messages"][0]["content"] for b in again)
    rows = [json.loads(x) for x in (result.folder / "validation.jsonl").read_text().splitlines()]
    assert {r["qid"]: r["before"] for r in rows} == {r["qid"]: r["correct"] for r in records}
    assert v["overall"]["n"] == 26


def test_a_batch_cut_short_resumes_without_asking_again(tmp_path):
    """A run stopped after writing only part of a batch's records: the resumed run asks the whole batch as before,
    so its journal answers (no target call), and writes the same records. Seen to fail with only the questions
    whose records are missing asked again (another prompt: a new call, and answers given in another company)."""
    bench, _ = _quality(limit=12)
    with Roles(Script(target_right=True)) as roles:
        roles.script.golds.update({i.question: i.gold for i in bench.items})
        folder = tmp_path / "run"
        evaluate(bench, None, "tgt", interviewer="int", config=AUTHORS, run_dir=folder, registry=roles.registry(),
                 cache=False)
        calls = roles.target.counts["requests"]
        lines = (folder / "records.jsonl").read_text().splitlines()
        last = json.loads(lines[-1])["batch"]
        kept = [x for x in lines if json.loads(x)["batch"] != last]
        (folder / "records.jsonl").write_text("\n".join([*kept, *[x for x in lines if x not in kept][:1]]) + "\n")
        for name in ("feedback.jsonl", "episodes.jsonl"):
            rows = (folder / name).read_text().splitlines()
            (folder / name).write_text("".join(x + "\n" for x in rows if json.loads(x).get("batch") != last))
        manifest = json.loads((folder / "manifest.json").read_text())
        (folder / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
        evaluate(bench, None, "tgt", interviewer="int", config=AUTHORS, run_dir=folder, registry=roles.registry(),
                 cache=False)
        assert roles.target.counts["requests"] == calls
    def kept_fields(text):  # the resumed records' tokens say `cached`: their answer came from the journal
        return sorted((r["record_id"], r["answer"], r["correct"], r["batch_reply"], json.dumps(r["prompt"]))
                      for r in map(json.loads, text.splitlines()))

    assert kept_fields((folder / "records.jsonl").read_text()) == kept_fields("\n".join(lines))


class Rounds(Script):
    """Suggestions that say how many extension questions the feedback saw: each round's differ."""

    def _feedback(self, prompt):
        reply = json.loads(super()._feedback(prompt))
        reply["suggestions"] += f" ({prompt.count('(extension,')} extension questions seen.)"
        return json.dumps(reply)


def test_extension_rounds_and_each_rounds_validation_ask_in_the_json_form(tmp_path, mhr_slice_graph):
    """The authors ask each extension question in the batch form too (`stage_interactive_extension`: a list of one,
    `_process_llm_answers`), and re-answer the batch in one prompt after each round's feedback (`--eval_all_rounds`).
    Seen to fail with the extension questions asked one plain call each (`ask` for them), and with `--all-rounds`
    re-answering per question."""
    from tests.test_evaluate import run

    config = EvalConfig(setting="authors", rounds=2, checker=CheckerConfig(judge_policy="off"))
    # a target wrong everywhere: under authors a batch answered all right gets no feedback (authors.py)
    with Roles(Rounds(target_right=False)) as roles:
        result = run(roles, tmp_path, mhr_slice_graph, config, limit=3)
        asked = list(roles.target.bodies)
        validate(result.folder, registry=roles.registry(), cache=False, all_rounds=True, resamples=100)
        again = roles.target.bodies[len(asked):]
    records = [json.loads(x) for x in (result.folder / "records.jsonl").read_text().splitlines()]
    extension = [r for r in records if r["stage"] == "extension"]
    assert len(records) == 5 and len(extension) == 2 and not any(r["correct"] for r in records)
    assert len(asked) == 3 and all(b["response_format"] == {"type": "json_object"} for b in asked + again)
    questions = [b["messages"][-1]["content"].count("\nQuestion ") + b["messages"][-1]["content"].startswith("Question")
                 for b in asked]
    assert sorted(questions) == [1, 1, 3]
    assert all(r["batch_reply"] and r["prompt"] in [b["messages"] for b in asked] for r in extension)
    # the final feedback's re-answer and rounds 0 and 1's: one call each, the three base questions together
    assert len(again) == 3 and all(b["messages"][-1]["content"].count("\nQuestion ") == 3 for b in again)


def test_the_estimate_counts_a_target_call_per_batch_and_round():
    """The dry run's target calls under `setting=authors`: a call per article's batch and one per round (QuALITY
    small: 3 articles); ours, a call per question. Seen to fail with the batches counted by `batch_size`."""
    from judgeagent.protocols.judgeagent.estimate import estimate_run

    bench, _ = _quality()
    authors = estimate_run(EvalConfig(setting="authors", rounds=2), bench.items)[0]
    ours = estimate_run(EvalConfig(rounds=2), bench.items)[0]
    assert (authors.calls_low, authors.calls_high) == (3, 9)
    assert (ours.calls_low, ours.calls_high) == (26, 26 + 6 * 2)


def test_the_inspect_export_shows_the_batch_call_each_answer_was_parsed_from(tmp_path):
    """Exported for Inspect, each question's sample shows the call that really asked it: the batch's prompt and the
    batch's JSON reply as the journal holds them (`journaled: true`), the question's own parsed answer beside it
    and as the sample's answer. Read back with inspect_ai's own reader. Seen to fail with the turn looked up in the
    journal by its shown prompt and parsed answer (no call matches: `journaled: false`, the batch reply missing)."""
    from inspect_ai.log import read_eval_log

    from judgeagent.models.cache import journal_calls
    from judgeagent.protocols import get_protocol
    from judgeagent.view.inspect_log import write_inspect_log

    bench, _ = _quality(limit=6)
    golds = {i.question: i.gold for i in bench.items}
    with Roles(Script(target_right=set(list(golds)[::2]))) as roles:
        roles.script.golds.update(golds)
        folder = evaluate(bench, None, "tgt", interviewer="int", config=AUTHORS, run_dir=tmp_path / "run",
                          registry=roles.registry(), cache=False).folder
        # the run's own batch calls, before validation asks each batch again
        batches = {c["text"]: c["messages"] for c in journal_calls(folder) if c["settings"].get("response_format")}
        validate(folder, registry=roles.registry(), cache=False, resamples=100)
    out, count = write_inspect_log(get_protocol("judgeagent"), folder, tmp_path / "log.json")
    log = read_eval_log(str(out))
    records = {r["record_id"]: r for r in map(json.loads, (folder / "records.jsonl").read_text().splitlines())}
    assert count == len(log.samples) == 6 and len(batches) == 2
    for sample in log.samples:
        record = records[sample.id]
        (event,) = [e for e in sample.events if e.event == "model" and e.role == "target"
                    and not e.metadata["step"].startswith("validation")]
        assert event.metadata["journaled"] is True
        assert [m.content for m in event.input] == [m["content"] for m in batches[record["batch_reply"]]]
        assert event.output.choices[0].message.content == record["batch_reply"]
        assert event.output.choices[0].message.metadata["answer"] == record["answer"]
        user, reply = [m for m in sample.messages if m.metadata and m.metadata.get("role") == "target"
                       and not str(m.metadata.get("step")).startswith("validation")]
        assert (user.content, reply.content) == (record["prompt"][-1]["content"], record["batch_reply"])
        assert record["question"] in user.content and sample.scores["correct"].answer == record["answer"]
        # the batch's feedback and its validation (the batch asked again with the suggestions, in one JSON call)
        # are the journal's calls too
        after = [e for e in sample.events if e.event == "model" and e.metadata["step"].startswith("validation")]
        feedback = [e for e in sample.events if e.event == "model" and e.role == "interviewer"]
        for event in after + feedback:
            assert event.metadata["journaled"] is True
            assert event.output.choices[0].message.content in {c["text"] for c in journal_calls(folder)}
        if not record["correct"]:
            assert after and feedback
