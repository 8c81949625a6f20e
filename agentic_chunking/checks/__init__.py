"""The substance checks: precise, documented rules that return offending propositions.

Each ``find_*`` function returns a list of :class:`Finding` (empty when all is well).
Rule ids are module constants; :data:`SUBSTANCE_RULES` lists the four hard asserts. The
registry of :mod:`._rules` holds one record per substance rule (its id, title, whether it
needs the source, what it reads, the judge's verdicts that flag it, its function):
:func:`rules` is what the layers above read.

The principle of the severities: an error needs evidence that no faithful rewording and no
decontextualisation can produce. Certain: a number, date or name that appears nowhere in
the passage (after normalising number words, units, ranges, acronyms and expansions,
possessives, hyphenation); a pronoun or speaker with no antecedent in the proposition; a
verbless fragment or a clause cut off; a minimal edit of one source clause
(:mod:`._minimal`: the clause kept, exactly one number, name, negation or quantifier
changed). Everything relational that is not such a minimal edit (a number or name moved
from another sentence, a swapped term, a negation or quantifier of another clause,
modality) is a warning with its kind; the judge's confirmation makes it an error, and a
judge that finds the proposition supported makes a relational error (a minimal edit,
:data:`RELATIONAL_KINDS`) a warning (:mod:`agentic_chunking.judge._combine`).

Where grammar decides (a finite verb, a name or a common word, the clause a negation
belongs to, the noun phrases and their determiners), the checks read the parse of
:mod:`._parser` (spaCy's small English model, the ``parser`` extra of the standard
set-up); without it the lexicon rules run alone and :func:`parser_status` says so.
"""

from ._align import UPPER_LETTER as UPPER_LETTER
from ._align import Window as Window
from ._align import align as align
from ._align import person_shaped as person_shaped
from ._align import sentence_offsets as sentence_offsets
from ._align import source_sentences as source_sentences
from ._cached import clear_caches as clear_caches
from ._coverage import coverage, find_uncovered_sentences
from ._domains import attribute_domain as attribute_domain
from ._domains import find_mixed_domains
from ._duplicates import REWORDED as REWORDED
from ._duplicates import certain_key as certain_key
from ._duplicates import certainly_same_fact as certainly_same_fact
from ._duplicates import contains as contains
from ._duplicates import duplicate_pairs as duplicate_pairs
from ._duplicates import find_duplicates, same_fact
from ._duplicates import open_similar_pairs as open_similar_pairs
from ._finding import COVERAGE as COVERAGE
from ._finding import ERROR, RELATIONAL_KINDS, WARNING, Finding
from ._finding import MIXED_DOMAINS as MIXED_DOMAINS
from ._finding import NO_DUPLICATION as NO_DUPLICATION
from ._finding import NO_INVENTION as NO_INVENTION
from ._finding import NO_UNRESOLVED_PRONOUNS as NO_UNRESOLVED_PRONOUNS
from ._finding import SELF_CONTAINED as SELF_CONTAINED
from ._finding import Severity as Severity
from ._invention import find_inventions
from ._language import GLUE_WORDS as GLUE_WORDS
from ._language import all_lemmas as all_lemmas
from ._language import lemma as lemma
from ._language import profile as profile
from ._language import stem as stem
from ._language import tokens as tokens
from ._lexicon import says_by_lexicon as says_by_lexicon
from ._parser import parser_status
from ._pronouns import find_unresolved_pronouns
from ._rules import SUBSTANCE_RULES
from ._rules import Rule as Rule
from ._rules import RuleInput as RuleInput
from ._rules import rule_ids as rule_ids
from ._rules import rule_of as rule_of
from ._rules import rules as rules
from ._self_contained import find_not_self_contained
from ._verbs import looks_like_finite_verb as looks_like_finite_verb
from ._words import word_set as word_set

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "ERROR",
    "RELATIONAL_KINDS",
    "SUBSTANCE_RULES",
    "WARNING",
    "Finding",
    "coverage",
    "find_duplicates",
    "find_inventions",
    "find_mixed_domains",
    "find_not_self_contained",
    "find_uncovered_sentences",
    "find_unresolved_pronouns",
    "parser_status",
    "same_fact",
]
