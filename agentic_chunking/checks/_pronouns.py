"""No unresolved pronouns: every pronoun or anaphoric phrase has its referent inside."""

from __future__ import annotations

import re
from functools import lru_cache

from ._align import align, person_names, source_sentences
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
    looks_like_finite_verb,
    stem,
    tokens,
    word_set,
)
from ._parser import Parse, parse, person_spans
from ._verbs import can_be_finite_verb

_PERSON = word_set("he him his himself she her hers herself")
_THING = word_set("it its itself")
_GROUP = word_set("they them their theirs themselves")
_SPEAKER = word_set("we us our ours ourselves i me my mine myself")
_DEMONSTRATIVE = word_set("this these those")
_DEFINITE = word_set("the this that these those such")
_PREPOSITIONS = word_set(
    "of in on at for with by from after before like about to into than upon under over"
    " despite besides during against without beyond"
)
_SUBJECTS = word_set("he she they we it")
_AFTER_THOSE = _PREPOSITIONS | word_set(
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
_NON_NAMES = word_set(
    """january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday"""
)
_PLACE_PREPOSITIONS = word_set("in at from near across throughout")
_OPENING_PREPOSITIONS = word_set(
    """after before during upon in at despite following while since with without through
    throughout unlike like for to from on"""
)
_SUBORDINATORS = word_set("as when whenever while once because although though if")
"""Words that open a subordinate clause before its main clause: "As they prepare to
leave, Jade and Florence share a goodbye" names "they" after the comma."""
_DATE_PREPOSITIONS = word_set("in on since by until till during before after from of through")
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


@lru_cache(maxsize=8192)
def _problems(proposition: str, titles: frozenset[str] = frozenset()) -> tuple[Problem, ...]:
    # a quoted title stays one word ("Q", never a name nor a pronoun): "explains in
    # "Viciously Yours" that ..." keeps its "that" a complementiser
    quoted = _QUOTED.sub(lambda m: "Q" + " " * (len(m.group(0)) - 1), proposition)
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
        return (before is not None and (before.number or before.norm in _DATE_PREPOSITIONS)) or (
            after is not None and after.number
        )

    def subject_after_opening(i: int) -> list[int]:
        """Cataphora: for a pronoun in an opening phrase ("After her divorce, Martha
        ..."), the first three words after the phrase's comma, where the subject stands;
        empty when the pronoun is not in such a phrase."""
        at = text.find(",")
        comma = len(tokens(text[:at])) if at >= 0 else 0  # tokens before the comma
        if comma <= i or norms[0] not in _OPENING_PREPOSITIONS | _SUBORDINATORS:
            return []  # "She ..., Martha", "One of his works is ..., Leicestershire"
        if norms[0] not in _SUBORDINATORS and (
            any(
                looks_like_finite_verb(toks, k) and not (k and norms[k - 1] == "to")
                for k in range(comma)
            )  # "To support her family, Isobel ...": an infinitive, no clause
            or (norms[i] in _SUBJECTS and i + 1 < comma and can_be_finite_verb(norms[i + 1]))
        ):
            return []  # "After school he joined ..., Texas", "At the airport in 'X' they
            # encounter ..., Micah": a clause, no opening phrase
        return list(range(comma, min(len(toks), comma + 3)))

    def has_person(i: int) -> bool:
        for k in [*earlier_nouns(i), *subject_after_opening(i)]:
            if toks[k].number or norms[k] in GLUE_WORDS:
                continue
            w = norms[k]
            if is_name(k):
                return True
            if toks[k].capitalised:
                continue
            if w in _PERSON_NOUNS or w.rstrip("s") in _PERSON_NOUNS or _PERSON_SUFFIX.search(w):
                return True
        return False

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
    if w == "that" and (i == 0 or prev in _PREPOSITIONS or not nxt):
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
    environment atmosphere ocean sea climate economy population"""
)
"""Nouns whose definite use names the one thing there is ("The sun rises")."""
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_SAYS_WHICH = frozenset(
    {"amod", "compound", "nummod", "prep", "relcl", "acl", "appos", "poss", "nmod", "npadvmod"}
)
"""Dependents of a noun that say which one it is ("the human liver", "the club,
Liverpool FC", "the electrons of a lithium atom", "the team that won")."""


def _specific_event(parsed: Parse, verb: int) -> bool:
    """Is ``verb`` the main verb of the text (its root, or a verb conjoined to it) and in
    the past ("drew", "was founded")? A specific event, whose subject is a specific thing;
    the present states what holds in general ("The cathode determines the capacity")."""
    words = parsed.words
    main = _main_verb(parsed, verb)
    past = words[verb].tag == "VBD" or any(
        words[k].tag == "VBD" and words[k].dep in {"aux", "auxpass"} for k in parsed.children(verb)
    )
    return main and past


_BARE_SUBJECTS = _PERSON_NOUNS | _COLLECTIVE


@lru_cache(maxsize=65536)
def _can_be_past(word: str) -> bool:
    """Is ``word`` (lower case) a past-tense form of some verb in lemminflect's lexicon
    ("drew", "was", "founded")?"""
    found = all_lemmas(word)
    return any(
        word in all_inflections(base, upos="VERB").get("VBD", ())
        for base in found.get("VERB", ()) + found.get("AUX", ())
    )


_PLAIN_BEFORE = word_set("the a an this these those called named")


def _plainly_in(noun: str, source: str) -> bool:
    """Does ``source`` write ``noun`` in lower case with nothing before it that says which
    (after an article, "called", or opening a clause: "the cables", "called curatores")?
    Then the source never says which either. Not "the 1912 film The Loyal 47 Ronin"."""
    for match in re.finditer(rf"\b{re.escape(noun)}\b", source):
        before = re.findall(r"[\w']+|[^\w\s]", source[: match.start()])
        if not before or before[-1].lower() in _PLAIN_BEFORE or not before[-1].isalnum():
            return True
    return False


def _definite_by_parse(proposition: str, source: str) -> Problem | None:
    """The subject of the main clause, in the past (a specific event: "drew", "was
    founded"), that names a specific thing the proposition never introduces: "the" and a
    bare common noun ("The festival drew 40,000 people.", "The
    team won the cup."), or a person or group noun with no article at all ("Passenger was
    a teacher.", "Council apologised."). Not a world-unique noun ("The sun rises"), a
    noun with a word or phrase that says which ("The human liver", "The club, Liverpool
    FC,", "Klopp's club"), nor one the proposition may have introduced before ("A ship
    sank and the ship ...", "Liverpool FC won the league and the club ..."), nor one the
    source writes in lower case itself (it never says which either: the source-based
    rules above judge that). None without the parser, or when nothing is found.

    Parsed only when a past-tense form stands after a "the" (a subject comes before its
    verb) or the first word is a bare person or group noun: "Organisers moved the
    festival." is not parsed; a question ("Did the team win?") is not judged."""
    toks = tokens(proposition)
    past = [i for i, t in enumerate(toks) if _can_be_past(t.norm)]
    if not past:
        return None  # no past tense, no specific event: no parse
    the = [i for i, t in enumerate(toks) if t.norm == "the"]
    bare = bool(toks) and toks[0].norm in _BARE_SUBJECTS
    if not bare and not (the and the[0] < past[-1]):
        return None  # no "the" before a past verb: no definite subject of it, no parse
    parsed = parse(proposition)
    if parsed is None:
        return None
    words = parsed.words
    for i, word in enumerate(words):
        if word.dep not in _SUBJECT_DEPS or word.tag not in {"NN", "NNS", "NNP"}:
            continue
        if not _specific_event(parsed, word.head):
            continue  # "The liver turns glucose into glycogen": a kind, in general
        kids = [words[k] for k in parsed.children(i)]
        if any(k.dep in _SAYS_WHICH for k in kids) or word.lemma in _WORLD_UNIQUE:
            continue
        if any(w.lemma == word.lemma or w.pos == "PROPN" for w in words[:i]):
            continue  # "A ship sank and the ship ...", "Liverpool FC won and the club ..."
        if word.lemma in _WORKS:
            continue  # the work a claim is about: _unnamed_work
        if _plainly_in(word.text.lower(), source) and not _introduced_in(word.text, source):
            continue  # the source names it so itself ("the cables", "called curatores")
        articles = [k for k in kids if k.dep == "det"]
        if word.tag != "NNP" and word.text.islower() and [a.lemma for a in articles] == ["the"]:
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"the {word.text}": which {word.text} the proposition does not say',
                WARNING,
            )
        bare = not articles and i == 0 and word.text[:1].isupper()
        lower = word.text.lower()
        if bare and (lower in _PERSON_NOUNS or lower in _COLLECTIVE):
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"{word.text}" without an article: which one the proposition does not say',
                WARNING,
            )
    return None


