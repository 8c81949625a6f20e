"""Names cut short (checks/_names.py): where the rule must fire and where it must not.
Every proposition here was written for these tests."""

from __future__ import annotations

import pytest

from agentic_chunking.checks import find_inventions
from agentic_chunking.checks._names import cut_name

MINISTRY = "The grant came from the Ministry of Education, Culture and Sport in 2004."
MUSEUM = "The painting hangs in the Museum of Modern Art in New York."


@pytest.mark.parametrize(
    ("source", "proposition", "cut", "whole"),
    [
        (
            MINISTRY,
            "The grant came from the Ministry of Sport in 2004.",
            "Ministry of Sport",
            "Ministry of Education, Culture and Sport",
        ),
        (
            MUSEUM,
            "The painting hangs in the Museum of Art.",
            "Museum of Art",
            "Museum of Modern Art",
        ),
    ],
)
def test_a_name_with_words_left_out_of_its_middle_is_a_cut_name(
    source: str, proposition: str, cut: str, whole: str
) -> None:
    assert cut_name(proposition, source, source) == (cut, whole)
    (finding,) = [f for f in find_inventions([proposition], source) if f.kind == "cut_name"]
    assert finding.severity == "warning" and f'"{cut}"' in finding.reason


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (MINISTRY, "The grant came from the Ministry of Education, Culture and Sport in 2004."),
        # a person's name without its middle name: no connector, never judged
        ("Mary Ann Evans wrote Middlemarch.", "Mary Evans wrote Middlemarch."),
        # two names joined by "and", not one name
        (
            "A friendship grows between Ada and Cole, Ben's brother, in Paris.",
            "A friendship grows between Ada and Ben's brother.",
        ),
        # one of several names kept: a "the" among the words left out
        (
            "He was the Director of the National Gallery and the City Museum.",
            "He was the Director of the City Museum.",
        ),
        # cut at its end, not in its middle
        (
            "She studied at the University of California, Berkeley.",
            "She studied at the University of California.",
        ),
        # the source writes the short form itself
        (
            MUSEUM + " The Museum of Art was renamed in 1929.",
            "The painting hangs in the Museum of Art.",
        ),
    ],
)
def test_a_whole_name_a_persons_name_a_kept_conjunct_or_a_name_the_source_writes_is_no_cut(
    source: str, proposition: str
) -> None:
    assert cut_name(proposition, source, source) is None
    assert "cut_name" not in {f.kind for f in find_inventions([proposition], source)}
