"""The papers' headline experiments as data: protocol, roles, data, item count, options, and the published row.

Published figures are copied from the papers (shared/seeds) with their table; `ours` says which number of
our run's summary stands beside each published column (a dotted path, and a factor to the paper's unit).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypedDict


@dataclass(frozen=True)
class Column:
    name: str
    """The paper's column header."""
    ours: str | None
    """Where our figure is: a dotted path into the run's summary (`validation.` for JudgeAgent's validate),
    or None when we measure nothing comparable."""
    scale: float = 100.0
    """Our figure times this is in the paper's unit (fractions -> percent)."""
    note: str = ""
    n: str | None = None
    """Where the count our figure is over is (a dotted path, `{seat}` as in `ours`): reproduce.md prints it."""
    interval: str | None = None
    """Our figure's 95% interval: a dotted path to [low, high] in the summary (the figure's unit), `wilson` (the
    figure is a share of `n`: its Wilson interval), or None where the run gives none."""
    judged: bool = False
    """The figure rests on the judge (evaluator): a failed or skipped calibration is warned beside it."""


@dataclass(frozen=True)
class Published:
    table: str
    columns: tuple[Column, ...]
    rows: dict[str, tuple[float | None, ...]]
    """Model as the paper names it -> its figures, in column order."""


@dataclass(frozen=True)
class Calls:
    """Expected model calls, low-high: `fixed` + `per_item` x items + `per_student` x students x items (x 1 when
    the recipe has no items: DynaEval's players, per game)."""

    per_item: tuple[float, float]
    fixed: tuple[float, float] = (0, 0)
    per_student: tuple[float, float] = (0, 0)
    per_pair: tuple[float, float] = (0, 0)
    """Asymmetric games: calls per ordered pair of players and repetition (each pair plays both ways)."""
    runs: tuple[int, int] = (1, 1)
    """Repetitions, fewest-most (a run stops once the scores converge)."""
    tokens_per_call: tuple[int, int] | None = None
    """Prompt and completion tokens of an average call, where the paper reports them."""
    typical_per_item: float | None = None
    """Calls an item makes when every stage runs once as planned (no retry, no skip), where a single figure says more
    than the range: the dry run prints it, with every calibration pair, beside low-high."""
    calibration: bool = False
    """The run probes its judge first (`CheckerConfig.calibration_pairs`, 40 pairs), as many calls as the
    judge_policy asks: all with `trust`, 0-40 with `calibrated` (it stops once the judge cannot pass), none
    with `off` (the recipe's policy, or the one `-o` gives)."""


OptionValue = str | int | float | bool
"""A protocol option's value as a recipe or `-o KEY=VALUE` gives it (the protocol's Config parses it)."""


class RecipeExtra(TypedDict, total=False):
    """What a recipe keeps beside its options, for the catalogue and the call estimate."""

    models: tuple[str, ...]
    """The models of the paper's table (KIEval)."""
    players: tuple[str, ...]
    """DynaEval: the paper's players (the estimate counts its pairs)."""
    paragraph_segments: int
    """DynaEval translation: IWSLT segments joined into one paragraph."""


@dataclass(frozen=True)
class Recipe:
    name: str
    paper: str
    experiment: str
    protocol: str
    roles: dict[str, str]
    """Role -> the model the paper used there; `{target}` marks the model(s) under evaluation."""
    data: str
    """What `--data` is, with the format: `FORMAT:PATH` of the paper's data as published."""
    data_format: str | None
    items: int | None
    """Items the paper used (None: all, or no benchmark)."""
    selection: str
    """How the items are picked: `all`, `sample` (seeded random) or `stratified:<meta key>`."""
    options: dict[str, OptionValue]
    published: Published | None
    calls: Calls
    differs: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    """Parts of the paper's setup this tool does not have yet (the recipe runs without them)."""
    needs: tuple[str, ...] = ()
    """Inputs beyond the data (e.g. a graph) and where they come from."""
    extra: RecipeExtra = field(default_factory=lambda: RecipeExtra())
    data_items: int | None = None
    """Items in the paper's data, where the recipe takes all of them (`items` None): what `judgeagent recipes`
    estimates the calls of a whole run from."""


