"""No unresolved pronouns: every pronoun or anaphoric phrase has its referent inside."""

from __future__ import annotations

import re
from functools import lru_cache

from ._align import align, person_names, person_shaped, source_sentences
from ._finding import (
    ANAPHORIC_PHRASE,
    BARE_PRONOUN,
    DEFINITE_WITHOUT_ANTECEDENT,
    ERROR,
    IMPERSONAL_YOU,
    NO_UNRESOLVED_PRONOUNS,
    SPEAKER_PRONOUN,
    WARNING,
    Finding,
    Severity,
)
from ._language import (
    AUXILIARIES,
    GLUE_WORDS,
    Token,
    all_inflections,
    all_lemmas,
    can_be_verb,
    lemma,
    stem,
    tokens,
    word_set,
)
from ._parser import Parse, parse, person_spans
from ._verbs import can_be_finite_verb, looks_like_finite_verb
from ._words import (
    CLAUSE_OPENING_SUBORDINATORS,
    DATE_PREPOSITIONS,
    DEFINITE_DETERMINERS,
    MONTHS,
    PREPOSITIONS,
    SUBJECT_PRONOUNS,
    WEEKDAYS,
)

_PERSON = word_set("he him his himself she her hers herself")
_THING = word_set("it its itself")
_GROUP = word_set("they them their theirs themselves")
_SPEAKER = word_set("we us our ours ourselves i me my mine myself")
_DEMONSTRATIVE = word_set("this these those")
_DEFINITE = DEFINITE_DETERMINERS
_SUBJECTS = SUBJECT_PRONOUNS - word_set("i you")
"""Subject pronouns an opening phrase may hold before the clause's comma ("At the
airport they encounter ..."): the third person and "we"."""
_AFTER_THOSE = PREPOSITIONS | word_set(
    "around near among across within behind beside between through inside outside"
)
"""Prepositions after which "those" is people described on the spot ("those around
her"), not a reference to something earlier."""
_PERSON_NOUNS = word_set(
    """man woman men women boy girl child king queen prince princess father mother son
    daughter brother sister husband wife uncle aunt person people author writer actor
    actress singer player president minister founder leader chief director member officer
    doctor nurse patient teacher student scientist artist painter poet composer engineer
    manager owner partner friend lord lady emperor pope bishop priest saint knight duke
    duchess countess count baron general captain colonel sergeant soldier judge lawyer
    senator governor mayor chairman ceo coach athlete driver pilot character protagonist
    host presenter journalist reporter editor producer musician rapper dancer model wrestler
    champion"""
)
_PERSON_SUFFIX = re.compile(r"(?:er|or|ist|ian|ess|ant|ent)s?$")
_COLLECTIVE = word_set(
    """people police team company government group staff children data family band crew
    army board committee council public audience couple parents"""
)
_EXPLETIVE_ADJ = word_set(
    """possible impossible necessary likely unlikely important estimated believed thought
    said reported known expected clear unclear common difficult easy hard true false
    essential vital useful worth rumoured rumored claimed assumed suggested argued noted
    shown found predicted recommended advisable unusual rare evident obvious apparent
    time raining"""
)
_EXPLETIVE_VERBS = word_set("takes took take seems seemed appears appeared happens")
_SAME_OK_NEXT = word_set("as time way year day period")
_NON_NAMES = MONTHS | WEEKDAYS
_PLACE_PREPOSITIONS = word_set("in at from near across throughout")
_OPENING_PREPOSITIONS = word_set(
    """after before during upon in at despite following while since with without through
    throughout unlike like for to from on"""
)
_OPENING_ADVERBS = word_set(
    """however soon later meanwhile eventually finally instead thus therefore moreover
    furthermore additionally nevertheless subsequently afterwards initially originally
    still yet also again besides consequently hence likewise similarly otherwise today"""
)
_QUOTED = re.compile(
    r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019|\u00ab[^\u00bb]*\u00bb"
    r"|(?<![\w'])'(?=\S)[^']*(?<=\S)'(?![\w'])"
)
"""Quoted text, every kind of quote: straight and curly double and single, guillemets (a
single quote inside a word, "can't", "Jobs'", is an apostrophe)."""
_YOU = word_set("you your yours yourself yourselves")
_TITLE_WORDS = _PERSON | _THING | _GROUP | _SPEAKER | _DEMONSTRATIVE | _YOU | word_set("that")
"""Pronouns and demonstratives that open or sit inside titles ("My Tutor Friend", "What We
Do in the Shadows", "Me Before You", "This Christmas")."""
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_OBJECT_FORMS = word_set("me us him them")
"""Pronouns that never open a statement: capitalised first, they open a title."""
_WORD = re.compile(r"[^\W\d_][\w'\u2019]*")


def source_titles(source: str) -> frozenset[str]:
    """The titles of ``source`` that hold a pronoun or demonstrative, where it names them
    inside a sentence ("... including the award-winning My Indian Soldier (2003)"): the
    capitalised run from that word on. A proposition opening with one of them names the
    title, not a speaker ("My Indian Soldier is a documentary.")."""
    found: set[str] = set()
    masked = _mask_titles(source)
    for match in _WORD.finditer(source):
        if masked[match.start()] == "Q" and source[match.start()] != "Q":
            end = len(masked[match.start() + 1 :]) - len(masked[match.start() + 1 :].lstrip(" "))
            found.add(source[match.start() : match.start() + 1 + end].rstrip(" ,"))
    return frozenset(found)