def _definite(proposition: str, source: str) -> Problem | None:
    """What the source says the definite refers to (:func:`_definite_in_source`), else what
    the parse says (:func:`_definite_by_parse`, :func:`_definite_object_by_parse`)."""
    return (
        _definite_in_source(proposition, source)
        or _definite_by_parse(proposition, source)
        or _definite_object_by_parse(proposition, source)
    )


_INTRODUCING = frozenset({"amod", "compound", "poss", "nummod", "relcl", "acl", "appos"})
"""Dependents of a noun's mention that say which one it is or introduce it ("a yellow,
antique house", "Anson's squadron", "the squadron, which had six ships")."""


@lru_cache(maxsize=8192)
def _introduced_in(noun: str, source: str) -> bool:
    """Does ``source`` introduce ``noun`` (a lower-case singular noun) at its first mention:
    with "a"/"an" ("a storm", "Camp Pine, a summer camp") or with words that say which
    ("their mission", "the squadron, which had six ships")? Then the thing is a
    specific one the source sets up, and a proposition's bare "the storm" loses which.
    False when the first mention is a bare "the storm" (the source takes it as known) or
    the parse finds no such mention; False without the parser."""
    for sentence in source_sentences(source):
        if not re.search(rf"\b{re.escape(noun)}\b", sentence.text):
            continue
        parsed = parse(sentence.text)
        if parsed is None:
            return False
        for k, word in enumerate(parsed.words):
            if word.text != noun or word.tag != "NN" or word.dep == "compound":
                continue  # "a house builder" names no house
            kids = [parsed.words[c] for c in parsed.children(k)]
            if any(c.dep == "det" and c.lemma in ("a", "an") for c in kids):
                return True
            return any(c.dep in _INTRODUCING for c in kids)
    return False