# --- KIEval (Yu et al., ACL 2024), Table 2 -------------------------------------------------------------

_KIEVAL_MODELS = ("GPT-3.5", "LLaMA2 70B", "LLaMA2 13B", "LLaMA2 7B", "Mistral 7B", "Yi 6B", "MPT 7B")
# Table 2, per model: ARC-E, ARC-C, MMLU, HellaSwag, C-Eval, each (Acc., KIEval, Rnds.)
_KIEVAL_T2 = {
    "GPT-3.5": (92.7, 97.6, 4.97, 82.3, 95.5, 4.94, 58.2, 96.2, 4.95, 76.6, 88.2, 4.82, 50.8, 83.3, 4.72),
    "LLaMA2 70B": (92.3, 90.7, 4.85, 80.4, 84.1, 4.66, 61.8, 89.6, 4.80, 74.4, 80.1, 4.41, 42.0, 61.0, 3.94),
    "LLaMA2 13B": (81.9, 86.2, 4.70, 65.7, 78.6, 4.56, 52.1, 87.4, 4.76, 59.3, 78.5, 4.66, 37.8, 54.4, 3.74),
    "LLaMA2 7B": (73.6, 78.9, 4.49, 55.7, 74.4, 4.44, 44.5, 83.0, 4.61, 39.8, 76.4, 4.54, 33.4, 49.3, 3.62),
    "Mistral 7B": (83.5, 80.8, 4.64, 67.5, 78.5, 4.46, 52.7, 83.0, 4.62, 54.4, 70.3, 4.34, 39.3, 52.2, 3.61),
    "Yi 6B": (90.7, 83.8, 4.58, 79.0, 76.8, 4.33, 61.9, 86.5, 4.58, 73.7, 68.7, 4.20, 71.5, 55.6, 3.66),
    "MPT 7B": (53.3, 68.4, 4.34, 43.4, 65.5, 4.33, 33.9, 74.7, 4.46, 27.3, 57.3, 4.10, 26.2, 44.9, 3.52),
}
_KIEVAL_SETS = (  # name, title, format, data as published, items in the split
    ("arc-easy", "ARC-Easy", "arc", "arc:ARC-V1-Feb2018/ARC-Easy/ARC-Easy-Test.jsonl", 2376),
    ("arc-challenge", "ARC-Challenge", "arc", "arc:ARC-V1-Feb2018/ARC-Challenge/ARC-Challenge-Test.jsonl", 1172),
    ("mmlu", "MMLU", "mmlu", "mmlu:data/test (the 57 <subject>_test.csv of Berkeley's data.tar)", 14042),
    ("hellaswag", "HellaSwag", "hellaswag", "hellaswag:hellaswag_val.jsonl", 10042),
    ("ceval", "C-Eval", "ceval", "ceval:val (the 52 <subject>_val.csv with subject_mapping.json)", 1346),
)


