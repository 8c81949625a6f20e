"""Write ``data/factscore_labels.jsonl``: 200 FActScore facts labelled by reading.

The draw is ``random.Random(31).sample(range(n), 200)`` over the lines of
``../shared/validation/real_llm_factscore_dev.jsonl`` (sorted back into file order); the
labels below were given by reading each fact against its one source sentence (see
``data/factscore_labels.md``). Run once; the file is kept in the repository.

    python benchmarks/make_factscore_labels.py
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

from agentic_chunking._files import write_text_atomic

ROOT = Path(__file__).resolve().parent.parent
SEED = 31
SIZE = 200
GOOD = frozenset(
    {
        *(2, 4, 5, 12, 16, 25, 31, 33, 38, 39, 43, 44, 52, 57, 60, 61, 64, 67, 70, 71, 79, 85),
        *(86, 87, 88, 89, 94, 97, 100, 102, 103, 106, 107, 111, 118, 121, 125, 128, 129, 131),
        *(133, 136, 140, 142, 143, 145, 151, 156, 157, 158, 160, 161, 162, 163, 164, 165, 166),
        *(167, 168, 169, 170, 172, 173, 174, 175, 185, 187, 189, 192, 194, 196, 198, 199),
    }
)
"""Positions in the draw (0-199) of the facts good on every rule."""
DEFINITE = frozenset([24, 29, 108, 124, 186])
"""'The film was ...', 'The rock band is called ...', 'The album is called ...', 'The group
was formed ...', "The band's first album ...": which one the fact never says."""
UNFAITHFUL = {
    35: "'Department of Welfare' for the Department of Health, Education, and Welfare",
    92: "'not ... anymore' inferred from 'at the time': a negation the sentence lacks",
    183: "'at the age of 21 days' drops the five years and seven months",
    195: "'2017017': a number the sentence never states (a post-processing artefact)",
}
NOTES = {103: "vacuous ('has something else'), but faithful and resolved"}


def main() -> int:
    raw = os.environ.get("AGENTIC_CHUNKING_VALIDATION_DIR", "../shared/validation")
    folder = Path(raw) if Path(raw).is_absolute() else (ROOT / raw).resolve()
    path = folder / "real_llm_factscore_dev.jsonl"
    if not path.is_file():
        sys.exit(f"{path} not found (set AGENTIC_CHUNKING_VALIDATION_DIR)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    drawn = sorted(random.Random(SEED).sample(range(len(rows)), SIZE))
    lines = []
    for n, i in enumerate(drawn):
        row = rows[i]
        if n in GOOD:
            defect = ""
        elif n in DEFINITE:
            defect = "definite_without_antecedent"
        elif n in UNFAITHFUL:
            defect = "unfaithful"
        else:  # "He ...", "She ...", "His work ...", "They ...": nobody named in the fact
            defect = "unresolved_pronoun"
        record = {
            "id": row["id"],
            "group": row["group"],
            "proposition": row["proposition"],
            "good": not defect,
            "defect": defect,
            "note": UNFAITHFUL.get(n, NOTES.get(n, "")),
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    write_text_atomic(
        ROOT / "benchmarks" / "data" / "factscore_labels.jsonl", "\n".join(lines) + "\n"
    )
    print(f"{SIZE} facts: {len(GOOD)} good, {SIZE - len(GOOD)} defective")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
