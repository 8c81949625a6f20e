"""The substance checks: precise, documented rules that return offending propositions.

Each ``find_*`` function returns a list of :class:`Finding` (empty when all is well).
Rule ids are module constants; :data:`SUBSTANCE_RULES` lists the four hard asserts.
"""

from ._duplicates import find_duplicates, same_fact
from ._finding import (
    MIXED_DOMAINS,
    NO_DUPLICATION,
    NO_INVENTION,
    NO_UNRESOLVED_PRONOUNS,
    SELF_CONTAINED,
    SUBSTANCE_RULES,
    Finding,
)

__all__ = [
    "MIXED_DOMAINS",
    "NO_DUPLICATION",
    "NO_INVENTION",
    "NO_UNRESOLVED_PRONOUNS",
    "SELF_CONTAINED",
    "SUBSTANCE_RULES",
    "Finding",
    "find_duplicates",
    "same_fact",
]
