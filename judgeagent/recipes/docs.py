"""docs/reproduce.md, written from the catalogue (`scripts/reproduce_reference.py`), so the two cannot drift."""
from __future__ import annotations

from ..benchmarks import FORMATS
from . import RECIPES, _many, estimate_calls, whole_run_items

PAPERS = {
    "KIEval (Yu et al., ACL 2024)": (
        "Reproducible here: the whole protocol (interactor, candidate, evaluator; 5 rounds; the paper's decaying "
        "weights and early stop, `scoring=paper`) on the five benchmarks of Table 2, read from their native files. "
        "Needs your API models: the interactor and evaluator (the paper: gpt-4-1106-preview) and the candidates. "
        "Cost: the paper reports about 27 USD per candidate and dataset with GPT-4 in both roles (Table 9; "
        "557k+28k interactor and 1546k+203k evaluator tokens, Table 11)."),
    "Teach2Eval": (
        "Reproducible here: the teaching loop (3 turns, 4 students) and the paper's scoring (`scoring=paper`) on "
        "the authors' unified JSON. Needs: the teacher (your model) and the four weak students (local or served "
        "models: Llama-3.2-1B, Qwen2.5-1.5B, MiniCPM-2B, InternLM2.5-1.8B). Cost: student calls dominate; "
        "they run on your own GPU in the paper."),
    "LLM-as-an-Interviewer (Kim et al., 2024)": (
        "Reproducible here: seed question, feedback and revision (Acc_seed@1-3), follow-ups and adaptivity on "
        "MATH, 100 queries balanced over the levels. DepthQA is on Hugging Face only (`FORMAT:hf:` route). "
        "Needs your API models: the interviewer and judge (the paper: GPT-4o) and the interviewees."),
    "DynaEval (ICLR 2024 submission)": (
        "Reproducible here: the public goods game in both modes with 10 repeated games (the paper reports it as "
        "a box plot only, so there is no published row to compare with), and machine translation EN-ZH on "
        "IWSLT 2017 (Table 3): the recipe pairs each English segment with its reference from the reverse archive, "
        "joins them into paragraphs and writes the task's sources file; and code generation and review on MBPP's "
        "test split (Table 2, with Pass@1 per round as Figure 4 plots it): the task reads MBPP's own mbpp.jsonl and "
        "runs every programmer turn's code against MBPP's asserts in the sandbox (bubblewrap). Needs your API "
        "models: the players and the referee (the paper: ChatGPT, GPT-4, Claude 2, PaLM)."),
    "JudgeAgent": (
        "Reproducible here: benchmark grading, graph-driven extension (3 rounds) and feedback, then `validate` "
        "for ACC1/ACC2/CR/CtE; and Table 3's three ablations on MedQA with the protocol's own options "
        "(`graph=false`, `fixed_difficulty=medium`, `extension=false`), one recipe each. Needs: a context graph of the benchmark's knowledge base (MedQA's textbooks, the "
        "MultiHop-RAG corpus, the QuALITY articles; `judgeagent build-graph`) and your API models (the paper: "
        "gpt-4.1 as interviewer and judge)."),
}


