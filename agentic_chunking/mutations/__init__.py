"""Mutation operators: break a good grouping reply on purpose, so the suite can prove that
each substance check fails when it must.

- ``_operators``: the operators over whole groups (invented fact, unresolved pronoun,
  duplicate, fragment, mixed domains) and ``apply_to_propositions``;
- ``_facts``: the fact-level operators (a moved number, a swapped person, a dropped
  negation, ...), ``CERTAIN_OPERATORS`` among them;
- ``_base``: the ``Mutation`` record and the text edits the operators share.

May import: the root's shared modules and ``checks`` (each operator verifies its result
with its rule's check).
"""

from ._facts import possibly_equivalent as possibly_equivalent
from ._operators import CERTAIN_OPERATORS, OPERATORS, Mutation, apply_to_propositions

# What users call (docs/api/). The other names imported above (`X as X`) serve the
# layers above and the tests: importable, documented in their modules, no promise.
__all__ = [
    "CERTAIN_OPERATORS",
    "OPERATORS",
    "Mutation",
    "apply_to_propositions",
]
