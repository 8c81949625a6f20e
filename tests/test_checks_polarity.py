"""Negation, quantifiers and modality against the aligned sentence (find_inventions)."""

from __future__ import annotations

import pytest

from agentic_chunking import split_sentences
from agentic_chunking.checks import find_inventions


def _kinds(proposition: str, source: str) -> list[tuple[str, str]]:
    return [(f.kind, f.severity) for f in find_inventions([proposition], source)]


@pytest.mark.parametrize(
    ("source", "proposition", "expected"),
    [
        (
            "Boiling does not remove lead from water.",
            "Boiling removes lead from water.",
            ("lost_negation", "error"),
        ),
        (
            "The pass lets no trucks through in winter.",
            "The pass lets trucks through in winter.",
            ("lost_negation", "error"),
        ),
        (
            "Boiling removes germs from water.",
            "Boiling never removes germs.",
            ("added_negation", "error"),
        ),
        (
            "Most food poisoning cases are mild.",
            "Food poisoning cases are mild.",
            ("lost_quantifier", "error"),
        ),
        ("Cats sleep in the sun.", "All cats sleep in the sun.", ("added_quantifier", "error")),
        (
            "It is widely believed that the bridge may close in winter.",
            "The bridge closes in winter.",
            ("changed_modality", "warning"),
        ),
        (
            "The bridge closes in winter.",
            "The bridge might close in winter.",
            ("changed_modality", "warning"),
        ),
    ],
)
def test_a_changed_polarity_is_found(
    source: str, proposition: str, expected: tuple[str, str]
) -> None:
    assert expected in _kinds(proposition, source)


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        # the negation is on a part the proposition leaves out
        (
            "Freezing does not kill bacteria, but it slows their growth.",
            "Freezing slows the growth of bacteria.",
        ),
        ("The tool is free, not paid.", "The tool is free."),
        (
            "Vitamin C is found not only in oranges but also in peppers.",
            "Vitamin C is found in peppers.",
        ),
        # the quantifier sits on a clause the proposition does not restate
        (
            "Most food poisoning cases are not serious, and the symptoms usually pass"
            " within a week.",
            "Food poisoning symptoms usually pass within a week.",
        ),
        # "each region" says what "regions" says
        ("Each region contains several zones.", "Regions contain several zones."),
        # a gerund asserts nothing the hedge could qualify
        (
            "Dams can raise their output within minutes, which makes them useful.",
            "Raising output within minutes makes dams useful.",
        ),
    ],
)
def test_a_kept_polarity_is_not_reported(source: str, proposition: str) -> None:
    assert _kinds(proposition, source) == []


# A scope and a clause stop at the sentence's punctuation: a hedge after a comma governs
# the part after it, which a proposition may restate alone.
@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (
            "Washing raw chicken is not recommended, since splashing water can spread "
            "bacteria around the kitchen.",
            "Splashing water from washing raw chicken will spread bacteria around the kitchen.",
        ),
        (
            "Engineers surveyed each route so that the channel dropped steadily, often by "
            "less than one meter per kilometer.",
            "The channel of a Roman aqueduct dropped by less than one meter per kilometer.",
        ),
        (
            "Green hydrogen, produced by splitting water with renewable electricity, could "
            "store energy for weeks.",
            "Green hydrogen stores energy for weeks.",
        ),
    ],
)
def test_a_hedge_of_the_restated_part_of_a_sentence_is_a_changed_modality(
    source: str, proposition: str
) -> None:
    assert ("changed_modality", "warning") in _kinds(proposition, source)


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        # a gerund of the clause ("changing", "underlying") counts as restated
        (
            "DNA methylation adds chemical tags to DNA that can silence genes without"
            " changing the underlying sequence.",
            "DNA methylation will silence genes without changing the underlying DNA sequence.",
        ),
        # "where" starts the hedged clause
        (
            "Many cities are replacing single-use zoning with mixed-use districts where"
            " people can live, work and shop within walking distance.",
            "In mixed-use districts, people will live, work and shop within walking distance.",
        ),
        # the hedge between its subject and verb, one of two objects kept
        (
            "The cathode usually determines the capacity and the cost of a lithium-ion cell.",
            "The cathode determines the cost of a lithium-ion cell.",
        ),
        # a hedge hardened to "will" beside another hedge the proposition keeps
        (
            "Honey should never be given to infants, because honey may contain spores.",
            "Honey will never be given to infants because honey may contain spores.",
        ),
        # the hedged word comes from the next sentence, paired with the window
        (
            "Sodium-ion batteries move sodium ions between a cathode and an anode, and both"
            " electrodes swell during each charge cycle. The cathode is typically a layered"
            " oxide, while the anode is usually graphite.",
            "The anode of a sodium-ion battery is graphite.",
        ),
    ],
)
def test_a_hedge_dropped_from_a_restated_clause_is_a_changed_modality(
    source: str, proposition: str
) -> None:
    assert ("changed_modality", "warning") in _kinds(proposition, source)


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        # the proposition keeps a hedge on the word: another modal, not a hardening
        (
            "Alternative assets can provide access to opportunities that may not be"
            " available through traditional investments.",
            "Alternative assets can provide access to opportunities not available through"
            " traditional investments.",
        ),
        # the next sentence gives "editor" only; its hedge is on a word the window has
        (
            "The script creates a base color and a roughness value. A user can create a"
            " script in the editor.",
            "The script in the editor creates a base color and a roughness value.",
        ),
    ],
)
def test_a_hedge_kept_or_of_another_sentence_is_no_changed_modality(
    source: str, proposition: str
) -> None:
    assert ("changed_modality", "warning") not in _kinds(proposition, source)


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        # the hedge is on another part of the sentence than the one restated
        (
            "Green hydrogen, produced by splitting water with renewable electricity, could "
            "store energy for weeks.",
            "Green hydrogen is produced by splitting water with renewable electricity.",
        ),
        # "only to" is "and then", no quantifier
        (
            "Iris reunites with her brother, only to discover his betrayal.",
            "Iris reunites with her brother, discovering his betrayal.",
        ),
        # "not X, but Y" asserts Y: a proposition about Y may name X elsewhere
        (
            "Charlie confronts not Harry, but Isabelle Irving. Harry had lied to her.",
            "Charlie confronts Isabelle Irving about Harry.",
        ),
    ],
)
def test_polarity_of_another_part_of_the_sentence_is_not_reported(
    source: str, proposition: str
) -> None:
    assert _kinds(proposition, source) == []


