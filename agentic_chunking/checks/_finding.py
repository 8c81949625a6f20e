"""The finding record every check returns, and the rule ids."""

from __future__ import annotations

from dataclasses import asdict, dataclass

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


@dataclass(frozen=True)
class Finding:
    """One offending proposition: which rule it breaks and why, in words a person reads.

    ``chunk_index`` is the 0-based index of the output chunk the proposition sits in, when
    the check works on chunks (duplicates, mixed domains); None for per-proposition checks.
    """

    proposition: str
    rule: str
    reason: str
    chunk_index: int | None = None

    def to_dict(self) -> dict[str, str | int | None]:
        """Return the finding as a plain JSON-ready dict with the four fields."""
        return asdict(self)
