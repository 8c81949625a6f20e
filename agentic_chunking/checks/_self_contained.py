"""Self-contained: one complete declarative sentence that reads without its neighbours."""

from __future__ import annotations

import re
from functools import lru_cache

from .._text import split_sentences
from ._finding import (
    CUT_OFF,
    ERROR,
    FORM,
    LEANS_ON_CONTEXT,
    NO_FINITE_VERB,
    NOT_ONE_SENTENCE,
    SELF_CONTAINED,
    WARNING,
    Finding,
    Problem,
)
from ._language import (
    AUXILIARIES,
    GLUE_WORDS,
    NEGATIONS,
    Token,
    tokens,
    word_set,
)
from ._parser import parse
from ._verbs import (
    FINITE,
    IMPERATIVE,
    UNSURE,
    FiniteVerbReading,
    finite_verb_reading,
    plain_adverb,
)
from ._words import (
    CLAUSE_ONLY_SUBORDINATORS,
    FREQUENT_ADVERBS,
    PREPOSITIONS,
    SUBJECT_PRONOUNS,
    SUBORDINATORS,
)

DISCOURSE_OPENERS: tuple[str, ...] = (
    "also",
    "however",
    "in addition",
    "furthermore",
    "moreover",
    "additionally",
    "similarly",
    "therefore",
    "thus",
    "then",
    "meanwhile",
    "finally",
    "in contrast",
    "on the other hand",
    "as a result",
    "for example",
    "for instance",
    "besides",
    "consequently",
    "hence",
    "likewise",
    "nevertheless",
    "nonetheless",
    "otherwise",
    "instead",
    "still",
    "accordingly",
    "in other words",
    "that said",
    "by contrast",
    "even so",
    "as well",
    "too",
    "and",
    "but",
    "or",
    "so",
    "yet",
    "plus",
    "again",
    "next",
    "lastly",
    "first",
    "second",
    "third",
    "secondly",
    "thirdly",
    "afterwards",
    "subsequently",
    "later",
    "in turn",
    "in particular",
    "in fact",
    "indeed",
    "overall",
    "in summary",
    "to summarise",
    "to summarize",
    "in conclusion",
    "as such",
)
"""Openers that lean on a previous sentence (matched case-insensitively at the start,
with or without a comma)."""

