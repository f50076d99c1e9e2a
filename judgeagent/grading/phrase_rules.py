"""Free-text rules that find the gold (or a rival) as a phrase in the reply: containment in a short reply or
the first sentence, accents folded, a whole phrase in a longer reply with its guards, word forms, a belief set
aside with "but", another item's gold, and a question offering two candidates."""
from __future__ import annotations

import re

from .case import Case, Reply, Rule
from .forms import stems
from .name_rules import TITLES, written_as_name
from .numeric import bounded, stated_numbers, without_days
from .phrases import CONTRAST, listed, other_name_first
from .text import (
    NEGATIONS,
    YES_NO,
    ZH_ALTERNATIVES,
    ZH_NEGATIONS,
    fold,
    has_cjk,
    normalise_answer,
    numbers,
    token_f1,
)
from .verdict import Verdict


def contained(case: Case) -> Rule:
    """The gold as a phrase in a short reply, or as the subject or the conclusion of the first sentence.

    Not when the gold is already in the question (a reply restating the question contains it), nor
    in a negated reply ("not X"), a hedge ("X or Y") or an enumeration ("X, Y and Z").
    """
    reply, score = case.reply, case.score
    asked = f" {normalise_answer(case.question)} "
    for gold, ref in zip(case.golds, case.refs):
        if f" {ref} " in asked or ref in YES_NO:  # a yes/no gold is read by the yes/no rules, not found in a phrase
            continue
        if numbers(gold) and bounded(reply.raw, gold):  # "at least 2" does not state "2"
            continue
        short = len(reply.text.split()) <= 2 * len(ref.split()) + 3
        if short and f" {ref} " in f" {reply.text} " and _plain(reply.text, ref):
            if not guarded(case, reply.text.split(), ref.split(), gold):
                return Verdict(True, "exact", reply.text, score, "the short reply states the gold answer")
        elif _leads_or_concludes(reply, ref) and _plain(reply.first, ref):
            if not guarded(case, reply.first.split(), ref.split(), gold):
                return Verdict(True, "exact", reply.first, score, "the first sentence states the gold answer")
    return None


# Words after which the end of a sentence is what it asserts: "... was Neil Armstrong", "... in 2016".
_COPULAS = frozenset(["is", "was", "are", "were", "be", "been", "called", "named", "by", "as", "in", "on", "at", "from", "to", "of",
                      "是", "为", "在", "于", "叫"])


def _leads_or_concludes(reply: Reply, ref: str) -> bool:
    words, gold = reply.first.split(), ref.split()
    if len(words) > 30 or len(words) <= len(gold):
        return False
    if words[: len(gold)] == gold:
        listed = re.match(rf"\W*{_loose(ref)}\s*(?:,|;|\band\b|\bor\b|&)", reply.raw, re.IGNORECASE)
        return listed is None and words[len(gold)] not in ("and", "or", "nor")
    return words[-len(gold):] == gold and words[-len(gold) - 1] in _COPULAS and "," not in reply.raw.split(".")[0]


def _loose(ref: str) -> str:
    """A pattern for the normalised gold in raw text (any punctuation or article between its words)."""
    return r"(?:the\s+|an?\s+)?" + r"\W+".join(re.escape(w) for w in ref.split())


def _plain(span: str, ref: str) -> bool:
    """No negation and no alternative ("or", "either") beyond the gold's own words."""
    extra = set(span.split()) - set(ref.split())
    return not extra & (NEGATIONS | ZH_NEGATIONS | ZH_ALTERNATIVES | {"or", "either"})


# Words that frame an answer without adding to it ("It was X.", "I think X"): a reply of another item's gold and
# these (and the question's words) answers that gold and nothing else.
_FRAMING = frozenset({"it", "its", "is", "was", "are", "were", "be", "would", "i", "think", "believe", "answer",
                      "that", "this", "he", "she", "they", "called", "named", "probably", "likely", "my", "guess"})
