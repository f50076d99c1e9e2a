"""JudgeAgent `setting=authors`, the question side (DataArcTech/JudgeAgent@2b1b921): 4-option multiple-choice
extension questions on a multiple-choice benchmark (prompt.py `SOG_PROMPT_MC`), and one walk per batch from its most
frequent entity cut into one window per round (judge_agent.py:268, 480-536)."""
import json

from judgeagent import EvalConfig
from judgeagent.benchmark import load_benchmark
from judgeagent.graph.rooted import most_frequent, windows
from judgeagent.graph.sample import KnowledgePath
from judgeagent.protocols.judgeagent.choice_questions import GeneratedChoice, choice_rejection, gold_letter

PATH_TEXT = "The probe was launched in 1977 from Cape Canaveral aboard a Titan IIIE rocket."
GOOD = {"A": "Vandenberg", "B": "Baikonur", "C": "Cape Canaveral", "D": "Kourou"}


def _choice(options=GOOD, answer="C", question="From which launch site did the probe lift off?"):
    return GeneratedChoice(question=question, options=options, answer=answer)


def test_a_multiple_choice_question_passes_only_with_four_distinct_options_and_one_supported_gold_letter():
    """Each malformed form is turned down with its reason (seen to pass a 3-option question and a gold option
    the path does not state with the option count and support checks removed)."""
    assert choice_rejection(_choice(), PATH_TEXT, [], []) is None
    assert choice_rejection(_choice({"a.": "Vandenberg", "(B)": "Baikonur", "C": "Cape Canaveral", "D": "Kourou"}),
                            PATH_TEXT, [], []) is None  # keys as models write them
    three = {k: v for k, v in GOOD.items() if k != "D"}
    assert choice_rejection(_choice(three), PATH_TEXT, [], []) == "not exactly four options A-D"
    assert choice_rejection(_choice({**GOOD, "E": "Wallops"}), PATH_TEXT, [], []) == "not exactly four options A-D"
    assert choice_rejection(_choice({**GOOD, "B": "cape canaveral"}), PATH_TEXT, [], []) == "two options say the same"
    assert choice_rejection(_choice(answer="E"), PATH_TEXT, [], []) == "answer is not one option's letter"
    assert choice_rejection(_choice(answer="B"), PATH_TEXT, [], []) == "correct option not supported by the path text"
    assert choice_rejection(_choice(question="Was Cape Canaveral the launch site of the probe?"), PATH_TEXT, [], []) \
        == "answer appears in the question"
    asked = "From which launch site did the probe lift off in 1977?"
    assert choice_rejection(_choice(), PATH_TEXT, [asked], []) == "near-duplicate of a question already asked"
    assert [gold_letter(a, GOOD) for a in ("C", "(c)", "Option C", "Cape Canaveral", "E", "")] == \
        ["C", "C", "C", "C", None, None]


def _path(n):
    return KnowledgePath(question="q", seed="root", entities=[f"e{i}" for i in range(n)], entity_ids=list(range(n)),
                         chunk_ids=[f"c{i}" for i in range(n)], chunk_texts=[f"text {i}" for i in range(n)],
                         text="", hops=n, stopped_early=False, similarities=[0.5] * n)


def test_windows_are_the_authors_overlapping_cuts_of_one_walk():
    """judge_agent.py:529-536: windows of `sample_hop` (2) entries starting at 0, 1, ..., at most the rounds, none
    unless the walk is longer than one window (seen to fail with non-overlapping windows and with a 2-entity walk
    giving one window)."""
    cut = windows(_path(5), 2, 3)
    assert [w.entities for w in cut] == [["e0", "e1"], ["e1", "e2"], ["e2", "e3"]]
    assert [w.text for w in cut] == ["text 0\ntext 1", "text 1\ntext 2", "text 2\ntext 3"]
    assert [len(windows(_path(n), 2, 3)) for n in (1, 2, 3, 4)] == [0, 0, 2, 3]


