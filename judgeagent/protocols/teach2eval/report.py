"""The run's numbers (paper Section 3.3: AA, JA, GA, RA, CA with intervals) and the report's sections."""
from __future__ import annotations

from collections import Counter

from ...report.mdtext import md_quote, md_text
from ..base import Section
from .rows import Counts, ItemRow, LessonRow, ShownLesson, Step, StudentNumbers, Summary
from .teaching import Lesson, abilities

ABILITIES = (("CA", "Comprehensive"), ("AA", "Application"), ("JA", "Judgment"), ("GA", "Guidance"),
             ("RA", "Reflection"))


def lessons_of(rows: list[ItemRow]) -> list[Lesson]:
    return [Lesson(r["qid"], le["student"], tuple(le["correct"]), le["judgments"][0] if le["judgments"] else None)
            for r in rows for le in r["lessons"]]


def numbers(rows: list[ItemRow], turns: int, resamples: int = 1000, seed: int = 0,
            shown: int = 2, scoring: str = "paper") -> Summary:
    lessons = lessons_of(rows)
    teacher = {r["qid"]: bool(r["teacher_correct"]) for r in rows}
    seats = {le["student"]: le["model"] for r in rows for le in r["lessons"]}
    per_student: dict[str, StudentNumbers] = {}
    for seat, model in seats.items():
        mine = [le for le in lessons if le.student == seat]
        numbers_ = abilities(mine, teacher, resamples, seed, scoring)
        lesson_rows = [le for r in rows for le in r["lessons"] if le["student"] == seat]
        per_student[seat] = {"model": model, "lessons": len(mine),
                             "abilities": {k: numbers_[k] for k, _ in ABILITIES},
                             "accuracy_by_turn": numbers_["student_accuracy_by_turn"][seat],
                             "baseline": numbers_["student_accuracy_by_turn"][seat][0],
                             "judgments": confusion(lesson_rows), **_counts(lesson_rows)}
    overall = abilities(lessons, teacher, resamples, seed, scoring)
    every = [le for r in rows for le in r["lessons"]]
    return {"items": len(rows), "turns": turns, "students": len(seats), "scoring": scoring,
            "abilities": {k: overall[k] for k, _ in ABILITIES},
            "baseline": _mean([s["baseline"] for s in per_student.values()]),
            "per_student": per_student, "judgments": confusion(every), **_counts(every),
            "options_from": dict(Counter(r.get("options_from", "choice") for r in rows)),
            "shown": pick_lessons(rows, shown)}


def confusion(lesson_rows: list[LessonRow]) -> dict[str, dict[str, int]]:
    """The teacher's first-turn judgment against the truth of the student's first answer."""
    out = {truth: {"judged_right": 0, "judged_wrong": 0, "no_judgment": 0} for truth in ("right", "wrong")}
    for le in lesson_rows:
        if not le["judgments"]:
            continue
        said = le["judgments"][0]
        key = "no_judgment" if said is None else "judged_right" if said else "judged_wrong"
        out["right" if le["correct"][0] else "wrong"][key] += 1
    return out


def _counts(lesson_rows: list[LessonRow]) -> Counts:
    answers = sum(len(le["correct"]) for le in lesson_rows)
    judgments = [j for le in lesson_rows for j in le["judgments"]]
    leaks = [x for le in lesson_rows for x in le["leaks"]]
    return {"answers": answers, "no_letter": sum(le["no_letter"] for le in lesson_rows),
            "teacher_turns": len(judgments), "unparsed_judgments": sum(j is None for j in judgments),
            "leaks": len(leaks), "leaks_after_wrong": sum(1 for x in leaks if not x["student_right"])}


def pick_lessons(rows: list[ItemRow], n: int) -> list[ShownLesson]:
    """Lessons to show in full: a repaired one first (wrong, then right), then one that stayed wrong, then any."""
    every: list[ShownLesson] = [{"qid": r["qid"], "question": r["question"], "options": r["options"],
                                 "gold_letter": gold_letter(r), **le} for r in rows for le in r["lessons"]]

    def rank(le: ShownLesson) -> int:
        c = le["correct"]
        return 0 if not c[0] and c[-1] else 1 if not c[0] else 2

    chosen: list[ShownLesson] = []
    for kind in (0, 1, 2):
        chosen += [le for le in every if rank(le) == kind][:1 if kind < 2 else n]
    return chosen[:n]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


# --- the report ---------------------------------------------------------------------------------------

def _pct(value: float | None, signed: bool = False) -> str:
    return "-" if value is None else f"{100 * value:+.1f}" if signed else f"{100 * value:.1f}"


def scoring_of(s: Summary) -> str:
    """The scoring a summary was made with; summaries written before 0.2 were `geometric`."""
    return str(s.get("scoring", "geometric"))


def shown(key: str, value: float | None, scoring: str = "paper") -> str:
    """An ability as the report and the terminal show it: RA as the paper's % change or the geometric ratio."""
    if key == "RA" and scoring != "paper":
        return "-" if value is None else f"{value:.3f}"
    return _pct(value, signed=key in ("CA", "RA"))


def _interval(key: str, interval: list[float] | None, scoring: str = "paper") -> str:
    return "-" if not interval else f"[{shown(key, interval[0], scoring)}, {shown(key, interval[1], scoring)}]"


def sections(s: Summary) -> list[Section]:
    return [Section("Teaching abilities", _abilities_text(s)), Section("Student accuracy by turn", _curves(s)),
            Section("The teacher's judgments (first turn)", _confusion_text(s)),
            Section("Items", _items_text(s)),
            Section("Lessons", "\n\n".join(_lesson_text(le) for le in s["shown"]) or "(none)")]


