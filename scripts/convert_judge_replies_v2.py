"""Convert the reference judge's verdicts (``judge:`` sections) from judge-v1 to judge-v2.

Run: python scripts/convert_judge_replies_v2.py [--case TC-0NN ...] [--check]

MECHANICAL, NO JUDGEMENT: a judge-v1 supported verdict gave a reason quoting the source
sentence(s) it rests on; judge-v2 cites them by number instead. For each supported entry,
every double-quoted passage of its reason is mapped to the number of the case sentence
(``judge.number_sentences``: the project's segmenter over the case's input chunks) that
is that passage (space- and case-insensitively), starts with it (a quote cut with
"..."), or holds it; a passage that is none of these is placed by the checks' alignment
(``checks._align.align``), and the script says so. The entry keeps its verdict, gets
``sentences: [k, ...]`` and loses its reason. Every other verdict and every pair is kept as
it was, reason included. An entry already in judge-v2 form is left alone, so a second run
changes nothing. The section is rewritten with the drafting script's helper, every other
line of the file kept byte for byte. ``--check`` writes nothing and exits 1 when a file
would change.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from agentic_chunking._files import write_text_atomic
from agentic_chunking.checks._align import align
from agentic_chunking.judge import SourceSentence, number_sentences
from agentic_chunking.suite._cases import load_cases

sys.path.insert(0, str(Path(__file__).resolve().parent))
from draft_judge_replies import HEADER, with_judge_section

ROOT = Path(__file__).resolve().parent.parent
_QUOTE = re.compile(r'"([^"]+)"')


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold().strip(" .")


def sentence_of(quote: str, sentences: list[SourceSentence]) -> tuple[int, bool]:
    """The number of the sentence ``quote`` quotes, and whether alignment had to place it."""
    cut = quote.endswith("...")
    flat = _flat(quote.removesuffix("..."))
    for test in (
        lambda s: _flat(s.text) == flat,
        lambda s: cut and _flat(s.text).startswith(flat),
        lambda s: flat in _flat(s.text),
    ):
        found = [s.number for s in sentences if test(s)]
        if found:
            return found[0], False
    source = " ".join(s.text for s in sentences)
    window = align(quote, source)
    if window is None:
        raise ValueError(f"no source sentence for the quote {quote!r}")
    return sentences[window.start].number, True


def convert_entry(
    entry: dict[str, Any], sentences: list[SourceSentence], where: str
) -> dict[str, Any]:
    """The judge-v2 form of one proposition entry (see the module)."""
    if entry["verdict"] != "supported" or "sentences" in entry:
        return entry
    quotes = _QUOTE.findall(entry["reason"])
    if not quotes:
        raise ValueError(f"{where}: the supported reason {entry['reason']!r} quotes nothing")
    numbers = []
    for quote in quotes:
        number, aligned = sentence_of(quote, sentences)
        if aligned:
            print(f"{where}: placed by alignment: {quote!r} -> sentence {number}")
        numbers.append(number)
    return {
        "proposition": entry["proposition"],
        "verdict": "supported",
        "sentences": list(dict.fromkeys(numbers)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 on a change")
    args = parser.parse_args()
    changed = []
    for case in load_cases(ROOT / "cases"):
        if args.case and case.id not in args.case:
            continue
        path = ROOT / "cases" / "reference_replies" / f"{case.id}.yaml"
        text = path.read_text("utf-8")
        judge = (yaml.safe_load(text) or {}).get("judge")
        if not judge or judge.get("raw") is not None:
            continue
        sentences = number_sentences(case.agentic_inputs())
        entries = judge.get("propositions", [])
        new = [convert_entry(e, sentences, f"{case.id} {e['proposition'][:40]!r}") for e in entries]
        if new == entries:
            continue
        judge["propositions"] = new
        dumped = yaml.safe_dump({"judge": judge}, allow_unicode=True, sort_keys=False, width=100)
        changed.append(case.id)
        if not args.check:
            write_text_atomic(path, with_judge_section(text, HEADER + dumped))
    print(f"{len(changed)} file(s) {'to convert' if args.check else 'converted'}: {changed}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