def _multiple_choice(tmp_path, limit):
    """MultiHop-RAG's questions as 4-option items (gold at a rotating letter): a benchmark whose format, not its
    name, is multiple choice."""
    from tests.test_evaluate import MHR

    out = tmp_path / "mc.jsonl"
    with out.open("w") as f:
        for k, item in enumerate(load_benchmark(MHR, limit=limit).items):
            letter = "ABCD"[k % 4]
            wrong = iter(["Atlantis", "Lemuria", "Hyperborea"])
            options = {x: item.gold if x == letter else next(wrong) for x in "ABCD"}
            f.write(json.dumps({"qid": item.qid, "question": item.question, "answer": item.gold, "options": options,
                                "answer_letter": letter}) + "\n")
    return load_benchmark(out)


def test_the_authors_setting_asks_multiple_choice_on_one_walk_from_the_batchs_most_frequent_entity(tmp_path,
                                                                                                 mhr_slice_graph,
                                                                                                 monkeypatch):
    """A multiple-choice benchmark under `setting=authors`: each extension question has four options and a gold
    letter, goes to the target as multiple choice and is graded by its letter; a first reply with three options is
    turned down and asked again. The rounds' paths are the windows of one walk rooted at the entity the batch's
    questions mention most. Seen to fail with the form decided by `setting` alone (free text), with the option
    count check removed (a 3-option question asked), and with each round's path sampled afresh (ours). spaCy reads
    each base question once (`most_frequent`): seen to fail with the reader's seed read-ahead kept (issue 50)."""
    from judgeagent.config import CheckerConfig
    from judgeagent.entities import SpacyExtractor
    from judgeagent.graph.sample import PathSampler
    from judgeagent.protocols.judgeagent.evaluate import evaluate
    from tests.scripted import Roles, Script
    from tests.test_evaluate import records

    bench = _multiple_choice(tmp_path, 3)
    script = Script(target_right={i.question for i in bench.items})
    script.bad_choices = True
    read: list[str] = []
    extract = SpacyExtractor.extract
    monkeypatch.setattr(SpacyExtractor, "extract", lambda self, texts, progress=None: (
        read.extend(texts), extract(self, texts, progress))[1])
    config = EvalConfig(setting="authors", rounds=3, checker=CheckerConfig(judge_policy="off"))
    with Roles(script) as roles:
        for item in bench.items:
            script.golds[item.question] = item.gold
        result = evaluate(bench, mhr_slice_graph, "tgt", interviewer="int", config=config, run_dir=tmp_path / "run",
                          registry=roles.registry(), cache=False)
    base = [q for q in read if q in script.golds]
    assert base and len(base) == len(set(base))  # spaCy read each base question the walk roots on once
    rows = records(result.folder)
    ext = sorted((r for r in rows if r["stage"] == "extension"), key=lambda r: r["round"])
    assert [r["round"] for r in ext] == [1, 2, 3]
    for r in ext:
        assert sorted(r["options"]) == list("ABCD") and r["options"][r["gold_letter"]] == r["gold"]
        # under authors the round's questions go to the target in one JSON prompt (together.py), options listed
        asked = r["prompt"][-1]["content"]
        assert "exactly one right option: answer it with that option's letter" in asked and "\nA. " in asked
        assert r["verdict"]["method"] == "letter" and r["correct"] is False  # the target picks a wrong letter
    assert all("multiple-choice" in p for p in script.generation_prompts)
    feedback = json.loads((result.folder / "feedback.jsonl").read_text().splitlines()[0])
    assert [r["rejected"] for r in feedback["rounds"]] == [["not exactly four options A-D"]] * 3
    walk = ext[0]["path"]["walk"]
    assert len(walk) == 5 and all(r["path"]["walk"] == walk for r in ext)  # hops 2 + rounds 3
    assert [r["path"]["entities"] for r in ext] == [walk[0:2], walk[1:3], walk[2:4]]
    root = most_frequent(PathSampler(mhr_slice_graph), [i.question for i in bench.items])
    assert root is not None and walk[0] == mhr_slice_graph.entity_names[root.entity]
