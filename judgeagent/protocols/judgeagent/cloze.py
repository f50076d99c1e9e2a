"""Easy-tier cloze questions: a path sentence with one recorded entity mention blanked, no model call."""
from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import pyarrow as pa
import pyarrow.compute as pc

from ...grading.text import normalise_answer
from ...graph.model import ContextGraph

BLANK = "____"
INSTRUCTION = "Fill in the blank with the missing name or phrase"
MIN_WORDS = 6
"""Words a sentence needs besides the blank: fewer leave too little to recall the fact from."""
MAX_WORDS = 70
"""More words than this is a run-on, a list or a splitting failure: a poor question either way."""

_NOUN_CHUNK_LABELS = frozenset({"", "CONCEPT"})


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# A superset of checks.py's stop words, so that an answer passing here passes its leak checks too.
_STOP = _words("""a an the of in on to and or is was for by with what which who whom whose when where why how
    did does do that this it its as at be been being are were has have had not no nor from into onto about
    over under than then there their they them he she his her we our you your i me my us these those such
    some any all each other more most many much few one also only very can could will would shall should
    may might must so if but yet up out off per via s t just both either neither own same too""")
# First words that point back to something the reader of a lone sentence has not seen.
_ANAPHORS = _words("""it its they their theirs them this that these those he him his she her hers we our
    us such both another""")
_ANAPHOR_PAIRS = frozenset({("the", "latter"), ("the", "former")})
_CONJUNCTIONS = frozenset({"and", "but", "so", "yet", "or", "still", "also"})
_ABBREVIATIONS = _words("""mr mrs ms dr prof sr jr st mt ft vs etc inc ltd co corp no nos gen gov sen rep lt
    col capt sgt rev fig vol approx dept est jan feb apr jun jul aug sep sept oct nov dec ph.d""")
_PARAGRAPH = re.compile(r"\n[ \t\r\f\v]*\n")
_OPENERS = "\"'“‘(["
_OPEN, _CLOSE = re.escape(_OPENERS), re.escape("\"'”’)]")  # escaped for character classes
_END = re.compile(rf"[.!?]+[{_CLOSE}]*(?=\s+[{_OPEN}]*[A-Z0-9])")
_INITIALS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")  # "U.S", "e.g", "a.m" (the final dot is the match's)
_STARTS = re.compile(rf"[{_OPEN}]*[A-Z0-9]")
_ENDS = re.compile(rf"[.!][{_CLOSE}]*$")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Cloze:
    question: str
    """Stands alone; contains `BLANK` exactly once."""
    gold: str
    """The blanked surface form exactly as in the chunk text."""
    aliases: tuple[str, ...]
    """Other acceptable answers (the entity's node name where it differs), none equal to the gold or to
    each other after `normalise_answer`."""
    chunk_id: str
    entity: str
    """The entity's node name."""
    sentence: str
    """The original sentence: the blanked one with the gold put back."""


@dataclass(frozen=True)
class _Mention:
    entity_id: int
    surface: str
    label: str
    start: int
    end: int


@dataclass(frozen=True)
class _Candidate:
    cloze: Cloze
    tier: int
    """0 named entity, 1 multi-word noun chunk, 2 one-word noun chunk, 3 short (< 3 characters)."""
    sentence_key: tuple[str, int]
    answer_keys: frozenset[str]


def cloze_questions(graph: ContextGraph, chunk_ids: Sequence[str], entity_ids: Sequence[int] = (),
                    count: int = 1, seed: int = 0, avoid: Sequence[str] = ()) -> list[Cloze]:
    """Up to `count` cloze questions from the sentences of `chunk_ids`, blanking mentions of `entity_ids`
    (of any entity when empty, as on the `--no-graph` ablation) that are not generic concepts (their
    specificity is below GENERIC); fewer, possibly none, when not enough sentences qualify. The same arguments always give the same questions."""
    if count < 1:
        return []
    chunks = [c for c in dict.fromkeys(chunk_ids) if c in graph.chunk_row]
    wanted = {int(e) for e in entity_ids}
    mentions = _mentions(graph, chunks, wanted)
    asked = {normalise_answer(q) for q in avoid}
    candidates = [c for chunk in chunks for c in _chunk_candidates(graph, chunk, mentions.get(chunk, []))
                  if normalise_answer(c.cloze.question) not in asked]
    return _select(candidates, count, random.Random(int(seed)))


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, whitespace trimmed.

    A blank line always ends a sentence (a single newline is ordinary whitespace, as in hard-wrapped
    text). Otherwise a sentence ends at `.`, `!` or `?` (with any closing quotes or brackets) followed by
    whitespace and a capital, a digit or an opening quote; a `.` does not end one after a known
    abbreviation ("Dr.", "St.", "Inc.", "Jan."), a single initial ("J.") or dotted initials ("U.S.",
    "e.g."), so "in the U.S. The" stays one piece. Decimals ("3.5") have no space after the dot.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for brk in [*_PARAGRAPH.finditer(text), None]:
        end = brk.start() if brk else len(text)
        cut = start
        for m in _END.finditer(text, start, end):
            if m.group().startswith(".") and not m.group().startswith("..") and _abbreviation(text[cut:m.start()]):
                continue
            spans.append((cut, m.end()))
            cut = m.end()
        spans.append((cut, end))
        start = brk.end() if brk else len(text)
    return [_trim(text, s, e) for s, e in spans if text[s:e].strip()]


