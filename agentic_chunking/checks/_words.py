"""The closed word classes the checks share: one list per class, lower case.

A rule that needs a narrower set derives it here from the one list and names it for what
it is (``CLAUSE_OPENING_SUBORDINATORS``), so two rules never read two versions of the
same class. Open classes (nouns, verbs, adjectives) come from the lexicon
(:mod:`._english`), never from a list here. This module imports nothing of the package.
"""

from __future__ import annotations


def word_set(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words`` as a frozenset (for word-list constants)."""
    return frozenset(words.split())


PREPOSITIONS: frozenset[str] = word_set(
    """of in on at for with by from about to into onto upon under over near between among
    across through during after before without within via like than per despite besides
    against beyond"""
)
"""Prepositions that open a prepositional phrase ("in lithium-ion batteries")."""

SUBORDINATORS: frozenset[str] = word_set(
    """because although though while whereas since unless if when whenever once until after
    before as"""
)
"""Words that open a subordinate clause ("Because the anode expands", "As they leave")."""

CLAUSE_OPENING_SUBORDINATORS: frozenset[str] = SUBORDINATORS - word_set("after before since until")
"""The subordinators that, opening a text before a comma, open a clause and not a
prepositional phrase ("As they prepare to leave, Jade ..."; not "After school he
joined ...", "Since 2001 ..."): :data:`SUBORDINATORS` without those that are also
prepositions."""

CLAUSE_ONLY_SUBORDINATORS: frozenset[str] = CLAUSE_OPENING_SUBORDINATORS - word_set("as once when")
"""The subordinators that never open anything but a clause, so that a clause they open
needs a main clause: :data:`CLAUSE_OPENING_SUBORDINATORS` without "as" (also a
preposition: "as a child"), "once" (an adverb: "once a week") and "when" (a question)."""

DETERMINERS: frozenset[str] = word_set(
    "a an the this that these those its their his her our my your each every some any no"
)
"""Articles, demonstratives, possessives and quantifying determiners: a finite verb never
follows one inside a noun phrase."""

DEFINITE_DETERMINERS: frozenset[str] = word_set("the this that these those such")
"""The article and the demonstratives (and "such"): a noun phrase they open names a thing
the reader is meant to know already ("the case", "this method", "such claims")."""

NON_QUANTIFYING_DETERMINERS: frozenset[str] = DETERMINERS - word_set("each every some any no")
""":data:`DETERMINERS` without the quantifying ones, which also stand alone as a subject
before a verb ("Some say ...", "Each makes ...")."""

DATE_PREPOSITIONS: frozenset[str] = word_set(
    "in on since by until till during before after from of through"
)
"""Prepositions before a date ("in June", "from 1942", "until May 5")."""

FREQUENT_ADVERBS: frozenset[str] = word_set(
    "only also still often always never usually sometimes mostly even just"
)
"""Adverbs frequent between a subject and its verb ("freezing only stops"); the lexicon
reads the rest."""

SUBJECT_PRONOUNS: frozenset[str] = word_set("i you he she it we they")
"""Personal pronouns in the subject form."""

MONTH_NAMES: tuple[str, ...] = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
"""The months in calendar order, as written ("March" is ``MONTH_NAMES[2]``)."""

MONTHS: frozenset[str] = frozenset(m.lower() for m in MONTH_NAMES)
"""Month names (lower case): a number after one is a date, not part of a name."""

WEEKDAYS: frozenset[str] = word_set("monday tuesday wednesday thursday friday saturday sunday")
"""Day names (lower case)."""

PERSON_PRONOUNS: frozenset[str] = word_set("he him his himself she her hers herself")
"""The third person singular pronouns of a person: each needs a person named before it."""

THING_PRONOUNS: frozenset[str] = word_set("it its itself")
"""The third person singular pronouns of a thing."""

GROUP_PRONOUNS: frozenset[str] = word_set("they them their theirs themselves")
"""The third person plural pronouns."""

SPEAKER_PRONOUNS: frozenset[str] = word_set("we us our ours ourselves i me my mine myself")
"""The first person pronouns: a speaker outside the text."""

READER_PRONOUNS: frozenset[str] = word_set("you your yours yourself yourselves")
"""The second person pronouns: the generic reader."""

DEMONSTRATIVES: frozenset[str] = word_set("this these those")
"""The demonstratives that point to something named elsewhere ("this process"); "that"
is apart, most often a complementiser or a relative ("shows that", "the cells that")."""