def _kieval(index: int) -> Recipe:
    key, title, fmt, data, _ = _KIEVAL_SETS[index]
    columns = (Column("Acc.", "benchmark_accuracy", note="5-shot: the candidate's generated answer, its letter read "
                      "and checked, as the authors' simple_multiple_choice step does", n="conversations",
                      interval="wilson"),
               Column("KIEval", "kieval.overall", n="scored_conversations", interval="intervals.kieval", judged=True),
               Column("Rnds.", "valid_rounds", 1.0, n="conversations", interval="intervals.valid_rounds",
                      judged=True))
    rows = {m: v[3 * index:3 * index + 3] for m, v in _KIEVAL_T2.items()}
    return Recipe(
        name=f"kieval-table2-{key}", paper="KIEval (Yu et al., ACL 2024)",
        experiment=f"Table 2, {title} columns: KIEval score and valid rounds of each candidate, 200 items, 5 rounds",
        protocol="kieval", roles={"candidate": "{target}", "interactor": "gpt-4-1106-preview",
                                  "evaluator": "gpt-4-1106-preview"},
        data=data, data_format=fmt, items=200, selection="sample",
        options={"rounds": 5, "scoring": "paper", "judge_policy": "trust", "shots": 5},
        published=Published("Table 2", columns, rows),
        # 2 verification answers and the candidate's answer, then per round a question, a reply and an
        # evaluation (5 rounds: 18); up to 24 as measured on a loopback run (the evaluator's extra calls); and
        # the evaluator's calibration first: judge_policy=trust asks all 40 pairs (no early stop, issue 45)
        calls=Calls(per_item=(3, 24), calibration=True, tokens_per_call=(1050, 115)),
        differs=("Acc. is 5-shot as the paper's: the authors generate an answer and parse its letter "
                 "(simple_multiple_choice.py); their 5 examples come from the train split, ours from the run's other "
                 "items (seeded per item), so a run needs 6 items or more.",
                 "Items are verified live (verify=true: the interactor and the evaluator answer each first, 2 calls "
                 "an item); the authors filter by their published list of items GPT-4 solved "
                 "(validated_problems_gpt-4-1106-preview.json), which the project's offline data does not ship, "
                 "so ours may keep other items (docs/protocols.md).",
                 "judge_policy=trust: the paper has no judge calibration step; ours probes the evaluator (40 calls, in "
                 "the estimate) and uses it whatever the outcome, which reproduce.md reports.",
                 "The paper's 200 items per set are its own draw; ours are a seeded sample (seed 0) of the file."),
        extra={"models": _KIEVAL_MODELS})


# --- Teach2Eval, Table 2 --------------------------------------------------------------------------------

_T2E_ROWS = {  # Table 2: Comprehensive, Application, Judgment, Guidance, Reflection (the first five columns)
    "Qwen2.5-72B-Instruct": (10.07, 78.91, 74.49, 20.89, 3.74),
    "DeepSeek-V3": (9.84, 75.20, 73.78, 19.45, 5.05),
    "DeepSeek-R1-Distill-Llama-70B": (9.54, 76.46, 73.79, 18.80, 3.51),
    "DeepSeek-R1-Distill-Qwen-32B": (8.68, 77.56, 75.00, 16.67, 3.62),
    "GPT-4o-0806": (8.55, 76.97, 75.70, 15.60, 6.86),
    "DeepSeek-R1-Distill-Qwen-14B": (8.31, 75.03, 72.52, 16.71, 2.91),
    "Llama-3.3-70B-Instruct": (7.97, 77.69, 75.05, 13.27, 5.74),
    "Phi-4": (7.69, 76.58, 73.20, 15.53, 3.14),
    "Qwen2.5-32B-Instruct": (6.85, 79.23, 74.09, 14.33, 3.74),
    "Qwen2.5-7B-Instruct": (3.93, 72.26, 66.95, 9.93, 1.96),
    "Llama-3.1-8B-Instruct": (1.79, 62.37, 54.12, 10.13, 0.55),
    "Gemma-2-9b-it": (1.70, 65.63, 64.77, 7.79, 0.40),
}

TEACH2EVAL_MAIN = Recipe(
    name="teach2eval-main", paper="Teach2Eval",
    experiment="Table 2: the teacher's Comprehensive, Application, Judgment, Guidance and Reflection abilities, "
               "4 weak students, 3 turns, 60 datasets as MCQ",
    protocol="teach2eval",
    roles={"teacher": "{target}", "students": "Llama-3.2-1B-Instruct,Qwen2.5-1.5B-Instruct,MiniCPM-2B,internlm2.5-1.8b"},
    data="teach2eval:Teach2Eval/dataset/dataset_test (the authors' unified JSON, 60 files)", data_format="teach2eval",
    items=15000, selection="all",
    # tell_answer: the authors' runs let the teacher state the answer (main.sh: can_tell_answer="True")
    options={"turns": 3, "scoring": "paper", "max_tokens": 2048, "tell_answer": True},
    published=Published("Table 2", tuple(Column(k, f"abilities.{k}.value", n="items",
                                                interval=f"abilities.{k}.interval")
                                         for k in ("CA", "AA", "JA", "GA", "RA")), _T2E_ROWS),
    # the teacher answers each item once (AA); per student: a right first answer takes 2 calls (answer,
    # judgment), a wrong one up to 2T+1 (T+1 answers, T teacher turns)
    calls=Calls(per_item=(1, 1), per_student=(2, 7)),
    differs=("Table 2 has four more columns whose header the text extraction lost (per-domain CA, our reading); "
             "they are not stored.",
             "The paper samples 15,000 items from 60 datasets; the shared copy has 21 of the 60 files.",
             "Students run at temperature 0 in the paper (vLLM 0.6.4); set it in the students' model config.",
             "The teacher is shown the text of the option the student chose (ours; the authors' teacher sees the "
             "student's solution only, without the options)."),
)