def _abbreviation(before: str) -> bool:
    """The word right before a full stop is an abbreviation, so the stop does not end the sentence."""
    words = before.split()
    word = words[-1].lstrip(_OPENERS) if words else ""
    return (len(word) == 1 and word.isalpha()) or bool(_INITIALS.fullmatch(word)) or word.lower() in _ABBREVIATIONS


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _mentions(graph: ContextGraph, chunks: list[str], wanted: set[int]) -> dict[str, list[_Mention]]:
    """The recorded mentions in `chunks` (of `wanted` entities when given), in table order."""
    table = graph.tables["mentions"]
    if not chunks or table.num_rows == 0:
        return {}
    # A filter, not a per-graph index: one linear pass over a column costs milliseconds even on large graphs.
    mask = pc.is_in(table.column("chunk_id"), value_set=pa.array(chunks, pa.string()))
    if wanted:
        ids = pa.array(sorted(wanted), table.schema.field("entity_id").type)
        mask = pc.and_(mask, pc.is_in(table.column("entity_id"), value_set=ids))
    found: dict[str, list[_Mention]] = {}
    for row in table.filter(mask).to_pylist():
        found.setdefault(row["chunk_id"], []).append(_Mention(
            int(row["entity_id"]), row["surface"], row["label"] or "", int(row["start"]), int(row["end"])))
    return found


def _chunk_candidates(graph: ContextGraph, chunk_id: str, mentions: list[_Mention]) -> list[_Candidate]:
    from ...graph.specificity import GENERIC

    text = graph.chunk_texts[graph.chunk_row[chunk_id]]
    title = _title(graph, chunk_id)
    sentences = split_sentences(text)
    out = []
    for m in mentions:
        if graph.specificity[m.entity_id] < GENERIC:  # "land" is no fact to recall (issue 29)
            continue
        # Offsets must point at the surface form: the gold is then exactly what the sentence said.
        if not (0 <= m.start < m.end <= len(text)) or text[m.start:m.end] != m.surface or m.surface != m.surface.strip():
            continue
        k = next((i for i, (s, e) in enumerate(sentences) if s <= m.start and m.end <= e), None)
        if k is not None:
            found = _candidate(graph, chunk_id, text, title, sentences, k, m)
            if found is not None:
                out.append(found)
    return out


def _candidate(graph: ContextGraph, chunk_id: str, text: str, title: str, sentences: list[tuple[int, int]],
               k: int, m: _Mention) -> _Candidate | None:
    """The question blanking `m` in sentence `k`, or None when it would not stand alone or would leak."""
    s, e = sentences[k]
    sentence, gold = text[s:e], m.surface
    tier = _tier(gold, m.label)
    if tier is None or not _complete(sentence) or "__" in sentence:
        return None
    before, after = sentence[:m.start - s], sentence[m.end - s:]
    if not MIN_WORDS <= _n_words(before + " " + after) <= MAX_WORDS:
        return None
    context = ""
    if _anaphoric(sentence):  # the previous sentence names what "It" or "They" is
        prev = text[slice(*sentences[k - 1])] if k else ""
        if not _complete(prev) or _anaphoric(prev) or "__" in prev or _n_words(prev) > MAX_WORDS:
            return None
        context = prev + " "
    passage = context + before + BLANK + after
    entity = graph.entity_names[m.entity_id]
    answers = (gold, *_aliases(gold, entity))
    question = _render(_context_title(title, passage, answers), passage)
    if any(_gives_away(question, a) for a in answers) or question.count(BLANK) != 1:
        return None
    cloze = Cloze(question, gold, answers[1:], chunk_id, entity, sentence)
    keys = frozenset({normalise_answer(gold), entity})
    return _Candidate(cloze, tier, (chunk_id, k), keys)


def _title(graph: ContextGraph, chunk_id: str) -> str:
    """The chunk's document title, or "" when it has none or it is only the document's id."""
    doc_id = graph.tables["chunks"].column("doc_id")[graph.chunk_row[chunk_id]].as_py()
    try:
        title = graph.tables["documents"].column("title")[graph.doc_ids.index(doc_id)].as_py() or ""
    except ValueError:
        return ""
    title = " ".join(title.split())
    return "" if title == doc_id else title


