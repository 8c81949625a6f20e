"""find_not_self_contained: one complete declarative sentence that reads alone."""

from __future__ import annotations

import pytest

from agentic_chunking.checks import SELF_CONTAINED, find_not_self_contained


@pytest.mark.parametrize(
    ("proposition", "reason"),
    [
        ("Also, the liver releases glucose.", "opens with 'Also'"),
        ("However, solid-state batteries remain expensive.", "opens with 'However'"),
        ("In addition, pods share storage volumes.", "opens with 'In addition'"),
        ("however the cost fell.", "opens with 'however'"),
        ("As mentioned above, Kubernetes automates deployment.", "As mentioned above"),
        ("The table below lists the energy densities.", "table below"),
        ("The second one is more efficient.", "The second one"),
        ("See below for the zoning categories.", "See below"),
        ("The following steps describe glycolysis.", "The following"),
        ("The cathode material in lithium-ion batteries.", "no finite verb"),
        ("Lower energy density.", "no finite verb"),
        ("Because the anode expands during charging.", "subordinate clause"),
        ("Which makes the dome the largest of its time.", "relative"),
        ("Michelangelo painted the ceiling. He finished it in 1512.", "2 sentences"),
        ("The liver stores glycogen", "does not end with"),
        ("the liver stores glycogen.", "capital"),
        ("Does the liver store glycogen?", "question"),
        ("The liver stores glycogen and.", "cut off"),
        ("", "empty"),
    ],
)
def test_not_self_contained_is_reported(proposition: str, reason: str) -> None:
    findings = find_not_self_contained([proposition])
    assert len(findings) == 1
    assert findings[0].rule == SELF_CONTAINED
    assert reason in findings[0].reason


@pytest.mark.parametrize(
    "proposition",
    [
        "Kubernetes automates the deployment of containerised applications.",
        "Floor area ratio measures building density.",
        "Solid-state batteries replace the liquid electrolyte with a solid material.",
        "Telomeres shorten with each cell division.",
        "The Krebs cycle takes place in the mitochondrial matrix.",
        "Michelangelo painted the Sistine Chapel ceiling between 1508 and 1512.",
        "Although they are costly, solid-state batteries are safer.",
        "Dr. Smith measured 3.5 V across the cell.",
        "iPhones use lithium-ion batteries.",
        "The 2010 census counted 308 million residents.",
        "Thermal runaway occurs when a cell overheats!",
    ],
)
def test_complete_sentences_pass(proposition: str) -> None:
    assert find_not_self_contained([proposition]) == []