def render_docs() -> str:
    lines = ["# Reproducing the papers' headline experiments", "",
             "<!-- Written by scripts/reproduce_reference.py from judgeagent/recipes; do not edit by hand. -->", "",
             "`judgeagent recipes` lists the experiments below; `judgeagent reproduce NAME --role ROLE=MODEL "
             "--data PATH` runs one with the paper's settings and writes `reproduce.md` into the run folder: our "
             "numbers under the paper's published rows (all of them; `--paper-row MODEL` keeps one), then each of "
             "our figures with its 95% interval (the run's own: bootstrap or mean intervals, Wilson's for a share "
             "of n items) and the n it is over, the judge's calibration outcome, and the models and options run. "
             "When a figure rests on a judge that failed or skipped calibration, a warning above the table names "
             "it. `--dry-run` prints the "
             "items, calls, tokens and cost first; `--limit N` runs a smaller sample of the paper's items; `-o KEY=VALUE` "
             "changes one of the recipe's settings (a protocol option), and `reproduce.md` then lists each change "
             "beside the paper's setting under the table.", "",
             "## Benchmarks in their native formats", "",
             "`--benchmark FORMAT:PATH` (evaluate) and `--data` (reproduce) read a benchmark as its publisher ships "
             "it. The format is named, never guessed from the file: a plain path keeps the generic loader "
             "(jsonl/json/csv/parquet with `--field`). `FORMAT:PATH#SUBSET` picks a subset (IWSLT's `#tst2016`); "
             "`FORMAT:hf:SOURCE[#CONFIG/SPLIT]` reads through Hugging Face `datasets` (a hub id when online, or a "
             "local parquet/arrow file or `save_to_disk` folder; `pip install judgeagent[hf]`), and `hf:SOURCE` "
             "alone uses the generic fields. Subjects, levels and difficulties go into each item's `meta`.", "",
             "| format | benchmark | PATH |", "|---|---|---|"]
    lines += [f"| `{f.name}` | {f.title} | {f.path_help} |" for f in FORMATS.values()]
    lines += ["", "Every record's fields are checked before they are read (typed models in "
              "`judgeagent/benchmarks/records.py`): a field of the wrong shape is one line naming the file, the line "
              "and the field, e.g. `test.jsonl:12: field 'options' should be an object of letter -> text, got a "
              "string`, or `Set.json[3]: field 'label' should be a list of letters, got a number`. Lists of options, "
              "endings or tests given as a string are refused, never read one character each; a gold answer that "
              "is a JSON object is refused; more than ten options (A-J) is one line. CSV cells longer than the csv "
              "module's 131,072-character default are read (the limit is raised to the file's length while it is "
              "read). `hf:` on a local .jsonl/.json/.csv file that is not UTF-8 is `FILE:LINE: not valid UTF-8`. "
              "tests/test_fuzz_loaders.py checks every loader with generated damage (Hypothesis): items or one such "
              "line, never a traceback."]
    lines += ["", "Chinese text (C-Eval, Teach2Eval's Chinese sets, IWSLT EN-ZH) is checked character by character: "
              "each CJK character is a token for normalisation, token F1 and the containment rules, and option "
              "letters are read from Chinese replies (答案是C, 选B). No segmenter is needed (the `zh-core-web-sm` "
              "package on the index is an empty placeholder).", ""]
    for paper, prose in PAPERS.items():
        lines += [f"## {paper}", "", prose, ""]
        for r in (r for r in RECIPES.values() if r.paper == paper):
            low, high = estimate_calls(r, whole_run_items(r), _many(r))
            target = next(role for role, m in r.roles.items() if m == "{target}")
            data = f" --data {r.data.split(' ')[0].split(':', 1)[-1]}" if r.data_format else (
                " --data QUESTIONS.jsonl" if r.protocol == "judgeagent" else "")
            graph = " --graph GRAPH" if r.needs else ""
            lines += [f"### {r.name}", "", r.experiment, "",
                      "```", f"judgeagent reproduce {r.name} --role {target}=YOUR_MODEL{data}{graph} --dry-run", "```", "",
                      f"- protocol `{r.protocol}`, options: " + ", ".join(f"`{k}={v}`" for k, v in r.options.items()),
                      "- roles (the paper's models): " + ", ".join(f"{k}={v}" for k, v in r.roles.items()),
                      f"- data: `{r.data}`; items: {'all' if r.items is None else f'{r.items} ({r.selection})'}",
                      f"- expected calls: {low}-{high}" + (
                          f", ~{r.calls.tokens_per_call[0]}+{r.calls.tokens_per_call[1]} tokens a call (the paper's "
                          "figures)" if r.calls.tokens_per_call else ""),
                      "- published: " + (f"{r.published.table}, columns " + ", ".join(c.name for c in r.published.columns)
                                         + "; rows " + ", ".join(r.published.rows) if r.published else "none")]
            lines += [f"- needs: {n}" for n in r.needs]
            lines += [f"- missing here: {m}" for m in r.missing]
            lines += [f"- differs: {d}" for d in r.differs]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