def _abilities_text(s: Summary) -> str:
    a, how = s["abilities"], scoring_of(s)
    ra = ("RA the product of accuracy(t)/accuracy(t-1) over turns 2..T minus 1, in % (0: later turns neither help "
          "nor harm); a teacher reply without a judgment read as 'wrong' (scoring `paper`, as the paper's tables: "
          "the authors' result_statistics.py)" if how == "paper" else
          "RA the geometric mean of accuracy(t)/accuracy(t-1) over turns 2..T (1: later turns neither help nor "
          "harm); a reply without a judgment counted as a wrong judgment (scoring `geometric`)")
    lines = [(f"{s['items']} items, {s['students']} student(s), {s['turns']} guidance turns. AA, JA, GA in %, CA in "
             f"points of student accuracy, {ra}; 95% bootstrap intervals over items."), "",
             "| ability | value | 95% interval |", "|---|---|---|"]
    lines += [f"| {name} ({key}) | {shown(key, a[key]['value'], how)} | {_interval(key, a[key]['interval'], how)} |"
              for key, name in ABILITIES]
    lines += ["", "| student | model | baseline acc | CA | JA | GA | RA | no letter | leaks (after a wrong answer) |",
              "|---|---|---|---|---|---|---|---|---|"]
    for seat, p in s["per_student"].items():
        b = p["abilities"]
        lines.append(f"| {seat} | {p['model']} | {_pct(p['baseline'])} | " + " | ".join(
            f"{shown(k, b[k]['value'], how)} {_interval(k, b[k]['interval'], how)}" if b[k]["value"] is not None
            else "-"
            for k in ("CA", "JA", "GA", "RA"))
            + f" | {p['no_letter']}/{p['answers']} | {p['leaks']} ({p['leaks_after_wrong']}) |")
    lines += ["", (f"Students' baseline accuracy (alone, turn 0): {_pct(s['baseline'])}%. Teacher replies with no "
              f"judgment: {s['unparsed_judgments']} of {s['teacher_turns']}. Guidance that stated the answer "
              f"({_leak_fate(s)}): {s['leaks']}, {s['leaks_after_wrong']} of them after a wrong answer.")]
    return "\n".join(lines)


def _leak_fate(s: Summary) -> str:
    if s.get("tell_answer"):
        return "given to the student as written: tell_answer=true, the authors' can_tell_answer setting"
    return "redacted before the student saw it"


def _curves(s: Summary) -> str:
    turns = s["turns"]
    lines = ["| student | " + " | ".join(f"turn {t}" for t in range(turns + 1)) + " |",
             "|---|" + "---|" * (turns + 1)]
    lines += [f"| {seat} ({p['model']}) | " + " | ".join(_pct(v) for v in p["accuracy_by_turn"]) + " |"
              for seat, p in s["per_student"].items()]
    chart = []
    for seat, p in s["per_student"].items():
        chart += [f"{seat} turn {t}  {'#' * round(40 * v):<40} {_pct(v)}%" for t, v in enumerate(p["accuracy_by_turn"])]
    return "\n".join(lines) + "\n\n```\n" + "\n".join(chart) + "\n```"


def _confusion_text(s: Summary) -> str:
    c = s["judgments"]
    return ("Rows: whether the student's first answer was right; columns: what the teacher said.\n\n"
            "| student's answer | judged right | judged wrong | no judgment |\n|---|---|---|---|\n"
            + "\n".join(f"| {truth} | {c[truth]['judged_right']} | {c[truth]['judged_wrong']} | "
                        f"{c[truth]['no_judgment']} |" for truth in ("right", "wrong")))


def _items_text(s: Summary) -> str:
    conv = s.get("conversion") or {}
    head = (f"{conv['taught']} of {conv['items']} benchmark items taught. " if conv else "")
    lines = [head + "Options from: " + ", ".join(f"{k} {v}" for k, v in sorted(s["options_from"].items()))
             + " (choice: the benchmark's own; graph, numeric, yes_no: built from the context graph)."]
    lines += [f"- skipped {n}: {reason}" for reason, n in (conv.get("skipped") or {}).items()]
    return "\n".join(lines)


def _lesson_text(le: ShownLesson) -> str:
    path = " -> ".join("right" if c else "wrong" for c in le["correct"])
    lines = [f"**{md_text(le['qid'])}**, {le['student']} ({md_text(le['model'])}): {path}", ""]
    lines += [_quote(f"{le['question']}\n" + "\n".join(f"{k}. {v}" for k, v in le["options"].items())),
              "", f"Gold: {gold_letter(le)}. The teacher saw the question without the options.", ""]
    for step in le["steps"]:
        mark = "right" if step["correct"] else "wrong"
        lines += [f"*Student, turn {step['turn']}* (chose {reply_letter(step) or 'nothing'}, {mark}):", "",
                  _quote(step["reply"]), ""]
        if "teacher" in step:
            judged = {True: "right", False: "wrong", None: "no judgment"}[step["judged_right"]]
            lines += [f"*Teacher, turn {step['turn'] + 1}* (judged: {judged}):", "", _quote(step["teacher"]), ""]
            if step["guidance"] != step["teacher"].strip():
                lines += ["*The student was given:*", "", _quote(step["guidance"]), ""]
    return "\n".join(lines).rstrip()


def _quote(text: str) -> str:
    return md_quote(text)


def gold_letter(row: ItemRow | ShownLesson) -> str | None:
    """A lesson's gold letter; runs written before judgeagent 0.2 named it `answer_letter`."""
    return row["gold_letter"] if "gold_letter" in row else row.get("answer_letter")


def reply_letter(step: Step) -> str | None:
    """The letter a student's reply chose; runs written before judgeagent 0.2 named it `letter`."""
    return step["reply_letter"] if "reply_letter" in step else step.get("letter")