_TIMES = {"once": 1.0, "twice": 2.0, "thrice": 3.0}
"""Counts of times, which `numbers` does not read: "twice" for "two-time" is the gold in another form."""
_LINKS = frozenset({"of", "in", "on", "and", "or", "by", "for", "to", "at", "s", "de"})


def other_answer(case: Case) -> Rule:
    """The reply is another item's gold (or another option), with at most framing words and the question's.

    Not when the reply shares a word or a number with a gold ("Abba" for "ABBA (he directed their films)", "4"
    for "Four pieces of fruit"), nor for another gold that is a form of this one (shares a word, or is its
    initials: "Melbourne Cricket Ground" for "Melbourne", "JFK" for "John Fitzgerald Kennedy"), nor for another
    gold that is one word of a longer reply ("4" in "Paris (4 times)", "green" in "Lucinda Green")."""
    reply, refs, score = case.reply, case.refs, case.score
    if not case.others or all(r in YES_NO for r in refs):
        return None  # a statement answering a yes/no question is no other item's answer
    said = reply.text.split()
    gold_words = set().union(*(r.split() for r in refs)) - _LINKS
    stated = numbers(reply.raw) | {_TIMES[w] for w in said if w in _TIMES}
    if gold_words & set(said) or any(stated & numbers(g) for g in case.golds):
        return None
    framing = _FRAMING | set(normalise_answer(case.question).split())
    for other in case.rivals.within(said):  # only those the reply can contain
        words = set(other.split())
        if not other or other in refs or words & gold_words or any(_initials(other, r) for r in refs) \
                or words <= framing:  # the question's own subject, restated ("Deltha O'Neal was selected twice")
            continue
        if all(numbers(w) for w in words):
            continue  # a number is some item's gold by chance, and the number rules compare numbers ("Three")
        if not case.options and not written_as_name(reply.raw, other.split()[-1]):
            continue  # another item's kind in lower case ("A frog" for "Toad") may be the gold's near kind; names
            # and this item's own options exclude the gold
        if token_f1(reply.text, other) <= score:
            continue  # the reply matches a gold at least as well ("B. R. Ambedkar" for "Bhimrao Ramji Ambedkar")
        if set(said) - words <= framing and f" {other} " in f" {reply.text} ":
            return Verdict(False, "other_answer", reply.text, score, f"answers {other!r}, another item's answer")
    return None


def _initials(short: str, long: str) -> bool:
    words = long.split()
    return " " not in short and len(words) >= 2 and short in ("".join(w[0] for w in words),
                                                              "".join(w[0] for w in words if w not in _LINKS))


def folded(case: Case) -> Rule:
    """The reply is a gold once accents and hyphens are folded ("Antonin Dvorak" for "Antonín Dvořák")."""
    reply = fold(case.reply.text)
    if any(reply == fold(g) for g in case.golds):
        return Verdict(True, "folded", reply, case.score, "the gold answer, up to accents and hyphens")
    return None


_SPELLED = 7
"""Letters a word needs before one added or dropped vowel counts as a spelling ("haematite" for "hematite");
shorter words are other words too often."""


def spelled(case: Case) -> Rule:
    """The reply is a gold word for word, up to one vowel added or dropped inside a long word ("Haematite."
    for "hematite", "an unsolvable problem" for "an unsolveable problem"). A changed letter is another word
    too often ("chloride", "chlorine"; "sulfite", "sulfate"; "Colombia", "Columbia"), and so is a letter
    at either end ("Christiana") or a consonant ("Johnston", "Johnson"); a capitalised gold word is a name,
    and names differ by a vowel ("Alexandria", "Alexandra")."""
    said = fold(case.reply.text).split()
    # a name: "Alexandria" is not "Alexandra"; capitalised in any gold ("Nadia comeneci" is an alias of "Nadia
    # Comaneci", and "Comneci" a misspelling of neither)
    names = {fold(w) for gold in case.golds for w in gold.split() if w[:1].isupper()}
    for gold in case.golds:
        ref = fold(gold).split()
        if len(ref) == len(said) and said != ref and all(
                a == b or (b not in names and _one_vowel(a, b)) for a, b in zip(said, ref)):
            return Verdict(True, "folded", " ".join(said), case.score, "the gold answer, up to a spelling variant")
    return None