_OPENER = re.compile(
    r"^\W*(?:"
    + "|".join(re.escape(o) for o in sorted(DISCOURSE_OPENERS, key=len, reverse=True))
    + r")\b(?!-)(?!\s+(?:to|of)\b)",  # "In addition to X, ...", "As a result of X, ..."
    re.IGNORECASE,
)
_RELATIVE_TIME = re.compile(
    r"""^\W*(?:
      (?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|several|many|a\ few
         |a\ couple\ of|some|\d+)
         \s+(?:\w+\s+)?  # "two long years later"
         (?:second|minute|hour|day|night|week|month|season|year|decade|century|generation)s?
         \s+(?:(?:later|earlier|afterwards?)\b|(?:before|after)(?=\s*[,.]))
    | (?:years|months|weeks|days|decades|moments|hours|minutes|centuries)
         \s+(?:later|earlier|afterwards?)\b
    | the\ (?:next|following|previous|same)
         \ (?:day|night|morning|evening|afternoon|week|month|season|year|summer|winter|spring)\b
    | the\ (?:day|night|morning|week|year)\ (?:after|before)\s*,
    | (?:soon|shortly|immediately|long|right)\ (?:after|afterwards?|before|thereafter)\s*,
    )""",
    re.IGNORECASE | re.VERBOSE,
)
"""An opening that places the claim in time relative to an event it does not name: "A
year later, ...", "Two weeks later Ann ...", "The next morning, ...", "Soon after, ..."
(not "Two years before his death, ...": the event is named)."""
_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b")
_REFERENCES = re.compile(
    r"""\b(?:
      as\ (?:mentioned|noted|described|discussed|shown|stated|explained|seen|said|outlined)
          (?:\ \w+)?\ (?:above|below|earlier|previously|before|later)
    | see\ (?:above|below|section|figure|table|chapter|fig\b)
    | (?:table|figure|fig|section|chapter|list|example|diagram|chart|paragraph|image|graph)s?
          \ (?:above|below)
    | the\ (?:above|below)\b
    | the\ following\b | as\ follows\b | (?:above|below)-mentioned | aforementioned
    | the\ (?:first|second|third|fourth|last|next|previous|other)\ (?:one|ones)\b
    | the\ (?:previous|preceding|next|following|last|above)
          \ (?:section|chapter|paragraph|sentence|example|page|point|step|item|table|figure)
    | (?:mentioned|described|discussed|listed|shown)\ (?:above|below|earlier|previously)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_RELATIVES = word_set("which whose whom")
_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*\s*$")


def _form_problems(text: str) -> list[Problem]:
    problems: list[Problem] = []
    sentences = split_sentences(text)
    if len(sentences) > 1:
        problems.append((NOT_ONE_SENTENCE, f"{len(sentences)} sentences, not one", WARNING))
    if text.endswith("?"):
        problems.append((NOT_ONE_SENTENCE, "a question, not a statement", WARNING))
    first = text.lstrip("\"'(\u201c\u2018")[:1]
    first_word = re.match(r"\W*(\S+)", text)
    if not (first.isupper() or first.isdigit()) and not (
        first_word and any(c.isupper() for c in first_word.group(1))
    ):
        problems.append((FORM, "does not start with a capital letter or a digit", WARNING))
    opener = _OPENER.match(text)
    if opener:
        problems.append(
            (
                LEANS_ON_CONTEXT,
                f"opens with {opener.group(0).strip()!r}, which leans on a previous sentence",
                WARNING,
            )
        )
    relative = _RELATIVE_TIME.match(text)
    if relative and not opener and not _YEAR.search(text):  # "Ten years later, in 1990"
        problems.append(
            (
                LEANS_ON_CONTEXT,
                f"opens with {relative.group(0).strip(' ,')!r}: a time relative to an event"
                " the proposition does not name",
                WARNING,
            )
        )
    reference = _REFERENCES.search(text)
    if reference:
        problems.append(
            (LEANS_ON_CONTEXT, f"refers to surrounding text: {reference.group(0)!r}", WARNING)
        )
    return problems


_HYPHENATED_END = re.compile(r"-\w+\W*$")


@lru_cache(maxsize=8192)
def _problems(proposition: str) -> tuple[Problem, ...]:
    text = proposition.strip()
    if not text:
        return ((CUT_OFF, "empty", ERROR),)
    problems = _form_problems(text)
    toks = tokens(text)
    words = [t.norm for t in toks]
    closed = bool(_END.search(text))  # a source may close a fragment so: at most a warning
    if words and words[0] in _RELATIVES and not text.endswith("?"):
        problems.append(
            (
                CUT_OFF,
                f"opens with the relative {words[0]!r}: a clause cut from its sentence",
                WARNING if closed else ERROR,
            )
        )
    elif (
        words
        and words[0] in SUBORDINATORS
        and "," not in text
        and not _OPENER.match(text)
        and not _main_clause(text)  # "If X then there are none.": no comma, a main clause
    ):
        # "after", "since", "as" may be prepositions: only a clause-only one is certain
        conjunction = words[0] in CLAUSE_ONLY_SUBORDINATORS
        problems.append(
            (
                CUT_OFF,
                f"a subordinate clause ({words[0]!r} ...) without a main clause",
                ERROR if conjunction and not closed else WARNING,
            )
        )
    elif (reading := finite_verb_reading(text)) != FINITE:
        problems.append(_verbless(reading, words))
    elif (
        words
        and words[-1] in AUXILIARIES | {"and", "or", "but", "of", "the", "a", "to"}
        and not _HYPHENATED_END.search(text)  # "well-being", "bride-to-be" end a sentence
        and not (words[-1] == "being" and len(words) > 1 and words[-2] not in GLUE_WORDS)
        and not (len(toks) > 1 and toks[-1].capitalised)  # "in May", "Sixx:A.M.": a name
    ):
        elliptic = words[-1] in AUXILIARIES and {"than", "as"} & set(words[-5:])
        if not elliptic and not (closed and _elided_verb_phrase(toks)):
            # "... more pious than Mary had been", "However, its output is." are complete
            problems.append(_dangling(text, words))
    return tuple(problems)


def _verbless(reading: FiniteVerbReading, words: list[str]) -> Problem:
    """The finding of a text without a finite verb: an error when no word can be one (a
    fragment: "2.", "Closes: #12345", "Street lamps and park benches."); a warning when
    only the lexicon's rules miss one ("The rise of prices ...") or when the text is an
    imperative ("Upload to unstable."): a complete sentence a source writes, with a verb,
    but an instruction rather than a self-contained claim."""
    if reading == IMPERATIVE:
        return (
            NO_FINITE_VERB,
            f"an imperative (opens on the verb {words[0]!r}): an instruction, not a claim",
            WARNING,
        )
    if reading == UNSURE:
        return (
            NO_FINITE_VERB,
            "no finite verb: a fragment, not a sentence (no verb recognised; a word may be one)",
            WARNING,
        )
    return (NO_FINITE_VERB, "no finite verb: a fragment, not a sentence", ERROR)


def _main_clause(text: str) -> bool:
    """Does the parse put the clause the opening subordinator marks under a main clause
    ("If you distribute copies you must follow section 3.": "distribute" is an adverbial
    clause of "follow"), rather than at the root ("Because the anode expands.")? False
    without the parser: the lexicon's rule stands."""
    parsed = parse(text)
    if parsed is None or not parsed.words:
        return False
    verb = parsed.words[0].head
    if parsed.words[verb].dep in {"aux", "auxpass"}:
        verb = parsed.words[verb].head
    return parsed.words[verb].dep != "ROOT" and parsed.words[verb].head != verb


_DANGLING = re.compile(r"(?:^|\s)(?:the|a|an|and|or|but)[.!?]+[\"'\u201d\u2019]*\s*$")
"""A word no complete sentence ends on, right before the closing mark: "... by the."."""


_ELLIPSIS_LEADS = word_set(
    "what where when who whom whose which why how whether than as if because that since"
    " while unless though although"
)
"""Words that open the clause a complete sentence may close on an auxiliary or a
preposition: "... where the limits were.", "... what we expected the course to do.",
"... faster than anyone thought it would.", "... the rights that you have."."""
_LAST_WORD = re.compile(r"[A-Za-z]+\W*$")
_OPENS_WORD = " \t\n(\"'\u201c\u2018["


def _elliptic(text: str, words: list[str]) -> bool:
    """Does a sentence closed by ". ! ?" end as a complete one may on an auxiliary or a
    preposition: its last word glued to what comes before ("md&a.", "roeckx.be>."), a
    colon or a closing bracket before the mark ("consisted of:.", "(curve a)."), a clause
    opened by a wh-word, "than", "as", "that"... before it, a pronoun subject right
    before it ("We have.", "..., but they did."), a negation among its last words ("But
    it isn't needed to."), or "to" and a verb ("more to do.")?"""
    last = _LAST_WORD.search(text)
    if last is not None and last.start() and text[last.start() - 1] not in _OPENS_WORD:
        return True  # "md&a.", "roeckx.be>.", "1998a)."
    if re.search(r"[:_)\]]\W*$", text):
        return True  # "consisted of:.", "is ____.", "(curve a)."
    before = words[:-1]
    return (
        bool(_ELLIPSIS_LEADS & set(before))
        or (bool(before) and before[-1] in SUBJECT_PRONOUNS)
        or bool(NEGATIONS & set(before[-3:]))
        or (len(before) > 1 and before[-1] == "to" and words[-1] in AUXILIARIES)
    )


_FINITE_AUXILIARIES = AUXILIARIES - word_set("be been being")
_ELIDED_TAIL = word_set("be been have")
"""What may follow a finite auxiliary at the end of an elided verb phrase: "It has been.",
"It will be.", "They must have." (not "being": "is being." is a verb phrase cut off)."""
_SUBJECTS = SUBJECT_PRONOUNS | word_set("there this that these those one who")


def _elided_verb_phrase(toks: tuple[Token, ...]) -> bool:
    """Does the text end on a finite auxiliary right after its subject (adverbs and a
    negation between): a verb phrase elided, the sentence complete ("However, its output
    is.", "... where the limits were.", "..., but they did.", "It has been.")? The subject
    is a pronoun, a name or a content word; never an article, a preposition or a
    conjunction ("... by the is.")."""
    words = [t.norm for t in toks]
    k = len(words) - 1
    while k > 0 and words[k] in _ELIDED_TAIL and words[k - 1] in AUXILIARIES:
        k -= 1  # "has been", "will be", "could have been"
    if k < 1 or words[k] not in _FINITE_AUXILIARIES:
        return False
    j = k - 1
    while j > 0 and (
        words[j] in NEGATIONS
        or words[j] in FREQUENT_ADVERBS
        or (words[j] not in GLUE_WORDS and plain_adverb(words[j]))  # "to" is no adverb here
    ):
        j -= 1  # "it certainly is", "they still have", "it is not"
    subject = words[j]
    if subject in _SUBJECTS:
        return True
    return not (subject in GLUE_WORDS or subject in PREPOSITIONS or toks[j].number)


def _dangling(text: str, words: list[str]) -> Problem:
    """The finding of a proposition ending on an auxiliary, "to", "of", an article or a
    conjunction: an error when no ". ! ?" closes it (a cut text); closed, a warning (a
    source may itself write a fragment so: "... the.", "... is being."), with a reason
    that says whether it ends as a complete sentence may (:func:`_elliptic`: "This was
    what we had expected the course to do.", "But it isn't needed to.") or as a cut one
    ("The bridge was opened by the."). A finite auxiliary after its subject is no finding
    at all (:func:`_elided_verb_phrase`)."""
    last = words[-1]
    if not _END.search(text):
        return (CUT_OFF, f"ends on {last!r}: cut off", ERROR)
    if _DANGLING.search(text) or not _elliptic(text, words):
        return (
            CUT_OFF,
            f"ends on {last!r}: cut off, though closed as a sentence (a source may write"
            " a fragment so)",
            WARNING,
        )
    return (
        CUT_OFF,
        f"ends on {last!r}: perhaps cut off (a complete sentence may end so after"
        " a wh-word, a pronoun or a negation)",
        WARNING,
    )


def find_not_self_contained(propositions: list[str]) -> list[Finding]:
    """Return the findings of each proposition that is not one complete declarative
    sentence reading correctly on its own, one finding per problem.

    Errors (certain): ``cut_off``, empty, a clause opening with a relative ("Which
    makes ..."), a subordinate clause alone ("Because the anode expands"), a proposition
    ending on a dangling word ("and", "the", "is"); closed by ". ! ?", each of these is a
    warning (a source may write such a fragment itself: "... opened by the.", "Which is
    the GNU ..."), and a finite auxiliary after its subject ("However, its output is.",
    "... where the limits were.") is a complete sentence with its verb phrase elided, no
    finding;
    ``no_finite_verb`` when no word can be a finite verb (:func:`._verbs.finite_verb_reading`:
    the parser first, then lemminflect's lexicon; "Street lamps and park benches.", "2.",
    "Closes: #12345"). Warnings: ``no_finite_verb`` when only the lexicon's rules find none
    (a word may be one), or when the text is an imperative ("Upload to unstable.", "Migrate
    to debhelper 13.": a sentence with its verb, an instruction rather than a claim);
    ``not_one_sentence`` (two sentences, a question); ``form`` (no capital or digit
    first; "iPhone" is fine); ``leans_on_context``, a discourse connective opening it
    (``DISCOURSE_OPENERS``: "Also", "However", "In addition," -- not "In addition to X")
    or a reference to surrounding text ("as mentioned above", "see below", "the
    following", "the second one"). No final period is required: a complete sentence
    without one is fine. Pronouns are the separate rule :func:`find_unresolved_pronouns`.
    """
    return [
        Finding(p, SELF_CONTAINED, reason, severity=severity, kind=kind)
        for p in propositions
        for kind, reason, severity in _problems(p)
    ]
