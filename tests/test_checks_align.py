"""Alignment of a proposition to the source sentence(s) it states, and the text
normalisation under it (lemmas, PDF hyphens, number words)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_chunking import split_sentences
from agentic_chunking.checks import find_inventions, find_unresolved_pronouns
from agentic_chunking.checks._align import MAX_WINDOW, align
from agentic_chunking.checks._language import lemma, profile, tokens

SOURCE = (
    "Marie Curie was born in Warsaw. She discovered polonium in 1898. "
    "The battery lasts 300 cycles. The charger costs 40 dollars."
)


def test_a_proposition_aligns_to_the_sentence_it_states() -> None:
    window = align("The battery lasts 300 cycles.", SOURCE)
    assert window is not None and window.text == "The battery lasts 300 cycles."
    resolved = align("Marie Curie discovered polonium in 1898.", SOURCE)
    assert resolved is not None and "She discovered polonium in 1898." in resolved.text
    assert align("Anything.", "") is None


def test_lemmas_join_irregular_forms() -> None:
    assert [lemma(w) for w in ("seen", "said", "grew", "held")] == ["see", "say", "grow", "hold"]


def test_one_is_a_number_only_when_it_counts() -> None:
    assert profile("One can recycle glass.").numbers == frozenset()
    assert profile("One divides the total by two.").numbers == {"2"}
    assert profile("The trip takes one hour.").numbers == {"1"}


def test_contractions_and_abbreviations_are_kept_whole() -> None:
    assert [t.norm for t in tokens("Batteries can't burn, i.e. they are safe.")][:4] == [
        "batteries",
        "can",
        "not",
        "burn",
    ]
    assert "i" not in {t.norm for t in tokens("The fee is waived, i.e. free.")}


_WORDS = st.sampled_from(
    [
        "the",
        "liver",
        "stores",
        "glycogen",
        "not",
        "never",
        "2022",
        "5.5",
        "percent",
        "two",
        "Kubernetes",
        "runs",
        "pods",
        "on",
        "nodes",
        "colour",
        "lithium-ion",
        "$80",
        "million",
        "most",
        "all",
        "may",
        "usually",
        "Curie",
        "Marie",
        "she",
        "it",
    ]
)
_SENTENCE = st.lists(_WORDS, min_size=1, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")


@settings(max_examples=80, deadline=None)
@given(st.lists(_SENTENCE, min_size=1, max_size=6), st.data())
def test_a_verbatim_copy_is_aligned_to_a_window_that_supports_all_of_it(
    sentences: list[str], data: st.DataObject
) -> None:
    source = " ".join(sentences)
    chosen = data.draw(st.sampled_from(split_sentences(source)))
    window = align(chosen, source)
    assert window is not None and 1 <= window.end - window.start <= MAX_WINDOW
    assert all(window.supports(w) for w in profile(chosen).content)
    assert all(window.has_number(n) for n in profile(chosen).numbers)
    assert [f for f in find_inventions([chosen], source) if f.is_error] == []


@settings(max_examples=40, deadline=None)
@given(
    st.text(alphabet="abcdefghij", min_size=2, max_size=8),
    st.text("klmnop", min_size=2, max_size=8),
)
def test_a_word_hyphenated_across_a_pdf_line_is_one_word(head: str, tail: str) -> None:
    source = f"The {head}-\n{tail} is here."
    assert find_inventions([f"The {head}{tail} is here."], source) == []


def test_pronoun_findings_point_at_the_definite_descriptions_sentence() -> None:
    source = "The solvent leaves a residue on the lens. The residue blocks the sensor."
    (finding,) = find_unresolved_pronouns(["The residue blocks the sensor."], source)
    assert finding.kind == "definite_without_antecedent"