def _mask_titles(text: str, titles: frozenset[str] = frozenset()) -> str:
    """``text`` with each title that holds a pronoun or demonstrative masked as one quoted
    title ("Q"): a capitalised such word inside a sentence (never "I" alone: "I, Robot"
    and "I Am Number Four" are titles, "Ann and I" is not) with the capitalised words
    after it; at the start of a sentence, one the parse reads as part of a name ("Our
    Town premiered": "Town" a proper noun), an object form ("Me Before You is ...") or
    one of ``titles`` (:func:`source_titles`)."""
    words = list(_WORD.finditer(text))
    spans: list[tuple[int, int]] = []
    for n, match in enumerate(words):
        word = match.group(0)
        if not word[0].isupper() or (len(word) > 1 and word.isupper()):
            continue  # "US", "IT": acronyms
        if word.lower() not in _TITLE_WORDS:
            continue
        after = words[n + 1] if n + 1 < len(words) else None
        next_capital = (
            after is not None
            and after.group(0)[0].isupper()
            and not text[match.end() : after.start()].strip(" ,")
        )
        before = text[: match.start()]
        opening = not before.strip(" \"'\u201c\u2018(") or re.search(r"[.!?:]\W*$", before)
        if word == "I":
            title = next_capital and not opening
        elif not opening:
            title = True
        elif word.lower() in _OBJECT_FORMS:
            title = next_capital
        elif any(text.startswith(t, match.start()) for t in titles if " " in t):
            title = True  # the source names this title inside a sentence
        elif next_capital:  # parse the sentence it opens, not the whole text
            stop = _SENTENCE_END.search(text, match.start())
            sentence = text[match.start() : stop.end() if stop else len(text)]
            parsed = parse(sentence)
            title = parsed is not None and _proper_after(parsed, match.end() - match.start())
        else:
            title = False
        if title:
            end = match.end()
            for later in words[n + 1 :]:
                gap = text[end : later.start()]
                if not later.group(0)[0].isupper() or gap.strip(" ,"):
                    break
                end = later.end()
            spans.append((match.start(), end))
    for start, end in reversed(spans):
        text = text[:start] + "Q" + " " * (end - start - 1) + text[end:]
    return text


def _proper_after(parsed: Parse, offset: int) -> bool:
    """Is the first word after character ``offset`` a proper noun in the parse?"""
    later = [w for w in parsed.words if w.idx >= offset]
    return bool(later) and later[0].tag in {"NNP", "NNPS"}


def _is_expletive(norms: list[str], i: int) -> bool:
    """``it`` in "it is estimated that", "it is revealed that", "it takes...", "makes it
    possible to"."""
    rest = [w for w in norms[i + 1 : i + 5] if w not in ("not", "also", "now")]
    if rest and rest[0] in _EXPLETIVE_VERBS:
        return True
    j = 0
    while j < len(rest) and rest[j] in AUXILIARIES:
        j += 1
    if j and j + 1 < len(rest) and rest[j].endswith("ed") and rest[j + 1] == "that":
        return True  # "it is revealed that", "it was decided that"
    return j < len(rest) and rest[j] in _EXPLETIVE_ADJ


Problem = tuple[str, str, Severity]


_STARRED = re.compile(r"(?<=[^\W\d_])\*(?=[^\W\d_])")
"""A star between two letters: a letter the text could not encode or a censored one
("L'H*me-Chamondot", "f*ck"); the word stays one word ("me" in "H*me" is no pronoun)."""
_SENTENCE_STOPS = frozenset({".", "!", "?", ";"})
_MODALS = word_set("will may might can must shall")
"""Modals that are also first names ("Will", "May"): before an inflected verb, a name."""


@lru_cache(maxsize=256)
def source_names(source: str) -> frozenset[str]:
    """The words ``source`` writes capitalised inside a sentence (not first, not after a
    colon), in lower case: the document's own use of a word as a name ("... met Rose in
    Leeds": "rose", "leeds"). A proposition's "Rose" or "Will" that the word lists read as
    a verb is a name when the source uses it so."""
    found: set[str] = set()
    for sentence in source_sentences(source):
        toks = tokens(sentence.text)
        for k in range(1, len(toks)):
            if toks[k].capitalised and not toks[k].number and toks[k - 1].norm not in ":.!?;":
                found.add(toks[k].norm)
    return frozenset(found)