def test_not_x_but_y_restated_as_x_loses_its_negation() -> None:
    source = "The letter was written not by Anna, but by Ben."
    assert _kinds("The letter was written by Anna.", source) == [("lost_negation", "error")]
    assert _kinds("The letter was written by Ben.", source) == []


# A hedge the proposition keeps on the same word is kept, whatever else the proposition
# says: a run of sentences given back word for word may harden another clause ("will pay")
# or write the modal in capitals; a modal before a number is a month ("May 19, 2001").
_DIVIDENDS = (
    "As of January 31, there were 5271 holders of record. Dividends are considered"
    " quarterly by the board, may be paid only when approved by the board, and will depend"
    " on our financial condition. There can be no assurance that we will pay a dividend at"
    " the rates we have paid historically."
)


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        (_DIVIDENDS, _DIVIDENDS),
        (
            "If anybody thinks the army will stop at the border, it will not. But the"
            " border guards can stop the army.",
            "If anybody thinks the army will stop at the border, it will not. But the"
            " border guards can stop the army.",
        ),
        (
            "IN NO EVENT WILL ANY COPYRIGHT HOLDER, OR ANY OTHER PARTY WHO MAY MODIFY THE"
            " PROGRAM, BE LIABLE TO YOU FOR DAMAGES.",
            "IN NO EVENT WILL ANY COPYRIGHT HOLDER, OR ANY OTHER PARTY WHO MAY MODIFY THE"
            " PROGRAM, BE LIABLE TO YOU FOR DAMAGES.",
        ),
        (
            "The museum opened on May 19, 2001 in the Tower Building.",
            "The museum opened in 2001 in the Tower Building.",
        ),
        ("on may 15, 2019, the board declared a dividend.", "The board declared a dividend."),
    ],
)
def test_a_hedge_the_proposition_keeps_on_its_word_is_no_changed_modality(
    source: str, proposition: str
) -> None:
    assert "changed_modality" not in [kind for kind, _ in _kinds(proposition, source)]


@pytest.mark.parametrize(
    ("source", "proposition"),
    [
        ("Smoking may cause cancer.", "Smoking causes cancer."),
        ("Smoking may cause cancer.", "Smoking will cause cancer."),
        ("Smoking causes cancer.", "Smoking may cause cancer."),
        # the run keeps "will pay" of another clause, but drops the hedge of "paid"
        (_DIVIDENDS, _DIVIDENDS.replace("may be paid", "are paid")),
        # "will" of another word is no hedge of "paid"
        (
            "Dividends may be paid when approved. The board will report losses.",
            "Dividends are paid when approved. The board will report losses.",
        ),
    ],
)
def test_a_hedge_dropped_or_added_beside_a_kept_one_is_a_changed_modality(
    source: str, proposition: str
) -> None:
    assert ("changed_modality", "warning") in _kinds(proposition, source)


@pytest.mark.parametrize(
    ("source", "proposition", "edited", "lost"),
    [
        (
            "9.2. Warranty\n\nNo warranty is given for the server, and only the author may "
            "change this notice.\n\n9.3. Other",
            "9.2. Warranty No warranty is given for the server, and only the author may "
            "change this notice. 9.3.",
            "9.2. Warranty A warranty is given for the server, and only the author may "
            "change this notice. 9.3.",
            "lost_negation",
        ),
        (
            "gnupg2 (2.2.35-2) unstable; urgency=medium\n\n  * Only enable wine32 test on i386",
            "gnupg2 (2.2.35-2) unstable; urgency=medium * Only enable wine32 test on i386",
            "gnupg2 (2.2.35-2) unstable; urgency=medium * Enable wine32 test on i386",
            "lost_quantifier",
        ),
    ],
)
def test_a_heading_quoted_with_its_paragraph_keeps_the_paragraphs_first_word(
    source: str, proposition: str, edited: str, lost: str
) -> None:
    """The segmenter ends a heading at the blank line; a proposition quoting the heading
    and the paragraph after it joined by a space still opens the paragraph's sentence
    with "No" or "Only", which is no name's word: nothing lost, and the edit that drops
    it still found."""
    assert _kinds(proposition, source) == []
    assert lost in [kind for kind, _ in _kinds(edited, source)]


def test_a_seam_keeps_the_line_breaks_inside_the_quoted_sentences() -> None:
    """A changelog's header, entries and trailer given back joined by spaces: the seams
    after the header and the entries change, the entry's own line break ("+ No longer")
    stays, so its "No" still opens a line."""
    source = (
        "bc (1.07.1-1) unstable; urgency=medium\n\n  * New upstream version 1.07.1\n"
        "    + No longer crashes during startup\n\n"
        " -- Ryan Kavanagh <rak@debian.org>  Thu, 22 Mar 2018 12:20:34 -0400"
    )
    run = " ".join(split_sentences(source))
    assert "\n    + No" in run
    assert _kinds(run, source) == []