# --- LLM-as-an-Interviewer, Table 4 (MATH) --------------------------------------------------------------

INTERVIEWER_MATH = Recipe(
    name="interviewer-math", paper="LLM-as-an-Interviewer (Kim et al., 2024)",
    experiment="Table 4: Acc_seed@1-3, adaptivity and follow-up accuracy of interviewees on MATH, GPT-4o "
               "interviewing, 100 queries balanced over the 5 levels",
    protocol="interviewer", roles={"target": "{target}", "interviewer": "gpt-4o", "judge": "gpt-4o"},
    data="math:MATH/test (the per-problem JSON files) or a jsonl of them", data_format="math",
    items=100, selection="stratified:level",
    # the paper's and the authors' setup (interview_math.sh: --init_action unclarifying, --state_threshold 3): one
    # piece of information removed, up to 3 clarifications, 3 answers, 1 follow-up; replies up to 4096 tokens (the
    # authors send no max_tokens; the model registry's default 512 cuts long MATH solutions before their \boxed{})
    options={"modification": "unclarifying", "clarifications": 3, "revisions": 2, "followups": 1,
             "reply_tokens": 4096},
    published=Published("Table 4", (
        *(Column(f"Acc_seed@{k}", f"score_at.@{k}", 1.0, n="items", interval="wilson") for k in (1, 2, 3)),
        Column("Adapt.", "adaptability", 1.0, n="items"),
        # the follow-ups are the judge's verdicts (the protocol's trust mark `followup`)
        Column("Rationale", "followup.by_kind.rationale.score", 1.0, n="followup.by_kind.rationale.n",
               interval="wilson", judged=True),
        Column("Clarification", "followup.by_kind.clarification.score", 1.0, n="followup.by_kind.clarification.n",
               interval="wilson", judged=True),
        Column("Acc_follow", "followup.all.score", 1.0, n="followup.all.n", interval="wilson", judged=True)), {
        "GPT-4o": (0.72, 0.82, 0.84, 0.12, 0.99, 0.17, 0.93),
        "GPT-3.5": (0.39, 0.54, 0.64, 0.25, 0.90, 0.56, 0.82),
        "Llama3.1-70b": (0.50, 0.68, 0.76, 0.26, 0.91, 0.22, 0.84),
        "Llama3.1-8B": (0.58, 0.68, 0.75, 0.17, 0.89, 0.07, 0.76),
        "deepseek": (0.29, 0.53, 0.61, 0.32, 0.82, 0.38, 0.69),
        "qwen": (0.59, 0.73, 0.75, 0.16, 0.90, 0.08, 0.78)}),
    calls=Calls(per_item=(8, 20), calibration=True),
    differs=("The judge is calibrated first by default (up to 40 calls); the paper has no such step.",
             "Table 4 has seven interviewees; the text extraction kept six rows."),
)

# --- DynaEval, public goods game ------------------------------------------------------------------------