@lru_cache(maxsize=8192)
def _problems(
    proposition: str,
    titles: frozenset[str] = frozenset(),
    names: frozenset[str] = frozenset(),
) -> tuple[Problem, ...]:
    # a quoted title stays one word ("Q", never a name nor a pronoun): "explains in
    # "Viciously Yours" that ..." keeps its "that" a complementiser
    quoted = _QUOTED.sub(lambda m: "Q" + " " * (len(m.group(0)) - 1), proposition)
    quoted = _STARRED.sub("x", quoted)
    text = _mask_titles(quoted, titles)
    toks = tokens(text)
    norms = [t.norm for t in toks]
    problems: list[Problem] = []

    def earlier_nouns(i: int) -> list[int]:
        return [
            k
            for k in range(i)
            if not toks[k].number
            and norms[k] not in GLUE_WORDS
            and not looks_like_finite_verb(toks, k)
            and not norms[k].endswith("ly")
        ]

    def is_name(k: int) -> bool:
        """A capitalised word that can name a person: not a month or day, not an acronym,
        not a place after "in/at/from", not an opening adverb ("However", "Soon")."""
        tok = toks[k]
        if not tok.capitalised or tok.text.isupper():
            return False
        if tok.norm in _NON_NAMES and _a_date(k):
            return False  # "in June", "June 5"; "June wants to redeem herself" names her
        possessor = re.search(rf"\b{re.escape(tok.text)}['\u2019]s\b", text) is not None
        if k and norms[k - 1] in _PLACE_PREPOSITIONS and not possessor:
            return False  # "in Paris"; not "In Charlie's childhood"
        return not (k == 0 and tok.norm in _OPENING_ADVERBS)

    def _a_date(k: int) -> bool:
        """A month or day name used as a date: after "in"/"on"/"since"... or next to a
        number."""
        before = toks[k - 1] if k else None
        after = toks[k + 1] if k + 1 < len(toks) else None
        return (before is not None and (before.number or before.norm in DATE_PREPOSITIONS)) or (
            after is not None and after.number
        )

    def subject_after_opening(i: int) -> list[int]:
        """Cataphora: for a pronoun in an opening phrase ("After her divorce, Martha
        ..."), the first three words after the phrase's comma, where the subject stands;
        empty when the pronoun is not in such a phrase."""
        at = text.find(",")
        comma = len(tokens(text[:at])) if at >= 0 else 0  # tokens before the comma
        if comma <= i or norms[0] not in _OPENING_PREPOSITIONS | CLAUSE_OPENING_SUBORDINATORS:
            return []  # "She ..., Martha", "One of his works is ..., Leicestershire"
        if norms[0] not in CLAUSE_OPENING_SUBORDINATORS and (
            any(
                looks_like_finite_verb(toks, k) and not (k and norms[k - 1] == "to")
                for k in range(comma)
            )  # "To support her family, Isobel ...": an infinitive, no clause
            or (norms[i] in _SUBJECTS and i + 1 < comma and can_be_finite_verb(norms[i + 1]))
        ):
            return []  # "After school he joined ..., Texas", "At the airport in 'X' they
            # encounter ..., Micah": a clause, no opening phrase
        return list(range(comma, min(len(toks), comma + 3)))

    def named(k: int) -> bool:
        """A capitalised word the word lists read as a verb form, a modal or an adverb
        ("Rose", "Drew", "Will", "May", "Lily") that is a name by the evidence: the source
        uses it as a name (``names``), a finite verb follows it ("Rose lost", "Will
        sold"), or the parse reads it as a proper noun or a subject ("Holly and her
        sister visit")."""
        tok = toks[k]
        if not tok.capitalised or tok.number or tok.text.isupper() or not is_name(k):
            return False
        if tok.norm in names:
            return True
        if tok.norm in GLUE_WORDS and tok.norm not in _MODALS:
            return False  # "To pay", "If found": no name
        after = norms[k + 1] if k + 1 < len(toks) else ""
        if after and not toks[k + 1].capitalised and can_be_verb(after) and lemma(after) != after:
            return True  # an inflected verb ("lost", "sold", "reflects") follows no modal
        parsed = parse(text)
        return parsed is not None and any(
            w.text == tok.text and (w.tag in {"NNP", "NNPS"} or w.dep in {"nsubj", "nsubjpass"})
            for w in parsed.words
        )

    def person_after(i: int) -> bool:
        """For a possessive ("His brother's debts trouble Marco", "Her mother visits Ann
        Kerr"), the person it names later in the sentence: :func:`_cataphora`."""
        if norms[i] not in ("his", "her"):
            return False
        return _cataphora(text, norms[i], sum(1 for t in toks[:i] if t.norm == norms[i]))

    def has_person(i: int) -> bool:
        earlier = earlier_nouns(i)
        for k in [*earlier, *subject_after_opening(i)]:
            if toks[k].number or norms[k] in GLUE_WORDS:
                continue
            w = norms[k]
            if is_name(k):
                return True
            if toks[k].capitalised:
                continue
            if w in _PERSON_NOUNS or w.rstrip("s") in _PERSON_NOUNS or _PERSON_SUFFIX.search(w):
                return True
        if any(named(k) for k in range(i) if k not in earlier):
            return True
        return person_after(i)

    def has_group(i: int) -> bool:
        after = [k for k in subject_after_opening(i) if norms[k] not in GLUE_WORDS]
        nouns = earlier_nouns(i) + after
        for k in nouns:
            w = norms[k]
            place = k > 0 and norms[k - 1] in _PLACE_PREPOSITIONS  # "in Paris"
            title = toks[k].text == "Q"  # a quoted title, masked: "In 'Only For The Week'"
            if w in _COLLECTIVE or (toks[k].capitalised and not place and not title):
                return True
            if w.endswith("s") and not w.endswith(("ss", "us", "is")):
                return True
        return "and" in norms[:i] and len(nouns) >= 2

    for i, w in enumerate(norms):
        if toks[i].number or (len(toks[i].text) > 1 and toks[i].text.isupper()):
            continue  # "US", "IT": acronyms
        said = toks[i].text
        if w in _PERSON and not has_person(i):
            problems.append((BARE_PRONOUN, f'"{said}" has no person named before it', ERROR))
        elif w in _THING and not (w == "it" and _is_expletive(norms, i)) and not earlier_nouns(i):
            problems.append((BARE_PRONOUN, f'"{said}" has no noun before it', ERROR))
        elif w in _GROUP and not has_group(i):
            problems.append(
                (BARE_PRONOUN, f'"{said}" has no plural noun or group before it', ERROR)
            )
        elif w in _SPEAKER and not (w == "i" and i and toks[i - 1].capitalised):
            problems.append(
                (SPEAKER_PRONOUN, f'"{said}" refers to a speaker outside the text', ERROR)
            )
        elif w in _YOU:
            problems.append(
                (IMPERSONAL_YOU, f'"{said}": the generic reader, not a named person', WARNING)
            )
        else:
            problem = _anaphoric_phrase(toks, norms, i)
            if problem:
                phrase = problem.split('"')[1].lower()
                if " " not in phrase:  # "This" alone, not "This process"
                    problems.append((BARE_PRONOUN, problem, ERROR))
                else:  # "this process", "the former": certain; "such systems": suspect
                    loose = phrase.startswith(("such ", "the same"))
                    problems.append((ANAPHORIC_PHRASE, problem, WARNING if loose else ERROR))
    return tuple(problems)


_ARGUMENTS = frozenset({"nsubj", "nsubjpass", "dobj", "dative"})


@lru_cache(maxsize=4096)
def _cataphora(text: str, pronoun: str, nth: int) -> bool:
    """Is the ``nth`` (0-based) ``pronoun`` ("his" or "her") of ``text`` a possessive that
    names a person who comes after it in the same sentence, by the parse: a subject or
    object of the main clause (its verb or a verb joined to it: "continue to trouble
    Marco") that is a person-shaped name or a name the named-entity recogniser labels a
    person ("His brother's debts continue to trouble Marco", "Her mother visits Ann
    Kerr")? Not a name inside the possessive's own phrase ("Her nephew Raimund Sanders",
    "his victory over Humayun"), not in a clause of "be" ("His father was John Smith",
    "Among his officers was William Adams": the name is what the phrase names), not when
    the main clause's subject is a pronoun ("To pay off his debts, he courts Alison":
    "his" is that pronoun's). False without the parser."""
    parsed = parse(text)
    if parsed is None:
        return False
    words = parsed.words
    found = [k for k, w in enumerate(words) if w.text.lower() == pronoun]
    if nth >= len(found) or words[found[nth]].tag != "PRP$":
        return False  # "told her the news": an object, no possessive
    p = found[nth]
    top = words[p].head
    while words[top].dep in ("poss", "compound") and words[top].head != top:
        top = words[top].head  # "His brother's debts": the phrase is "debts"
    phrase = parsed.subtree(top)
    root = next((k for k, w in enumerate(words) if w.dep == "ROOT"), None)
    if root is None or words[root].lemma == "be":
        return False
    verbs = {root} | {
        k
        for k in parsed.subtree(root)
        if words[k].dep in ("xcomp", "conj") and words[k].pos in ("VERB", "AUX")
    }
    subjects = [
        k for v in verbs for k in parsed.children(v) if words[k].dep in ("nsubj", "nsubjpass")
    ]
    if any(words[k].pos == "PRON" for k in subjects):
        return False
    spans = None
    for k, word in enumerate(words):
        if k <= p or k in phrase or word.pos != "PROPN" or word.tag == "NNPS":
            continue
        head = k
        while words[head].dep in ("compound", "flat") and words[head].head != head:
            head = words[head].head  # "Ann" of "Ann Kerr"
        if words[head].pos != "PROPN" or words[head].dep not in _ARGUMENTS:
            continue  # "three Arafura Games titles": a name inside a common noun's phrase
        if words[head].head not in verbs:
            continue
        name = [words[j].text for j in sorted(parsed.subtree(head)) if words[j].pos == "PROPN"]
        if person_shaped(name):
            return True
        spans = person_spans(text) if spans is None else spans
        if spans and any(a <= word.idx < b for a, b in spans):
            return True
    return False