def _one_vowel(a: str, b: str) -> bool:
    """One of `a` and `b` is the other, at least _SPELLED letters long, with one vowel added inside it."""
    short, long = sorted((a, b), key=len)
    if len(short) < _SPELLED or len(long) != len(short) + 1 or short.isdigit():
        return False
    k = next((i for i, (x, y) in enumerate(zip(short, long)) if x != y), len(short))
    return 0 < k < len(short) and long[k] in "aeiou" and long[:k] + long[k + 1:] == short


LONGEST = 60
"""Words; in a longer reply (an essay) no rule picks out the answer."""


def phrase(case: Case) -> Rule:
    """The gold as a whole phrase in a longer reply that names no other candidate and denies nothing."""
    words = fold(case.reply.raw).split()
    if len(words) > LONGEST or len(words) < 2:
        return None
    asked, text = f" {fold(case.question)} ", f" {' '.join(words)} "
    for gold in case.golds:
        ref = fold(gold)
        if len(ref) < 3 or ref in YES_NO or f" {ref} " in asked or f" {ref} " not in text:
            continue
        if guarded(case, words, ref.split(), gold):
            return None
        return Verdict(True, "phrase", ref, case.score, "the reply states the gold as a whole phrase")
    return None


def guarded(case: Case, words: list[str], gold: list[str], raw_gold: str) -> bool:
    """A contrast word, a list around the gold, another item's gold, numbers beyond the gold's, or another
    name asserted before the gold ("Croatia won the final against France")."""
    asked = set(fold(case.question).split())
    # A contrast or negation the question itself uses ("the runner-up in ...") is the reply repeating it.
    if set(words) - set(gold) - asked & (NEGATIONS | ZH_NEGATIONS | ZH_ALTERNATIVES | CONTRAST) \
            or listed(case.reply.raw, gold):
        return True
    text = f" {' '.join(words)} "
    wanted = numbers(raw_gold)
    # Another gold counts as a rival only when it is the same kind of answer: "in July 1969" beside "Neil
    # Armstrong" is a detail, not a second candidate.
    own = {fold(g) for g in case.golds}  # the item's own aliases are no rivals
    if any(f" {o} " in text and not set(o.split()) & set(gold) and bool(numbers(o)) == bool(wanted)
           and o not in own and not _generic(o, asked) for o in case.rivals.folded_within(words)):
        return True
    if wanted and stated_numbers(case.reply.raw, case.question) != numbers(without_days(raw_gold)):
        return True
    if has_cjk(case.reply.raw):  # the English pipeline reads no names in Chinese text ("中国" would be one)
        return False
    if _concludes(words, gold, asked):
        return False  # the reply's last assertion is the gold: names before it were steps of the reasoning
    return other_name_first(case.reply.raw, set(gold) | asked, gold)


def _generic(other: str, asked: set[str]) -> bool:
    """Another gold that is the question's own words or a title ("president", "king"): the reply repeating
    the question or titling the gold ("President Wilson"), not naming a rival."""
    words = other.split()
    return set(words) <= asked or (len(words) == 1 and words[0] in TITLES)


def _concludes(words: list[str], gold: list[str], asked: set[str]) -> bool:
    """The gold ends the reply in the question's own relation ("..., which was developed by Studio 33." for
    "... developed by what company?"), not in another one ("Buzz Aldrin, followed by Neil Armstrong.")."""
    n = len(gold)
    return len(words) > n + 1 and words[-n:] == gold and words[-n - 1] in _COPULAS and words[-n - 2] in asked