def _dynaeval_pgg(mode: int) -> Recipe:
    return Recipe(
        name=f"dynaeval-public-goods{'' if mode == 1 else '-mode2'}", paper="DynaEval (ICLR 2024 submission)",
        experiment=f"Section 3.2 / Figure 3: public goods game, mode {mode}, 10 repeated games, the payoff of "
                   "each LLM at the end",
        protocol="dynaeval", roles={"players": "{target}", "referee": "gpt-4"},
        data="none: the game needs no dataset", data_format=None, items=None, selection="all",
        options={"task": "public_goods", "mode": mode, "min_runs": 10, "max_runs": 10},
        # each player answers once a round, 5 rounds x 10 games, and the referee reads each answer (a reply read
        # before is answered from the run's journal: a run whose players repeat themselves makes fewer calls)
        published=None, calls=Calls(per_item=(0, 0), per_student=(100, 100)),
        differs=("The paper shows the payoffs as a box plot (Figure 3) and prints no table: nothing to put beside "
                 "our numbers.", "Endowment, multiplier and rounds are our defaults (10 coins, x1.5, 5 rounds); "
                 "the paper's prompts do not fix them in the text we have."),
        extra={"players": ("ChatGPT", "GPT-4", "Claude-2", "PaLM")})


# --- DynaEval, machine translation (IWSLT 2017 EN-ZH), Table 3 ----------------------------------------

DYNAEVAL_TRANSLATION = Recipe(
    name="dynaeval-translation-en-zh", paper="DynaEval (ICLR 2024 submission)",
    experiment="Table 3: machine translation English to Chinese, every pair of models as translator and "
               "proofreader both ways, rated by the referee (1-10)",
    protocol="dynaeval", roles={"players": "{target}", "referee": "gpt-4"},
    data="iwslt:texts/en/zh/en-zh.tgz (WIT3's 2017-01-ted-test archives; the references are in zh-en.tgz)",
    data_format="iwslt", items=None, selection="all",
    options={"task": "translation", "source_language": "English", "target_language": "Chinese"},
    published=Published("Table 3", (
        Column("s_T", "matrix.{seat}.translator.mean", 1.0, "the referee's rating of the games it translated",
               n="matrix.{seat}.translator.n", interval="matrix.{seat}.translator.interval", judged=True),
        Column("b_T", "role_measures.{seat}.translator.BLEU", 1.0, "BLEU (0-1, sacrebleu) of its translations"),
        Column("s_Pr", "matrix.{seat}.proofreader.mean", 1.0, "the rating of the games it proofread",
               n="matrix.{seat}.proofreader.n", interval="matrix.{seat}.proofreader.interval", judged=True),
        Column("b_Pr", "role_measures.{seat}.proofreader.BLEU", 1.0, "BLEU of its proofread versions")), {
        "GPT-4": (7.83, 0.274, 8.98, 0.292), "ChatGPT": (7.93, 0.285, 9.09, 0.295),
        "Claude 2": (7.78, 0.277, 9.03, 0.292)}),
    # a game: the translation, one polish, the referee's ratings; one game per paragraph and ordered pair
    # (repeat=fixed, the paper's: every paragraph once)
    calls=Calls(per_item=(0, 0), per_pair=(2, 4), runs=(1, 1)),
    differs=("The paper splits the talks into paragraph-level segments; we join 5 consecutive segments of a talk "
             "into one paragraph (and their references likewise).",
             "s_T and s_Pr are the referee's separate ratings of each role (scoring=paper), a model's mean over the "
             "games it translated and proofread; BLEU is sentence-level per game, averaged.",
             "The paper's test-set size is not stated; ours plays `items` (20) paragraphs, a seeded sample."),
    extra={"players": ("GPT-4", "ChatGPT", "Claude 2"), "paragraph_segments": 5},
    data_items=1459,  # the segments of tst2017 en-zh
)

# --- DynaEval, code generation and review (MBPP), Table 2 ----------------------------------------------