def _anaphoric_phrase(toks: tuple[Token, ...], norms: list[str], i: int) -> str | None:
    """Demonstratives and phrases that point outside: "this process", "such systems",
    "the former", "the same", "that" after a preposition or opening the sentence."""
    w = norms[i]
    nxt = norms[i + 1] if i + 1 < len(norms) else ""
    prev = norms[i - 1] if i else ""
    if w == "this" and prev == "to" and nxt in ("day", "date"):
        return None  # "continues to this day": the time of writing
    if w in _DEMONSTRATIVE:
        if w == "those" and (
            nxt in ("who", "whose", "that", "which", "he", "she", "they", "we", "i", "you")
            or nxt in _AFTER_THOSE  # "those around her", "those in need": said here
            or (nxt.endswith(("ing", "ed")) and can_be_verb(nxt))  # "those affected"
        ):
            return None  # "those he cares about"
        if nxt and nxt not in GLUE_WORDS and not looks_like_finite_verb(toks, i + 1):
            if stem(nxt) in {stem(x) for x in norms[:i]}:
                return None
            return f'"{toks[i].text} {toks[i + 1].text}" points to something outside'
        return f'"{toks[i].text}" points to something outside the proposition'
    if w == "that" and (i == 0 or prev in PREPOSITIONS or not nxt):
        return f'"{toks[i].text}" points to something outside the proposition'
    if w == "such" and nxt and nxt not in ("as", "a", "an", "that") and nxt not in GLUE_WORDS:
        if stem(nxt) in {stem(x) for x in norms[:i]}:
            return None
        return f'"such {toks[i + 1].text}" points to something outside the proposition'
    if (
        prev == "the"
        and w in ("former", "latter")
        and nxt
        and nxt not in GLUE_WORDS
        and not looks_like_finite_verb(toks, i + 1)
    ):
        return None  # "the former president": an adjective
    if prev == "the" and w in ("former", "latter", "above", "aforementioned", "same"):
        if w == "same" and (nxt in _SAME_OK_NEXT or "as" in norms[i + 1 : i + 4]):
            return None
        if w == "same" and nxt and stem(nxt) in {stem(x) for x in norms[: i - 1]}:
            return None
        return f'"the {toks[i].text}" points to something outside the proposition'
    if i == 0 and w in ("both", "neither", "each") and nxt in AUXILIARIES:
        return f'"{toks[i].text}" points to things outside the proposition'
    return None


_WORKS = word_set("narrative story novel book series tale plot summary")
"""Nouns by which a claim refers to the work the source summarises or describes."""


_PARTS_OF_A_WORK = re.compile(
    r"(?i)^\W*(?:(?:key|main|major|central|other|recurring|significant|important|notable"
    r"|prominent|pivotal)\s+)?(?:events|themes|characters|motifs|scenes|moments|subplots"
    r"|plot\s+points|conflicts|settings|twists)\s+(?:include|involve|are|encompass)\b"
)
"""A claim whose subject is the parts of a work, with no work named: "Key events include
...", "Main characters are ..." (not "Themes of loyalty ...": an "of" says which)."""


def _unnamed_work(proposition: str, toks: tuple[Token, ...]) -> Problem | None:
    """ "The narrative explores grief.", "... are explored in the book.", "Key events
    include ...": the work the claim is about, never named in it (no quoted title, not
    "the story of X")."""
    if _QUOTED.search(proposition):
        return None
    parts = _PARTS_OF_A_WORK.match(proposition)
    if parts is not None:
        return (
            DEFINITE_WITHOUT_ANTECEDENT,
            f'"{parts.group(0).strip()}": the parts of a work the claim does not name',
            WARNING,
        )
    for i in range(len(toks) - 1):
        nxt = toks[i + 2].norm if i + 2 < len(toks) else ""
        if toks[i].norm == "the" and toks[i + 1].norm in _WORKS and nxt != "of":
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"the {toks[i + 1].text}": which work the claim does not say',
                WARNING,
            )
    return None


_WORLD_UNIQUE = word_set(
    """sun moon earth world sky universe internet weather public past present future
    environment atmosphere ocean sea climate economy population papacy"""
)
"""Nouns whose definite use names the one thing there is ("The sun rises")."""
_SURROUNDINGS = word_set("water air ground surface land soil floor wind rain snow sunlight")
"""Nouns whose definite use names the physical surroundings of what the claim is about
("38 metres above the water", "moisture in the air", "below the surface")."""
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_SAYS_WHICH = frozenset(
    {"amod", "compound", "nummod", "prep", "relcl", "acl", "appos", "poss", "nmod", "npadvmod"}
)
"""Dependents of a noun that say which one it is ("the human liver", "the club,
Liverpool FC", "the electrons of a lithium atom", "the team that won")."""


