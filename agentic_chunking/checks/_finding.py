"""The finding record every check returns, and the rule ids."""

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

SUBSTANCE_RULES: tuple[str, ...] = (
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    NO_DUPLICATION,
    SELF_CONTAINED,
)
"""The four substance rules of seed 000, in order: hard asserts of the suite."""

Severity = Literal["error", "warning"]
ERROR: Severity = "error"
"""The output is certainly wrong: the suite's hard assert fails the case."""
WARNING: Severity = "warning"
"""The output is suspect: shown in the results and the report, never failing a case."""
SEVERITIES: tuple[Severity, ...] = (ERROR, WARNING)


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
