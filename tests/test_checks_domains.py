"""find_mixed_domains: an output chunk mixing two labelled domains."""

from __future__ import annotations

from agentic_chunking.checks import MIXED_DOMAINS, attribute_domain, find_mixed_domains

LABELLED = [
    ("Mitochondria produce ATP through oxidative phosphorylation.", "Metabolism"),
    ("Glycolysis breaks one glucose molecule into two pyruvate molecules.", "Metabolism"),
    ("DNA methylation silences genes without changing the sequence.", "Genomics"),
    ("Telomeres shorten with each cell division.", "Genomics"),
]


def test_clean_chunks_pass() -> None:
    chunks = [
        ["Mitochondria produce ATP.", "Glycolysis breaks glucose into pyruvate."],
        ["DNA methylation silences genes.", "Telomeres shorten with each cell division."],
    ]
    assert find_mixed_domains(chunks, LABELLED) == []


def test_mixed_chunk_is_reported_with_its_index() -> None:
    chunks = [
        ["DNA methylation silences genes."],
        ["Mitochondria produce ATP.", "Glycolysis breaks glucose.", "Telomeres shorten."],
    ]
    findings = find_mixed_domains(chunks, LABELLED)
    assert [(f.proposition, f.chunk_index, f.rule) for f in findings] == [
        ("Telomeres shorten.", 1, MIXED_DOMAINS)
    ]
    assert "'Genomics'" in findings[0].reason and "'Metabolism'" in findings[0].reason


def test_unattributable_propositions_are_not_evidence_of_mixing() -> None:
    chunks = [["Mitochondria produce ATP.", "Cells need a steady supply of energy."]]
    assert attribute_domain("Cells need a steady supply of energy.", LABELLED) is None
    assert find_mixed_domains(chunks, LABELLED) == []
    assert find_mixed_domains(chunks, []) == []