DYNAEVAL_CODE = Recipe(
    name="dynaeval-code-mbpp", paper="DynaEval (ICLR 2024 submission)",
    experiment="Table 2 and Figure 4: code generation and review on MBPP's test set, every pair of models as "
               "programmer and reviewer both ways, both rated by the referee (1-10), Pass@1 per round",
    protocol="dynaeval", roles={"players": "{target}", "referee": "gpt-4"},
    data="mbpp:mbpp.jsonl (Austin et al.'s file; the game plays its test split, task_ids 11-510)",
    data_format="mbpp", items=500, selection="all",
    options={"task": "code", "scoring": "paper"},
    published=Published("Table 2", (
        Column("s_P", "matrix.{seat}.programmer.mean", 1.0, "the referee's rating of the games it programmed, "
               "averaged over reviewers (the table's bottom row)", n="matrix.{seat}.programmer.n",
               interval="matrix.{seat}.programmer.interval", judged=True),
        Column("s_R", "matrix.{seat}.reviewer.mean", 1.0, "the rating of the games it reviewed (its last column)",
               n="matrix.{seat}.reviewer.n", interval="matrix.{seat}.reviewer.interval", judged=True),
        Column("Pass@1", "role_measures.{seat}.programmer.pass@1 round 3", 100.0,
               "the code standing after the programmer's last revision passes MBPP's tests (the paper shows "
               "Pass@K only as curves, Figure 4)")), {
        "GPT-4": (8.97, 8.77, None), "ChatGPT": (8.85, 8.74, None), "Claude 2": (8.86, 8.74, None),
        "PaLM": (8.65, 8.52, None)}),
    # a game: the programmer's code, then up to 2 reviews each answered by a revision, the referee's rating;
    # one game per problem and ordered pair
    calls=Calls(per_item=(0, 0), per_pair=(2, 6)),
    differs=("The programmer is shown MBPP's three asserts with the description (Austin et al.'s usual prompt: the "
             "tests call a function by name); the paper's Figure 11 shows the description alone.",
             "Pass@1 per round from one sample per round (K = 1), run in the sandbox; the paper plots Pass@K.",
             "`--limit N` plays a seeded sample of N test problems; the paper plays all 500."),
    extra={"players": ("GPT-4", "ChatGPT", "Claude 2", "PaLM")},
)

# --- JudgeAgent, Tables 1 and 2 -------------------------------------------------------------------------

# validate grades with the run's judge where its calibration let it: every figure rests on the judge
_JA_COLUMNS = tuple(Column(name, f"validation.overall.{key}", n="validation.overall.n",
                           interval=f"validation.intervals.{key}", judged=True)
                    for name, key in (("ACC1", "acc1"), ("ACC2", "acc2"), ("CR", "cr"), ("CtE", "cte")))


def _by_difficulty(tier: str) -> tuple[Column, ...]:
    """Table 2's four columns for one QuALITY tier, each with the tier's n and its bootstrap interval."""
    return tuple(Column(f"{tier} {name}", f"validation.by_difficulty.{tier}.{key}",
                        n=f"validation.by_difficulty.{tier}.n",
                        interval=f"validation.by_difficulty.{tier}.intervals.{key}", judged=True)
                 for name, key in (("ACC1", "acc1"), ("ACC2", "acc2"), ("CR", "cr"), ("CtE", "cte")))


def _judgeagent(key: str, title: str, table: str, rows: dict[str, tuple[float, ...]], data: str, fmt: str | None,
                needs: tuple[str, ...], data_items: int, columns: tuple[Column, ...] = _JA_COLUMNS,
                differs: tuple[str, ...] = ()) -> Recipe:
    return Recipe(
        name=f"judgeagent-{key}", paper="JudgeAgent",
        experiment=f"{table}: {title}: the target's accuracy before (ACC1) and after (ACC2) JudgeAgent's feedback, "
                   "correction rate and correct-to-error rate; GPT-4.1 as interviewer and judge, 3 extension rounds",
        protocol="judgeagent", roles={"target": "{target}", "interviewer": "gpt-4.1-2025-04-14",
                                      "judge": "gpt-4.1-2025-04-14"},
        data=data, data_format=fmt, items=None, selection="all",
        # setting=authors: the authors' batches of 3 and the grading tier kept through the rounds (docs/protocols.md)
        options={"rounds": 3, "setting": "authors"},
        # at setting=authors a batch of 3 is asked in one call (together.py): typical (3 rounds, one extension question
        # an item): a third of the batch's base call, the extension question's generation, self-check and answer
        # (the round's one call), a third of the batch's feedback and of validate's re-answer with suggestions (the
        # plain one is the run's journal's); low: no self-check, no feedback (all right), rounds of 2 calls
        published=Published(table, columns, rows), needs=needs,
        calls=Calls(per_item=(1 / 3 + 2, 6), calibration=True, typical_per_item=1 / 3 + 3 + 1 / 3 + 1 / 3),
        data_items=data_items,
        differs=("ACC1/ACC2/CR/CtE come from `validate` (run after the interview, as the paper does)."
                 " setting=authors runs the authors' batch size (3) and keeps the tier after grading through the "
                 "extension rounds; docs/protocols.md lists the departures from the authors' code that remain.",
                 "setting=authors also has the interviewer write the easy questions, asks no feedback on a batch "
                 "answered all right and validates every batch without feedback with its first answers (ACC2 = "
                 "ACC1 there), as the authors' code.", *differs))


