"""The finding record every check returns, and the rule ids (each rule's record, with its
title and its function, is in :mod:`._rules`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

NO_INVENTION = "no_invention"
"""A proposition states something its source does not support."""
NO_UNRESOLVED_PRONOUNS = "no_unresolved_pronouns"
"""A pronoun or anaphoric phrase whose referent is not inside the proposition."""
NO_DUPLICATION = "no_duplication"
"""The same fact appears twice in the output, exactly or reworded."""
SELF_CONTAINED = "self_contained"
"""A proposition is not one complete declarative sentence that reads alone."""
MIXED_DOMAINS = "mixed_domains"
"""An output chunk mixes propositions from two labelled domains."""
COVERAGE = "coverage"
"""A fact sentence of the input that no proposition states (a warning unless the case
makes it an error)."""

Severity = Literal["error", "warning"]
ERROR: Severity = "error"
"""The output is certainly wrong: the suite's hard assert fails the case."""
WARNING: Severity = "warning"
"""The output is suspect: shown in the results and the report, never failing a case."""
SEVERITIES: tuple[Severity, ...] = (ERROR, WARNING)
Problem = tuple[str, str, Severity]
"""What a rule's step finds in one proposition before it becomes a :class:`Finding`: its
kind, its reason and its severity."""


@dataclass(frozen=True)
class Finding:
    """One offending proposition: which rule it breaks and why, in words a person reads.

    ``chunk_index`` is the 0-based index of the output chunk the proposition sits in, when
    the check works on chunks (duplicates, mixed domains); None for per-proposition checks.
    ``severity`` is ``"error"`` only on certain evidence (the suite fails the case) and
    ``"warning"`` for what is suspect (shown, never failing). ``kind`` names the evidence
    for machines (``"invented_number"``, ``"lost_negation"``, ...; empty when the rule has
    one kind only); ``source_sentence`` is the source sentence(s) the proposition was
    judged against, when the check aligns it to its source.
    """

    proposition: str
    rule: str
    reason: str
    chunk_index: int | None = None
    severity: Severity = ERROR
    kind: str = ""
    source_sentence: str | None = None

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity {self.severity!r} is not one of {SEVERITIES}")

    @property
    def is_error(self) -> bool:
        """True when the finding fails the case (``severity == "error"``)."""
        return self.severity == ERROR

    def to_dict(self) -> dict[str, str | int | None]:
        """Return the finding as a plain JSON-ready dict with every field."""
        return asdict(self)


# Finding kinds: the machine-readable evidence of a finding. Other layers (the report, the
# comparison, a judge) branch on these, never on a finding's wording.
INVENTED_NUMBER = "invented_number"
"""error: a number (or date) the source never states."""
INVENTED_UNIT = "invented_unit"
"""error: a number of the source given with a unit the source never gives it."""
INVENTED_NAME = "invented_name"
"""error: a name (a capitalised word, a month) the source never uses."""
MOVED_NUMBER = "moved_number"
"""error as a minimal edit (one number of a kept clause replaced by another of the source),
else a warning: a number of the source, but not of the sentence(s) the proposition aligns
to, or bound to another clause of them."""
MOVED_NAME = "moved_name"
"""error as a minimal edit (one name of a kept clause replaced, in its place, by another
name of the source), else a warning: a name of another sentence (often context carried)."""
CUT_NAME = "cut_name"
"""warning: a name of the source with words left out of its middle ("the Department of
Welfare" for "the Department of Health, Education, and Welfare"): another name now."""
SWAPPED_TERM = "swapped_term"
"""warning: a term of the clause the proposition restates replaced by a word of another
sentence of the source (a word of another sentence alone is context carried, no finding)."""
UNSUPPORTED_WORD = "unsupported_word"
"""warning: a noun or rare word the source never uses (nor a listed paraphrase of one); a
verb or adverb of a rewording is not shown."""
ADDED_NEGATION = "added_negation"
"""error as a minimal edit of one kept clause, else a warning: a negation the aligned
source sentence does not have."""
LOST_NEGATION = "lost_negation"
"""error as a minimal edit of one kept clause, else a warning: the aligned source sentence
negates what the proposition asserts."""
ADDED_QUANTIFIER = "added_quantifier"
"""error as a minimal edit of one kept clause, else a warning: a quantifier ("all",
"every", "most", "half"...) the aligned sentence lacks."""
LOST_QUANTIFIER = "lost_quantifier"
"""error as a minimal edit of one kept clause, else a warning: the aligned sentence's
quantifier on a word the proposition keeps is gone."""
CHANGED_MODALITY = "changed_modality"
"""warning: a modal or hedge ("may", "is believed to") dropped or added."""
SPEAKER_PRONOUN = "speaker_pronoun"
"""error: "I", "we", "us", "our" outside quotation marks: a speaker outside the text."""
BARE_PRONOUN = "bare_pronoun"
"""error: a personal or demonstrative pronoun with no antecedent in the proposition."""
ANAPHORIC_PHRASE = "anaphoric_phrase"
"""error: "this process", "the former" with nothing before it in the proposition; a
warning for the looser "such systems", "the same"."""
DEFINITE_WITHOUT_ANTECEDENT = "definite_without_antecedent"
"""warning: a definite noun phrase naming a specific thing the proposition does not
introduce, whatever the source writes ("The group was formed in 1994", "the complexities of
the case"); "The residue ..." where the source says which residue in an earlier sentence;
"The narrative explores ..." with the work never named in the claim."""
IMPERSONAL_YOU = "impersonal_you"
"""warning: "you" as the generic reader ("you can recycle ..."), not a person."""
NO_FINITE_VERB = "no_finite_verb"
"""error: no word of the proposition can be a finite verb (a verbless list or phrase);
a warning when only the heuristic finds none."""
CUT_OFF = "cut_off"
"""error: a clause cut from its sentence (ends on "and"/"the", opens with "which", a
subordinate clause alone)."""
NOT_ONE_SENTENCE = "not_one_sentence"
"""warning: two sentences, or a question."""
LEANS_ON_CONTEXT = "leans_on_context"
"""warning: opens with a connective ("Also,", "However,") or refers to surrounding text."""
FORM = "form"
"""warning: does not start with a capital letter or a digit."""
UNCOVERED_SENTENCE = "uncovered_sentence"
"""warning (error where a case asks): a sentence of the input no proposition covers."""

RELATIONAL_KINDS: frozenset[str] = frozenset(
    {
        MOVED_NUMBER,
        MOVED_NAME,
        SWAPPED_TERM,
        ADDED_NEGATION,
        LOST_NEGATION,
        ADDED_QUANTIFIER,
        LOST_QUANTIFIER,
        CHANGED_MODALITY,
    }
)
"""The kinds whose evidence is a relation between the proposition and its source sentence
(a word of one put in place of another, a polarity of another clause), not a thing the
source never states: even as a minimal edit they rest on reading the sentence, so a judge
that finds the proposition supported makes them a warning (``judge/_combine.py``)."""