_BARE_SUBJECTS = _PERSON_NOUNS | _COLLECTIVE
_ROLES = (
    _PERSON_NOUNS
    | _COLLECTIVE
    | word_set(
        """narrator hero heroine villain victim couple duo trio pair organisation organization
    firm agency club society union orchestra choir label studio"""
    )
)
"""Person, role and group nouns: "the narrator", "the band" names one specific someone
whatever the tense ("The narrator rents the villa")."""
_IDIOMATIC = word_set(
    """time end beginning start rest past future present meantime moment way truth
    morning afternoon evening night day week month year weekend summer winter spring
    autumn fall top bottom middle front back outset first last latter former same
    following opposite contrary dark light wild open"""
)
"""Nouns whose definite use names a time, a part or a fixed phrase, not a thing the
reader must be told ("in the end", "at the time", "the rest", "learned the truth", "in
the morning")."""
_FIXED_PHRASES = frozenset(
    {
        "on the spot",
        "on the whole",
        "on the go",
        "on the run",
        "on the rise",
        "on the way",
        "by the way",
        "in the way",
        "in the dark",
        "in the air",
        "in the lead",
        "at the helm",
        "at the ready",
        "in the making",
        "on the mend",
        "on the line",
        "at the outset",
        "in the wake",
        "in the process",
        "under the radar",
        "behind the scenes",
        "on the air",
        "off the record",
        "in the red",
        "in the black",
        "in the field",
        "at the scene",
        "to the point",
        "beside the point",
        "on the cards",
        "in the news",
    }
)
"""Fixed phrases whose "the" refers to nothing the reader must be told ("retires on the
spot", "in the dark about it", "in the news")."""
_NOT_ARGUMENTS = frozenset({"attr", "acomp", "oprd", "npadvmod", "appos", "dep", "meta"})
"""Places where a definite does not refer to a thing of its own: a predicate ("Ann was
the winner"), a measure or an apposition."""
_CLAUSE_HEADS = frozenset({"VERB", "AUX"})


def _clause_verb(parsed: Parse, k: int) -> int:
    """The verb whose clause holds word ``k``: the nearest verb above it that heads a
    clause (not a participle used as a preposition or an adjective: "including",
    "lost"); the root when none."""
    words = parsed.words
    seen = {k}
    while words[k].head != k and not (
        words[k].pos in _CLAUSE_HEADS and words[k].dep not in ("prep", "amod", "aux", "auxpass")
    ):
        k = words[k].head
        if k in seen:
            break
        seen.add(k)
    return k


def _past(parsed: Parse, verb: int) -> bool:
    """Is ``verb`` in the past: a past form, or a past auxiliary on it ("was founded")?"""
    words = parsed.words
    return words[verb].tag == "VBD" or any(
        words[k].tag == "VBD" and words[k].dep in {"aux", "auxpass"} for k in parsed.children(verb)
    )


def _role_subject(parsed: Parse, verb: int) -> bool:
    """Is the subject of ``verb`` a person, role or group noun ("The narrator rents",
    "The band tours")? Someone specific, whatever the tense."""
    words = parsed.words
    return any(
        words[k].dep in _SUBJECT_DEPS and words[k].lemma in _ROLES for k in parsed.children(verb)
    )


def _named(parsed: Parse, k: int, names: frozenset[str], text: str) -> bool:
    """Is word ``k`` a name: a proper noun, not an acronym ("ATP"), capitalised inside the
    sentence ("Tensions arise between Mira and Xaden"); first in the sentence, only with
    evidence that it names someone or something (a capitalised first word may be any
    term: "Glycolysis takes place in the cytoplasm"): the source uses it as a name
    (``names``), it opens a person-shaped name, or the named-entity recogniser labels it
    a person ("Elena grapples with the case")."""
    words = parsed.words
    word = words[k]
    if word.pos != "PROPN" or (word.text.isupper() and len(word.text) > 1):
        return False
    first = k == 0 or words[k - 1].text in (".", "!", "?", '"', "\u201c", "'")
    if not first:
        return True
    return word.text.lower() in names or _a_person_name(parsed, k, text)


def _specific_clause(parsed: Parse, verb: int, names: frozenset[str], text: str) -> bool:
    """Does the clause of ``verb`` belong to a sentence about a specific event: its verb or
    the sentence's main verb in the past ("drew", "was founded", "said that the ship
    sank"), a name among the sentence's words ("Ann reopens the shop", "Tensions arise
    between Mira and Xaden", "Lilith discovers that the bargain is the source of the
    plague"), or a person, role or group noun as the subject ("The narrator rents")? The
    present with neither states what holds in general ("The cathode determines the
    capacity", "The liver turns glucose into glycogen")."""
    words = parsed.words
    main, seen = verb, {verb}
    while words[main].head != main and words[main].head not in seen:
        main = words[main].head
        seen.add(main)
    return (
        _past(parsed, verb)
        or _past(parsed, main)
        or any(_named(parsed, k, names, text) for k in parsed.subtree(main))
        or _role_subject(parsed, verb)
        or _role_subject(parsed, main)
    )


def _a_person_name(parsed: Parse, k: int, text: str) -> bool:
    """Is the proper noun at ``k`` a person's name: a word of a person-shaped name
    ("Patricia Liu", :func:`._align.person_shaped`) or of a span the named-entity
    recogniser labels a person?"""
    words = parsed.words
    run = [k]
    while run[0] > 0 and words[run[0] - 1].pos == "PROPN":
        run.insert(0, run[0] - 1)
    while run[-1] + 1 < len(words) and words[run[-1] + 1].pos == "PROPN":
        run.append(run[-1] + 1)
    if person_shaped([words[j].text for j in run]):
        return True
    spans = person_spans(text)
    return spans is not None and any(a <= words[k].idx < b for a, b in spans)


def _may_name(parsed: Parse, k: int, noun: int, text: str) -> bool:
    """May the earlier word ``k`` be what the definite at ``noun`` refers to: the same
    lemma ("a ship ... the ship"), or a proper noun in another clause ("Liverpool FC won
    the league and the club ...", "After Oasis split, the band ..."), never one in the
    definite's own clause ("Elena grapples with the case": Elena is no case) nor a
    person's name for a noun that names no person ("June assures Patricia Liu that she
    has improved the manuscript")?"""
    words = parsed.words
    if words[k].lemma == words[noun].lemma:
        return True
    if words[k].pos != "PROPN" or _clause_verb(parsed, k) == _clause_verb(parsed, noun):
        return False
    return words[noun].lemma in _ROLES or not _a_person_name(parsed, k, text)


_CANDIDATE = re.compile(r"\b[Tt]he\s+([a-z][a-z-]*)\b(?!\s+of\b)")
"""A "the" and a lower-case word not followed by "of" (which would say which)."""
_EXEMPT = _WORLD_UNIQUE | _SURROUNDINGS | _IDIOMATIC | _WORKS