_TARGETS = ("Qwen3", "GLM4-Flash", "GPT-4.1", "Gemini-2.5-pro")
JUDGEAGENT_RECIPES = (
    _judgeagent("table1-medqa", "MedQA (US, 4 options)", "Table 1",
                dict(zip(_TARGETS, [(91.71, 96.38, 5.02, 0.35), (80.09, 92.82, 13.46, 0.73), (84.97, 92.44, 7.65, 0.18),
                                    (91.04, 94.60, 4.03, 0.47)])),
                "medqa:data_clean/questions/US/4_options/phrases_no_exclude_test.jsonl", "medqa",
                ("--graph: a graph built from MedQA's English textbooks (judgeagent build-graph textbooks/en/)",),
                1273),
    _judgeagent("table1-multihop", "MultiHop-RAG", "Table 1",
                dict(zip(_TARGETS, [(63.65, 70.07, 17.49, 11.07), (51.25, 65.92, 24.26, 9.59),
                                    (68.94, 75.55, 12.36, 5.75), (62.25, 71.83, 15.41, 5.83)])),
                "MultiHop-RAG questions as jsonl (question, answer; e.g. shared multihop_rag/*.questions.jsonl)", None,
                ("--graph: a graph built from the MultiHop-RAG news corpus (judgeagent build-graph corpus.jsonl)",),
                2556),
    _judgeagent("table2-quality", "QuALITY (dev), overall and by difficulty", "Table 2",
                # overall, easy, medium, hard: ACC1, ACC2, CR, CtE each (the paper's two half-tables side by side)
                dict(zip(_TARGETS, [(87.83, 88.84, 1.88, 0.87, 94.63, 95.61, 0.98, 0.00,
                                     88.53, 88.89, 1.43, 1.08, 80.10, 82.04, 3.40, 1.46),
                                    (73.48, 76.38, 4.78, 1.88, 83.26, 84.65, 4.19, 2.79,
                                     74.35, 79.18, 5.58, 0.74, 62.14, 64.08, 4.37, 2.43),
                                    (89.13, 92.75, 3.91, 0.29, 93.66, 96.10, 2.44, 0.00,
                                     91.04, 94.27, 3.58, 0.36, 82.04, 87.38, 5.83, 0.49),
                                    (93.77, 96.38, 3.19, 0.58, 97.55, 99.02, 1.47, 0.00,
                                     93.57, 95.36, 2.50, 0.71, 90.29, 95.15, 5.83, 0.97)])),
                "quality:QuALITY.v1.0.1.htmlstripped.dev", "quality",
                ("--graph: a graph built from the QuALITY articles (the passages go into the prompts)",), 2086,
                columns=(*(replace(c, name=f"overall {c.name}") for c in _JA_COLUMNS),
                         *_by_difficulty("easy"), *_by_difficulty("medium"), *_by_difficulty("hard")),
                differs=("Difficulty tiers: the paper splits QuALITY by the speed validators' accuracy with 20% and "
                         "60% thresholds; we read that as hard <= 20% < medium <= 60% < easy.",)),
)

# --- JudgeAgent, Table 3 (ablations on MedQA) ----------------------------------------------------------