def _context_title(title: str, passage: str, answers: Sequence[str]) -> str:
    """The title to show: none when the passage already holds it, or when it would give an answer away."""
    if not title or f" {normalise_answer(title)} " in f" {normalise_answer(passage)} ":
        return ""
    return "" if any(_gives_away(title, a) for a in answers) else title


def _render(title: str, passage: str) -> str:
    if title:
        return f'{INSTRUCTION}. In "{title}": "{passage}"'
    return f'{INSTRUCTION}: "{passage}"'


def _tier(surface: str, label: str) -> int | None:
    """How good an answer the mention makes (lower is better); None when it is only stop words
    (an acronym such as "US" or "WHO" is a name, not a stop word)."""
    if not any(w.lower() not in _STOP or (w.isupper() and len(w) > 1) for w in _WORD.findall(surface)):
        return None
    if len(normalise_answer(surface)) < 3:
        return 3
    if label not in _NOUN_CHUNK_LABELS:
        return 0
    return 1 if len(_content(_WORD.findall(surface.lower()))) > 1 else 2


def _complete(sentence: str) -> bool:
    """Reads as a whole statement: opens with a capital or digit, ends with `.` or `!` (a `?` asks,
    and no end mark means a heading, a caption or a cut-off fragment)."""
    return bool(_STARTS.match(sentence)) and bool(_ENDS.search(sentence))


def _anaphoric(sentence: str) -> bool:
    """Opens with a pronoun or demonstrative, after any conjunction ("And it was ...")."""
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", sentence[:60])[:4]]
    while words and words[0] in _CONJUNCTIONS:
        words = words[1:]
    return bool(words) and (words[0] in _ANAPHORS or tuple(words[:2]) in _ANAPHOR_PAIRS)


def _n_words(text: str) -> int:
    return sum(1 for w in text.split() if any(c.isalnum() for c in w))


def _aliases(gold: str, entity: str) -> tuple[str, ...]:
    """The node name (the normalised identity: "rocket" for "rockets") where it reads differently.

    Nothing looser (a person's surname, say): spaCy's labels are often wrong ("Gannet Point" as a
    PERSON), and a wrong alias would mark wrong answers right.
    """
    key = normalise_answer(entity)
    if key and key != normalise_answer(gold) and _content(_WORD.findall(entity.lower())):
        return (entity,)
    return ()


def _content(words: Sequence[str]) -> set[str]:
    return {w for w in words if w not in _STOP and w != "_" * len(w)}


def _gives_away(text: str, answer: str) -> bool:
    """`text` states the answer, or at least half of its content words ("Sputnik 1" for "Sputnik 2").

    Words are read two ways: as `normalise_answer` reads them (what the interview's checks see) and
    split at punctuation, so that "Star’s" still shows "Star".
    """
    padded, seen = _view(text)
    norm_a, _ = _view(answer)
    if norm_a.strip() and norm_a in padded:
        return True
    for words in (_content(norm_a.split()), _content(_WORD.findall(answer.lower()))):
        if words and 2 * len(words & seen) >= len(words):
            return True
    return False


@lru_cache(maxsize=4096)
def _view(text: str) -> tuple[str, frozenset[str]]:
    """` normalised text ` and its words read both ways; cached, as selection compares each question
    with every chosen one."""
    norm = normalise_answer(text)
    return f" {norm} ", frozenset(norm.split()) | frozenset(_WORD.findall(text.lower()))


def _select(candidates: list[_Candidate], count: int, rng: random.Random) -> list[Cloze]:
    """Greedy: the candidate with the lowest penalty against those already chosen, the seeded shuffle
    breaking ties (`min` keeps the first of equals). The penalty, lower is better: no clash with a chosen
    question (the same sentence with another blank, or either question showing the other's answer),
    then a new answer, the better tier, a new chunk."""
    pool = list(candidates)
    rng.shuffle(pool)
    flags = [[False, False, False] for _ in pool]  # clash, repeated answer, chunk used: updated per pick
    chosen: list[Cloze] = []
    while len(chosen) < count and pool:
        best = min(range(len(pool)), key=lambda i: (flags[i][0], flags[i][1], pool[i].tier, flags[i][2]))
        pick = pool.pop(best)
        flags.pop(best)
        chosen.append(pick.cloze)
        kept = [k for k, c in enumerate(pool) if c.cloze.question != pick.cloze.question]
        pool, flags = [pool[k] for k in kept], [flags[k] for k in kept]
        for c, f in zip(pool, flags):
            f[0] = f[0] or _clash(c, pick)
            f[1] = f[1] or bool(c.answer_keys & pick.answer_keys)
            f[2] = f[2] or c.cloze.chunk_id == pick.cloze.chunk_id
    return chosen


def _clash(a: _Candidate, b: _Candidate) -> bool:
    return (a.sentence_key == b.sentence_key or _gives_away(a.cloze.question, b.cloze.gold)
            or _gives_away(b.cloze.question, a.cloze.gold))