def _may_find_definite(proposition: str, names: frozenset[str]) -> bool:
    """Can :func:`_definite_by_parse` find anything in ``proposition``, by its words alone
    (a cheap test before a parse, never false where the parse could find one)? A "the"
    before a lower-case word none of the exempt lists holds (or a bare person or group
    noun first), and a sign of a specific event: a past-tense form, a capitalised word
    inside the sentence, a capitalised first word that is no function word (a name the
    source uses or the recogniser may call a person), or a person, role or group noun."""
    toks = tokens(proposition)
    if not toks:
        return False
    bare = toks[0].norm in _BARE_SUBJECTS and toks[0].capitalised
    if not bare and not any(m.group(1) not in _EXEMPT for m in _CANDIDATE.finditer(proposition)):
        return False  # no "the" before a common noun that may be judged: no parse
    first = toks[0]
    return (
        any(_can_be_past(t.norm) or t.norm.endswith("ed") for t in toks)
        or any(t.capitalised and not t.number for t in toks[1:])
        or (first.capitalised and (first.norm in names or first.norm not in GLUE_WORDS))
        or any(t.norm in _ROLES or lemma(t.norm) in _ROLES for t in toks)
    )


@lru_cache(maxsize=65536)
def _can_be_past(word: str) -> bool:
    """Is ``word`` (lower case) a past-tense form of some verb in lemminflect's lexicon
    ("drew", "was", "founded")?"""
    found = all_lemmas(word)
    return any(
        word in all_inflections(base, upos="VERB").get("VBD", ())
        for base in found.get("VERB", ()) + found.get("AUX", ())
    )


@lru_cache(maxsize=8192)
def _definite_by_parse(proposition: str, names: frozenset[str] = frozenset()) -> Problem | None:
    """A definite noun phrase naming a specific thing the proposition does not introduce,
    whatever the source writes: "the" and a bare common noun ("The group was formed in
    1994.", "Elena grapples with the complexities of the case.", "The narrator rents the
    villa.", "The band's first album was released.") or a person or group noun with no
    article ("Council apologised."), in a clause that states a specific event
    (:func:`_specific_clause`: the past, a named subject, a person or group noun as
    subject). A singular noun in any place of the clause (subject, object, after a
    preposition, a possessor, inside an "of" phrase); a plural only as the subject.

    Not: a noun with a word or phrase that says which ("the human liver", "the club,
    Liverpool FC", "Klopp's club", "the electrons of a lithium atom", "the team that
    won"), a world-unique noun ("the sun", "the internet"), a time, part or fixed phrase
    ("at the time", "the rest", "learned the truth"), the work a claim is about
    (:func:`_unnamed_work`), a predicate ("Ann was the winner"), a noun the proposition
    introduces or may name before (:func:`_may_name`: "A ship sank and the ship ...",
    "Liverpool FC won and the club ..."), a kind in general ("The liver turns glucose
    into glycogen"). Names ("the United States") are proper nouns, never judged. None
    without the parser, or when nothing is found; a question is not judged.

    Parsed only when the words allow a finding (:func:`_may_find_definite`)."""
    if proposition.rstrip().endswith("?") or not _may_find_definite(proposition, names):
        return None
    parsed = parse(proposition)
    if parsed is None:
        return None
    words = parsed.words
    for i, word in enumerate(words):
        first_bare = i == 0 and word.text.lower() in _BARE_SUBJECTS  # "Council apologised"
        if word.dep in _NOT_ARGUMENTS or not (
            first_bare or (word.pos == "NOUN" and word.tag in {"NN", "NNS"})
        ):
            continue
        if word.tag == "NNS" and word.dep not in _SUBJECT_DEPS:
            continue  # "the survivors", "the cables" after a verb: judged as subjects only
        if word.dep == "compound" or (i + 1 < len(words) and words[i + 1].pos in ("NOUN", "PROPN")):
            continue  # "the proton gradient" read as two phrases: a compound
        kids = [words[k] for k in parsed.children(i)]
        articles = [k.lemma for k in kids if k.dep == "det"]
        lower = word.text.lower()
        bare_subject = (
            not articles and i == 0 and word.text[:1].isupper() and lower in _BARE_SUBJECTS
        )
        if articles != ["the"] and not bare_subject:
            continue
        if not word.text.islower() and not bare_subject:
            continue  # "The Times": a name
        if any(k.dep in _SAYS_WHICH for k in kids):
            continue
        if word.lemma in _WORLD_UNIQUE | _SURROUNDINGS | _IDIOMATIC | _WORKS or lower in _IDIOMATIC:
            continue
        if i >= 2 and f"{words[i - 2].text.lower()} the {lower}" in _FIXED_PHRASES:
            continue  # "on the spot", "in the end"
        verb = _clause_verb(parsed, i)
        if not _specific_clause(parsed, verb, names, proposition):
            continue  # "The liver turns glucose into glycogen": a kind, in general
        earlier = [k for k in range(i) if words[k].pos in ("NOUN", "PROPN")]
        if any(_may_name(parsed, k, i, proposition) for k in earlier):
            continue  # "A ship sank and the ship ...", "Liverpool FC won and the club ..."
        if bare_subject and not _past(parsed, verb):
            continue  # "Company is a film": a title; "Council apologised": someone
        if bare_subject:
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"{word.text}" without an article: which one the proposition does not say',
                WARNING,
            )
        return (
            DEFINITE_WITHOUT_ANTECEDENT,
            f'"the {word.text}": which {word.text} the proposition does not say',
            WARNING,
        )
    return None


def _definite(proposition: str, source: str, names: frozenset[str]) -> Problem | None:
    """What the source says the definite refers to (:func:`_definite_in_source`), else what
    the parse says (:func:`_definite_by_parse`, whatever the source writes; ``names``: the
    proposition's words the source uses as names)."""
    return _definite_in_source(proposition, source) or _definite_by_parse(proposition, names)