def _main_verb(parsed: Parse, k: int) -> bool:
    """Is word ``k`` the main verb of the text: its root or a verb conjoined to it?"""
    words = parsed.words
    return words[k].dep == "ROOT" or (words[k].dep == "conj" and words[words[k].head].dep == "ROOT")


def _named_subject(parsed: Parse, verb: int) -> bool:
    """Does the subject of ``verb`` hold a name ("Ann", "Ann's father"; not an acronym
    such as "ATP")? A named someone doing something: a specific event, in any tense."""
    for k in parsed.children(verb):
        if parsed.words[k].dep in _SUBJECT_DEPS:
            return any(
                parsed.words[j].pos == "PROPN" and not parsed.words[j].text.isupper()
                for j in parsed.subtree(k)
            )
    return False


_THE_NOUN = re.compile(r"\b[Tt]he ([a-z][a-z-]+)\b")


def _first_mention_unplain(noun: str, source: str) -> bool:
    """Does the first mention of ``noun`` in ``source`` stand after another word than
    "the" (what :func:`_introduced_in` may find introduced)? A cheap test before a parse."""
    match = re.search(rf"\b{re.escape(noun)}\b", source)
    if match is None:
        return False
    before = source[: match.start()].rstrip().rsplit(None, 1)
    return not before or before[-1].lower() != "the"


def _definite_object_by_parse(proposition: str, source: str) -> Problem | None:
    """The object of the main verb (in the past, or with a named subject: a specific event),
    or of a preposition on it, that is "the" and a bare singular common noun ("Ann's
    father visits the camp.", "Ann talks with the narrator.", "After the storm, Ann
    reopens the shop.") where the source introduced that thing at its first mention ("a
    summer camp", "a storm": a specific one) and the proposition never says which. Not a
    noun with a word or phrase that says which, a world-unique noun, a noun the
    proposition names before, the work a claim is about, nor one the source's first
    mention takes as known ("the truth"). None without the
    parser, or when nothing is found."""
    if not any(_first_mention_unplain(m.group(1), source) for m in _THE_NOUN.finditer(proposition)):
        return None  # every "the X" is one the source first writes "the X" itself: no parse
    parsed = parse(proposition)
    if parsed is None:
        return None
    words = parsed.words
    for i, word in enumerate(words):
        if word.tag != "NN" or not word.text.islower() or word.dep not in ("dobj", "pobj"):
            continue
        head = word.head if word.dep == "dobj" else words[word.head].head
        if word.dep == "pobj" and words[word.head].dep != "prep":
            continue
        if not _main_verb(parsed, head) or words[head].pos not in ("VERB", "AUX"):
            continue
        if not (_specific_event(parsed, head) or _named_subject(parsed, head)):
            continue  # "The separator keeps the anode apart": a kind, in general
        if i + 1 < len(words) and words[i + 1].pos in ("NOUN", "PROPN"):
            continue  # "the proton gradient" read as two phrases: a compound
        kids = [words[k] for k in parsed.children(i)]
        if [k.lemma for k in kids if k.dep == "det"] != ["the"]:
            continue
        if any(k.dep in _SAYS_WHICH for k in kids) or word.lemma in _WORLD_UNIQUE | _WORKS:
            continue
        if any(w.lemma == word.lemma for w in words[:i]):
            continue  # "a ship ... the ship"
        if _introduced_in(word.text, source):
            return (
                DEFINITE_WITHOUT_ANTECEDENT,
                f'"the {word.text}": the source introduces which {word.text}; the'
                " proposition does not say",
                WARNING,
            )
    return None


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


_SINGULAR_PERSON = word_set("he him his himself she her hers herself")
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
    ("human liver", "most commercial panels"), never after an article. Quoted text
    (every kind of quote) is not judged. Not flagged: "that" as complementiser or
    relative ("shows that", "the cells that"). Heuristic, not a parser: the antecedent is
    any plausible noun earlier in the text.
    """
    findings: list[Finding] = []
    for p in propositions:
        titles = _titles_of(source) if source is not None else frozenset()
        problems = list(_problems(p, frozenset(t for t in titles if t in p)))
        if not any(kind == BARE_PRONOUN for kind, _, _ in problems):
            problems += _disagreeing(p)
        if source is not None and (definite := _definite(p, source)) is not None:
            problems.append(definite)
        findings += [
            Finding(p, NO_UNRESOLVED_PRONOUNS, reason, severity=severity, kind=kind)
            for kind, reason, severity in problems
        ]
    return findings