# Table 3, per target: ACC2, CR, CtE and delta of each ablation (ACC1 is Table 1's: the base answers are kept).
_JA_T3: dict[str, tuple[str, dict[str, OptionValue], dict[str, tuple[float | None, ...]]]] = {
    # ablation key -> (the paper's row label, our option, {target: (ACC2, CR, CtE, delta)})
    "no-graph": ("w/o context graph", {"graph": False}, {
        "GLM4-Flash": (88.60, 10.26, 1.75, 8.50), "GPT-4.1": (91.36, 6.72, 0.33, 6.39),
        "Qwen3": (95.57, 4.28, 0.42, 3.86)}),
    "fixed-difficulty": ("w/o difficulty-adaptive", {"fixed_difficulty": "medium"}, {
        "GLM4-Flash": (89.68, 11.14, 1.56, 9.59), "GPT-4.1": (91.94, 7.36, 0.38, 6.98),
        "Qwen3": (95.94, 4.59, 0.36, 4.23)}),
    "no-extension": ("w/o interactive extension", {"extension": False}, {
        "GLM4-Flash": (86.50, 9.47, 3.06, 6.41), "GPT-4.1": (89.81, 6.13, 1.28, 4.85),
        "Qwen3": (93.01, 1.97, 0.67, 1.30)}),
}


def _judgeagent_ablation(key: str) -> Recipe:
    label, option, rows = _JA_T3[key]
    base = JUDGEAGENT_RECIPES[0]  # Table 1's MedQA recipe: the same data, roles and setting
    columns = tuple(Column(name, f"validation.overall.{k}", n="validation.overall.n",
                           interval=f"validation.intervals.{k}", judged=True)
                    for name, k in (("ACC2", "acc2"), ("CR", "cr"), ("CtE", "cte"), ("Δ", "delta")))
    differs = [d for d in base.differs]
    if key == "fixed-difficulty":
        differs.append("The paper's w/o difficulty-adaptive generates questions with \"fixed difficulty rules in the "
                       "prompt\" without naming the level; we read it as every extension question at medium "
                       "(`fixed_difficulty=medium`; -o fixed_difficulty=easy or hard for the others).")
    if key == "no-graph":
        differs.append("w/o context graph: chunks drawn at random from the whole knowledge base (`graph=false`), as "
                       "the paper; the graph folder still supplies the chunks, so --graph is still needed.")
    differs.append("The paper keeps the target's base answers unchanged across the ablations; ours are asked again "
                   "in each run (the same prompts at temperature 0, and the shared response cache answers them "
                   "when it is on), so ACC1 may differ from the full run's.")
    return Recipe(
        name=f"judgeagent-table3-{key}", paper="JudgeAgent",
        experiment=f"Table 3, MedQA, JudgeAgent {label}: the target's accuracy after the feedback (ACC2), correction "
                   "rate, correct-to-error rate and their difference; GPT-4.1 as interviewer and judge",
        protocol="judgeagent", roles=dict(base.roles), data=base.data, data_format=base.data_format, items=None,
        selection="all", options={**base.options, **option},
        published=Published("Table 3", columns, rows),
        # without extension: grading, feedback and validation only, a call each per batch of 3 (setting=authors asks a
        # batch in one call); a third where the batch is all right (no feedback, validate reuses the journal's answers)
        calls=Calls(per_item=(1 / 3, 1), calibration=True, typical_per_item=1) if key == "no-extension"
        else base.calls,
        needs=() if key == "no-extension" else base.needs, data_items=base.data_items, differs=tuple(differs))


RECIPES: dict[str, Recipe] = {r.name: r for r in (
    *(_kieval(i) for i in range(len(_KIEVAL_SETS))), TEACH2EVAL_MAIN, INTERVIEWER_MATH, _dynaeval_pgg(1),
    _dynaeval_pgg(2), DYNAEVAL_TRANSLATION, DYNAEVAL_CODE, *JUDGEAGENT_RECIPES,
    *(_judgeagent_ablation(k) for k in _JA_T3))}