def _definite_in_source(proposition: str, source: str) -> Problem | None:
    """'The residue blocks the sensor.' where the source introduced that residue in an
    earlier sentence and refers back to it ('the/this residue') in the aligned one,
    'The ventricle pumps ...' where the aligned sentence says which ('the left
    ventricle'), or 'The panels use ...' where the source only says which ('most
    commercial panels')."""
    toks = tokens(proposition)
    unnamed = _unnamed_work(proposition, toks)
    if unnamed is not None:
        return unnamed
    if len(toks) < 3 or toks[0].norm != "the" or toks[1].capitalised or toks[1].number:
        return None
    if not (looks_like_finite_verb(toks, 2) or can_be_verb(toks[2].norm)):
        return None  # "The residue of the solvent ...": the description is spelled out
    window = align(proposition, source)
    if window is None:
        return None
    noun = stem(toks[1].norm)
    said = {stem(t.norm) for t in toks if not t.number}
    for k in range(window.start, window.end):
        sentence = tokens(window.sentences[k].text)
        dropped = [  # "The ventricle ..." where the source says "the left ventricle"
            sentence[j - 1].text
            for j, t in enumerate(sentence)
            if j > 1
            and stem(t.norm) == noun
            and sentence[j - 2].norm in _DEFINITE
            and sentence[j - 1].norm not in GLUE_WORDS
            and not sentence[j - 1].number
            and stem(sentence[j - 1].norm) not in said
        ]
        if dropped:
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"the {toks[1].text}": the source says "the {dropped[0]} {toks[1].text}"',
                WARNING,
            )
    for k in range(window.start, window.end):
        sentence = tokens(window.sentences[k].text)
        referring = any(
            stem(t.norm) == noun and j and sentence[j - 1].norm in _DEFINITE
            for j, t in enumerate(sentence)
        )
        if referring and any(s.supports(noun) for s in window.sentences[:k]):
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"the {toks[1].text}": the source says which in an earlier sentence',
                WARNING,
            )
    sentences = [s.text for s in window.sentences[: window.end]]
    modifier = _only_modified(noun, said, sentences) if looks_like_finite_verb(toks, 2) else ""
    if modifier:  # "The underground channel ...": "underground" is no head noun
        return (
            DEFINITE_WITHOUT_ANTECEDENT,
            f'"the {toks[1].text}": the source only says "{modifier} {toks[1].text}"',
            WARNING,
        )
    return None


_ARTICLES = _DEFINITE | word_set("a an its their his her our")


def _only_modified(noun: str, said: set[str], sentences: list[str]) -> str:
    """The word before ``noun`` where ``sentences`` (the aligned ones and those before
    them) write it only with a word the proposition does not say before it ("human
    liver", "most commercial panels", "curatores aquarum"), never after an article or
    at the start of a sentence ("the liver", "a panel", "Panels ..."); "" otherwise."""
    found = ""
    for text in sentences:
        toks = tokens(text)
        for j, tok in enumerate(toks):
            if tok.number or stem(tok.norm) != noun:
                continue
            before = toks[j - 1] if j else None
            if before is None or before.norm in _ARTICLES:
                return ""  # the source names it so itself
            if before.norm in GLUE_WORDS or before.number:
                continue  # "of panels", "and panels": neither
            if stem(before.norm) not in said:
                found = found or before.text
    return found


_SINGULAR_PERSON = _PERSON
_MASCULINE_PRONOUNS = word_set("he him his himself")
_FEMININE_PRONOUNS = word_set("she her hers herself")
_AGREEING_WORD = re.compile(r"(?i)\b(?:he|him|his|himself|she|her|hers|herself|it|its|itself)\b")
_MASCULINE_NOUNS = word_set(
    """man men boy boys gentleman father son brother husband uncle nephew grandfather
    grandson stepfather stepson king prince duke emperor lord sir baron count earl monk
    actor waiter steward businessman sportsman chairman spokesman fisherman nobleman
    schoolboy boyfriend fiance widower bachelor patriarch sultan tsar czar pharaoh mr"""
)
"""English nouns (and titles before a name: "Mr", "Sir", "King") that name a man."""
_FEMININE_NOUNS = word_set(
    """woman women girl girls lady mother daughter sister wife aunt niece
    grandmother granddaughter stepmother stepdaughter queen princess duchess empress
    countess baroness nun actress waitress stewardess heroine businesswoman sportswoman
    chairwoman spokeswoman schoolgirl girlfriend fiancee widow matriarch mrs ms miss
    madame dame"""
)
"""English nouns (and titles before a name: "Mrs", "Ms", "Queen") that name a woman."""
_PERSON_DEPS_OF_IT = frozenset({"dobj", "pobj", "poss", "dative", "iobj"})
"""The places of an "it"/"its" that refers (an object or a possessor), never an expletive
subject ("it is likely that", "it was late")."""


def _gender(parsed: Parse, k: int) -> str:
    """The gender a person word of the parse says: "m" or "f" for a gendered noun or
    pronoun ("king", "she"), or for a name after a gendered title ("Mr. Brown", "Queen
    Mary"); "" when it does not say (a name alone, "the doctor")."""
    words = parsed.words
    text = words[k].text.lower().rstrip(".")
    if text in _MASCULINE_PRONOUNS or text in _MASCULINE_NOUNS:
        return "m"
    if text in _FEMININE_PRONOUNS or text in _FEMININE_NOUNS:
        return "f"
    if words[k].pos == "PROPN":
        for j in range(k - 1, max(-1, k - 4), -1):  # the title before the name's words
            before = words[j].text.lower().rstrip(".")
            if before in _MASCULINE_NOUNS:
                return "m"
            if before in _FEMININE_NOUNS:
                return "f"
            if words[j].pos != "PROPN" and words[j].text != ".":
                break
    return ""


def _a_person(parsed: Parse, k: int) -> bool:
    """Can word ``k`` of the parse be a person: a singular proper noun, a person noun
    ("the nurse", "the king"), a he/she pronoun?"""
    word = parsed.words[k]
    text = word.text.lower().rstrip(".")
    if text in _SINGULAR_PERSON:
        return word.tag in {"PRP", "PRP$"}
    if word.pos == "PROPN" or (word.pos == "NOUN" and word.text[:1].isupper()):
        return word.tag not in {"NNS", "NNPS"}  # a name ("Britta" read as a noun)
    return (
        word.pos == "NOUN"
        and word.tag == "NN"
        and (text in _PERSON_NOUNS or text in _MASCULINE_NOUNS or text in _FEMININE_NOUNS)
    )


def _surely_a_person(parsed: Parse, k: int, proposition: str) -> bool:
    """Is word ``k`` a person for certain: a person noun in lower case ("the nurse"), or a
    proper noun that is a word of a person-shaped name of the proposition ("Mary Smith":
    two capitalised words, the first no dictionary word; :func:`._align.person_names`)
    and that the named-entity recogniser labels a person (not "Pennwest University",
    not "The Aviary")?"""
    word = parsed.words[k]
    text = word.text.lower()
    if word.pos == "NOUN" and word.text.islower():
        return text in _PERSON_NOUNS or text in _MASCULINE_NOUNS or text in _FEMININE_NOUNS
    if word.pos != "PROPN" or not any(stem(text) in name for name in person_names(proposition)):
        return False
    spans = person_spans(proposition)
    return spans is not None and any(a <= word.idx < b for a, b in spans)