def word_form(case: Case) -> Rule:
    """A short reply whose content words are the gold's in other forms ("sharecroppers" for "Sharecropping")."""
    words = fold(case.reply.raw).split()
    asked = f" {fold(case.question)} "
    for gold in case.golds:
        ref = fold(gold)
        if not ref or ref in YES_NO or numbers(gold) or f" {ref} " in asked:
            continue
        if len(words) > 2 * len(ref.split()) + 6 or guarded(case, words, ref.split(), gold):
            continue
        wanted, said = stems(gold), stems(case.reply.raw)
        if wanted and set(wanted) <= set(said):
            return Verdict(True, "word_form", " ".join(said), case.score, "the gold's words in other forms")
    return None


_FILLER = frozenset({"is", "was", "are", "were", "be", "been", "it", "its", "one", "that", "this", "which", "who",
                     "answer", "so", "more", "most", "than", "of", "in", "on", "by", "to", "at", "has", "had", "have"})


def two_candidates(case: Case) -> Rule:
    """A question that offers two candidates ("Who is older, Sid Haig or Vic Darchinyan?"), answered by naming
    one of them in the question's own words: right for the gold's, wrong for the other."""
    asked = fold(case.question).split()
    if asked.count("or") != 1:
        return None
    k = asked.index("or")
    if k == 0 or k == len(asked) - 1:
        return None
    left, right = asked[k - 1], asked[-1]  # each candidate's last word: "haig", "darchinyan"
    words = fold(case.reply.raw).split()
    gold_words = {w for g in case.golds for w in fold(g).split()}
    if set(words) - set(asked) - gold_words - _FILLER or set(words) & (NEGATIONS | CONTRAST):
        return None  # words the question does not use ("younger", "born in 1939"): for a judge
    sides = [w for w in (left, right) if w in gold_words]
    if len(sides) != 1 or left == right:
        return None
    mine, other = sides[0], right if sides[0] == left else left
    if (mine in words) == (other in words):
        return None
    # The other candidate's first name with the gold's surname ("Vic Haig" for "Sid Haig" or "Vic Darchinyan")
    # names neither: for a judge.
    theirs = set(asked[k + 1:k + 3] if mine == left else asked[max(0, k - 2):k]) - gold_words - _FILLER
    if set(words) & theirs and mine in words:
        return None
    return Verdict(mine in words, "choice", " ".join(words), case.score,
                   f"names the question's {'gold' if mine in words else 'other'} candidate")


_BUT = re.compile(r"(?:^|[\s,;])but\s+", re.IGNORECASE)
_ASSERTING = frozenset({"is", "was", "are", "were", "it", "its", "that", "this", "actually", "in", "fact", "really",
                        "rather", "correct", "answer", "right"})


def corrected(case: Case) -> Rule:
    """A reply that sets a belief aside and then asserts the gold as its final clause ("Many people think Raphael
    did, but it was Michelangelo."; "Not the liver but the pancreas."): right when that clause is only the
    gold, the question's words and an assertion ("it was", "the capital of Australia is")."""
    parts = _BUT.split(case.reply.raw)
    if len(parts) < 2 or len(fold(case.reply.raw).split()) > LONGEST:
        return None
    before, after = fold(" ".join(parts[:-1])).split(), fold(parts[-1]).split()
    question = fold(case.question).split()
    asked = set(question)
    for gold in case.golds:
        ref = fold(gold).split()
        if not ref or " ".join(ref) in YES_NO or f" {' '.join(ref)} " not in f" {' '.join(after)} ":
            continue
        # the question's words in their order: a set joined in its hash order found a many-word gold by chance
        if f" {' '.join(ref)} " in f" {' '.join(question)} " or set(ref) & set(before) or listed(parts[-1], ref):
            continue
        if set(after) - set(ref) - asked - _ASSERTING:
            continue  # more than an assertion of the gold: "but Raphael did the frescoes"
        return Verdict(True, "corrected", " ".join(after), case.score, "sets a belief aside and asserts the gold")
    return None
