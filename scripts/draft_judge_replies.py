"""Draft the reference judge's verdicts (the ``judge:`` section of each reply file).

Run: python scripts/draft_judge_replies.py [--case TC-0NN ...]

GENERATED DRAFTS, REVIEWED BY HAND: for each case that gives output, the reference run's
propositions are numbered as the judge sees them; a proposition the section already
answers keeps its (reviewed) verdict; a new one gets the draft verdict "supported" citing
the best-matching source sentence by number (judge-v2: ``sentences``, the case's
sentences numbered as ``judge.number_sentences`` does), and each new pair of possible duplicates the
draft "not the same fact" naming the words that differ. A person must then read every new
entry against the source and change any verdict that is wrong: the reference judge is a
careful judge, not this script. The section sits at the end of the file, after a comment
saying so; the rest of the file is kept byte for byte.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import yaml

from agentic_chunking._files import write_text_atomic
from agentic_chunking._loopback import FakeMessagesServer
from agentic_chunking.checks._language import profile
from agentic_chunking.client import make_client
from agentic_chunking.judge import candidate_pairs, number_propositions, number_sentences
from agentic_chunking.suite._cases import load_cases
from agentic_chunking.suite._replies import REFERENCE_MODEL, ReferenceServer, load_replies
from agentic_chunking.suite._runner import run_pipeline

ROOT = Path(__file__).resolve().parent.parent
MARKER = "# judge: the reference judge's verdicts"
HEADER = (
    f"{MARKER} (hand-written `reference`, not a model's). Drafted by\n"
    "# scripts/draft_judge_replies.py (supported: the best-matching source sentence's number;\n"
    "# pairs: the words that differ), then read and corrected by hand against the source;\n"
    "# judge-v1 quotes turned into sentence numbers by scripts/convert_judge_replies_v2.py.\n"
)
_WORD = re.compile(r"[\w'\u2019.-]+")


def _cover(proposition: str, sentence: str) -> frozenset[str]:
    """The proposition's content stems and numbers that ``sentence`` holds."""
    mine, theirs = profile(proposition), profile(sentence)
    return (mine.content & theirs.content) | (mine.numbers & theirs.numbers)


def best_sentences(proposition: str, sentences: list[str]) -> list[int]:
    """The 1-based number of the source sentence that covers most of the proposition (ties:
    the more specific one); or two, in source order, when a second one adds two or more of
    the proposition's words (a referent the proposition names and the sentence leaves out)."""
    covers = [_cover(proposition, s) for s in sentences]
    sizes = [max(1, len(profile(s).content)) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (len(covers[i]), len(covers[i]) / sizes[i]))
    second = max(
        (i for i in range(len(sentences)) if i != best),
        key=lambda i: (len(covers[i] - covers[best]), -abs(i - best)),
        default=None,
    )
    if second is not None and len(covers[second] - covers[best]) >= 2:
        return sorted((best + 1, second + 1))
    return [best + 1]


def difference(first: str, second: str) -> str:
    a = [w.strip(".") for w in _WORD.findall(first)]
    b = [w.strip(".") for w in _WORD.findall(second)]
    only_a = [w for w in a if w.lower() not in {x.lower() for x in b}]
    only_b = [w for w in b if w.lower() not in {x.lower() for x in a}]
    return (
        f'different facts: "{" ".join(only_a) or "-"}" in one, "{" ".join(only_b) or "-"}" '
        "in the other"
    )


def section(
    case_id: str,
    propositions: list[str],
    pairs: list[tuple[str, str]],
    sentences: list[str],
    old: dict,
) -> dict:
    known = {" ".join(p["proposition"].split()): p for p in old.get("propositions", [])}
    known_pairs = {
        frozenset((" ".join(p["first"].split()), " ".join(p["second"].split()))): p
        for p in old.get("pairs", [])
    }
    entries = []
    for text in dict.fromkeys(propositions):
        entry = known.get(" ".join(text.split()))
        entries.append(
            entry
            or {
                "proposition": text,
                "verdict": "supported",
                "sentences": best_sentences(text, sentences),
            }
        )
    pair_entries = []
    for first, second in pairs:
        key = frozenset((" ".join(first.split()), " ".join(second.split())))
        pair_entries.append(
            known_pairs.get(key)
            or {
                "first": first,
                "second": second,
                "same_fact": False,
                "reason": difference(first, second),
            }
        )
    out: dict = {"propositions": entries}
    if pair_entries:
        out["pairs"] = pair_entries
    return out


def with_judge_section(text: str, section: str) -> str:
    """``text`` with its judge section (marker comment, ``judge:`` and its indented block)
    replaced by ``section``, or ``section`` appended; every other line kept as it was."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith(MARKER)), None)
    if start is None:
        start = next((i for i, line in enumerate(lines) if line.startswith("judge:")), None)
    if start is None:
        return text.rstrip("\n") + "\n" + section
    end = start
    while end < len(lines) and (
        lines[end].startswith(("#", " ", "-", "judge:")) or not lines[end].strip()
    ):
        if lines[end].startswith("#") and end > start and not lines[end - 1].startswith("#"):
            break  # a comment after the block belongs to what follows
        end += 1
    before = "".join(lines[:start]).rstrip("\n") + "\n"
    after = "".join(lines[end:])
    return before + section + after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append")
    parser.add_argument(
        "--redraft", action="store_true", help="draft every entry again (drops reviewed ones)"
    )
    args = parser.parse_args()
    cases_dir = ROOT / "cases"
    replies_dir = cases_dir / "reference_replies"
    reference = ReferenceServer()
    with FakeMessagesServer(handler=reference) as server:
        client = make_client(api_key="draft-no-key", base_url=server.base_url, max_retries=0)
        for case in load_cases(cases_dir):
            if args.case and case.id not in args.case:
                continue
            replies = load_replies(case, replies_dir)
            reference.use(case, replies)
            response = run_pipeline(case, client=client, model=REFERENCE_MODEL)
            if not response.is_success or not response.chunks or case.expect.error:
                continue
            numbered = number_propositions(c.propositions for c in response.chunks)
            pairs = [
                (numbered[a - 1].text, numbered[b - 1].text) for a, b in candidate_pairs(numbered)
            ]
            keep = replies.judge is not None and not args.redraft
            old = replies.judge.model_dump() if keep and replies.judge is not None else {}
            sentences = [s.text for s in number_sentences(case.agentic_inputs())]
            data = section(case.id, [n.text for n in numbered], pairs, sentences, old)
            path = replies_dir / f"{case.id}.yaml"
            text = path.read_text("utf-8")
            dumped = yaml.safe_dump({"judge": data}, allow_unicode=True, sort_keys=False, width=100)
            write_text_atomic(path, with_judge_section(text, HEADER + dumped))
            print(f"{case.id}: {len(numbered)} propositions, {len(pairs)} pairs")


if __name__ == "__main__":
    main()