def _singular_agreement(parsed: Parse, i: int) -> Problem | None:
    """A he/she pronoun at word ``i`` whose candidate antecedents before it disagree: only
    plural nouns ("Thousands of fans mourned his death."), or only persons of the other
    gender ("The actress won an award for his role.", "Mr. Brown sold her house.")."""
    word = parsed.words[i]
    candidates = [w for w in parsed.words[:i] if w.pos in {"NOUN", "PROPN"}]
    names = [  # a capitalised word that is no plural noun nor function word: a name
        w
        for w in parsed.words[:i]
        if w.text[:1].isupper()
        and w.tag != "NNS"
        and w.pos not in {"DET", "ADV", "ADP", "PRON", "CCONJ", "SCONJ", "NUM"}
    ]
    if candidates and not names and all(w.tag == "NNS" for w in candidates):
        return (
            BARE_PRONOUN,
            f'"{word.text}" has only plural nouns before it'
            f" ({', '.join(w.text for w in candidates)})",
            WARNING,
        )
    persons = [k for k in range(i) if _a_person(parsed, k)]
    wanted = "m" if word.text.lower() in _MASCULINE_PRONOUNS else "f"
    genders = {_gender(parsed, k) for k in persons}
    if persons and genders == {"f" if wanted == "m" else "m"}:
        return (
            BARE_PRONOUN,
            f'"{word.text}" disagrees in gender with every person before it'
            f" ({', '.join(parsed.words[k].text for k in persons)})",
            WARNING,
        )
    return None


def _thing_agreement(parsed: Parse, i: int, proposition: str) -> Problem | None:
    """An "it"/"its" object or possessor at word ``i`` whose only candidate antecedents
    are persons ("Mary Smith founded it in 1990.", "The nurse praised its design."): a
    thing the proposition never names."""
    word = parsed.words[i]
    if word.dep not in _PERSON_DEPS_OF_IT:
        return None
    after = parsed.words[i + 1] if i + 1 < len(parsed.words) else None
    if after is not None and (after.pos == "ADJ" or after.text.lower() in ("to", "that")):
        return None  # "found it difficult to", "made it to the final": no thing meant
    candidates = [k for k in range(i) if parsed.words[k].pos in {"NOUN", "PROPN", "NUM"}]
    if candidates and all(_surely_a_person(parsed, k, proposition) for k in candidates):
        return (
            BARE_PRONOUN,
            f'"{word.text}" has only persons before it'
            f" ({', '.join(parsed.words[k].text for k in candidates)})",
            WARNING,
        )
    return None


@lru_cache(maxsize=8192)
def _disagreeing(proposition: str) -> tuple[Problem, ...]:
    """A pronoun whose only candidate antecedents in the proposition disagree with it, by
    the parse: a he/she whose candidates are all plural nouns or all persons of the other
    gender, an "it"/"its" whose candidates are all persons. Unresolved, as a warning (a
    parse is evidence, not proof; a name alone says no gender). Empty without the parser."""
    if not _AGREEING_WORD.search(proposition):
        return ()  # nothing to agree: no parse
    masked = _mask_titles(_QUOTED.sub(lambda m: "Q" + " " * (len(m.group(0)) - 1), proposition))
    parsed = parse(masked)
    if parsed is None:
        return ()
    for i, word in enumerate(parsed.words):
        if word.tag not in {"PRP", "PRP$"}:
            continue
        lower = word.text.lower()
        if lower in _SINGULAR_PERSON:
            problem = _singular_agreement(parsed, i)
        elif lower in ("it", "its"):
            problem = _thing_agreement(parsed, i, masked)
        else:
            continue
        if problem is not None:
            return (problem,)
    return ()


@lru_cache(maxsize=256)
def _titles_of(source: str) -> frozenset[str]:
    return source_titles(source)


def find_unresolved_pronouns(propositions: list[str], source: str | None = None) -> list[Finding]:
    """Return the findings of each proposition with a pronoun or anaphoric phrase whose
    referent is not inside it, one per problem.

    Errors: ``bare_pronoun``, he/she/him/her/his/hers(elf) with no name (a capitalised
    word) or person noun ("the author", words in -er/-or/-ist/-ian) earlier in the
    proposition; it/its with no noun earlier, unless "it" is expletive ("it is estimated
    that", "it is possible to", "it takes"); they/them/their with no plural noun, group
    noun, name or "X and Y" earlier; "this/these/those/that" standing alone ("This is",
    "after that"); "Both/Each/Neither" + verb as subject. ``speaker_pronoun``: I, we, us,
    our, me, my outside quotation marks ("i.e." is never "I", "US" is an acronym).
    ``anaphoric_phrase``: an error for "this/these/those" + a noun not met earlier and
    "the former/latter/above"; a warning for "such" + noun (not "such as") and "the same"
    (not "the same as", "at the same time"). Warnings:
    ``impersonal_you``, you/your (the generic reader); with ``source``,
    ``definite_without_antecedent``: "The residue blocks ..." where the source introduced
    the residue in an earlier sentence and the aligned one refers back to it, or where
    the source (up to the aligned sentences) only writes it with a word that says which
    ("human liver", "most commercial panels"), never after an article; and, by the parse,
    a definite noun phrase of a specific event that the proposition does not introduce,
    whatever the source writes (:func:`_definite_by_parse`). A first name the word lists
    read as a verb or modal ("Rose", "Will") is a person when the source uses it as a name
    (:func:`source_names`), an inflected verb follows it or the parse reads it as a name;
    a his/her possessive is resolved by a person named after it (:func:`_cataphora`). Quoted text
    (every kind of quote) is not judged. Not flagged: "that" as complementiser or
    relative ("shows that", "the cells that"). Heuristic, not a parser: the antecedent is
    any plausible noun earlier in the text.
    """
    findings: list[Finding] = []
    for p in propositions:
        titles = _titles_of(source) if source is not None else frozenset()
        named = source_names(source) if source is not None else frozenset()
        names = named & {t.norm for t in tokens(p) if t.capitalised}
        problems = list(_problems(p, frozenset(t for t in titles if t in p), names))
        if not any(kind == BARE_PRONOUN for kind, _, _ in problems):
            problems += _disagreeing(p)
        if source is not None and (definite := _definite(p, source, names)) is not None:
            problems.append(definite)
        findings += [
            Finding(p, NO_UNRESOLVED_PRONOUNS, reason, severity=severity, kind=kind)
            for kind, reason, severity in problems
        ]
    return findings
