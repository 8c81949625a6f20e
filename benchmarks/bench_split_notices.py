"""``split`` on a third-party notices file whose licence texts are indented by four spaces.

Run: python benchmarks/bench_split_notices.py [--quick] [--packages 60] [--embedder minilm|hashing]

The document is generated (``notices_document``): a title, then per package a rule of
dashes, its name and version, and its licence indented by four spaces, hard-wrapped at 76
columns: the MIT, BSD-3-Clause or Apache-2.0 text, or paragraphs of generated sentences,
and now and then a usage example (indented code, eight spaces). That is the shape of a
``THIRD-PARTY-NOTICES`` file. It is split twice with the default (adaptive) splitter and
the same embedder, in this process:

- **before**: the segmenter as it was: an indented block is code whatever its lines look
  like (``indented_block_is_code`` replaced by "always code"), so every wrapped line of a
  licence ends a segment, and the period of a list item's number ("3. Neither ...") ends
  a segment (``_ENUMERATOR`` matching nothing);
- **after**: the segmenter as it is: an indented block is code only when its lines look
  like code, and a list item's number stays with its item.

Per run: segments, chunks, chunks that start mid-sentence, the usage examples kept as code
(no line end of theirs joined), and seconds to split (the embedder loaded and warmed
first). A chunk starts mid-sentence when its first non-space character is not where a
sentence of the source begins, as the project's own sentence splitter
(``agentic_chunking._text.sentence_spans``, which ``split_sentences`` uses) reads the
dedented text (four leading spaces removed from each line), one paragraph at a time (a
blank line ends a sentence; the splitter alone would run a header into the licence under
it). Goal: 0. ``--quick``: 6 packages, the same code path.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import re
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _generated import propositions  # noqa: E402

INDENT = "    "
WIDTH = 76
RULE = "-" * WIDTH

MIT = """\
Permission is hereby granted, free of charge, to any person obtaining a copy of this \
software and associated documentation files (the "Software"), to deal in the Software \
without restriction, including without limitation the rights to use, copy, modify, merge, \
publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons \
to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or \
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, \
INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR \
PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE \
FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR \
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER \
DEALINGS IN THE SOFTWARE."""

BSD3 = """\
Redistribution and use in source and binary forms, with or without modification, are \
permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this list of \
conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice, this list of \
conditions and the following disclaimer in the documentation and/or other materials \
provided with the distribution.

3. Neither the name of the copyright holder nor the names of its contributors may be used \
to endorse or promote products derived from this software without specific prior written \
permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY \
EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF \
MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE \
COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, \
EXEMPLARY, OR CONSEQUENTIAL DAMAGES HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER \
IN CONTRACT, STRICT LIABILITY, OR TORT ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, \
EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE."""

APACHE = """\
Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file \
except in compliance with the License. You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software distributed under \
the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY \
KIND, either express or implied. See the License for the specific language governing \
permissions and limitations under the License."""


@dataclass(frozen=True)
class Notices:
    """The generated file and where its usage examples (indented code) are."""

    text: str
    code_blocks: tuple[tuple[int, int], ...]  # [start, end) of each usage example


def _wrapped(paragraph: str) -> str:
    """A paragraph of a licence, indented by four spaces and wrapped at ``WIDTH``;
    a line already indented (a URL) keeps its own indentation on top."""
    if paragraph.startswith("    "):
        return INDENT + paragraph
    hang = " " * 3 if re.match(r"\d\. ", paragraph) else ""
    return textwrap.fill(
        paragraph,
        WIDTH,
        initial_indent=INDENT,
        subsequent_indent=INDENT + hang,
        break_long_words=False,
        break_on_hyphens=False,
    )


def notices_document(packages: int, seed: int = 0) -> Notices:
    """A third-party notices file of ``packages`` packages (deterministic for a seed)."""
    rng = random.Random(seed)
    facts = iter(propositions(packages * 40 + 100, seed, topics=max(4, packages)))
    parts = [
        "THIRD-PARTY SOFTWARE NOTICES AND INFORMATION",
        "This product includes the software packages below. Each is used under the licence "
        "that follows its name, reproduced as its authors distribute it.",
    ]
    code_blocks: list[tuple[int, int]] = []
    for number in range(packages):
        name = f"lib{next(facts).split()[1].lower()}"
        version = f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
        parts += [RULE, f"{name} {version}"]
        parts.append(f"{INDENT}Copyright (c) {2005 + number % 20} The {name} authors")
        roll = rng.random()
        if roll < 0.3:
            licence = MIT
        elif roll < 0.55:
            licence = BSD3
        elif roll < 0.75:
            licence = APACHE
        else:
            licence = "\n\n".join(
                " ".join(next(facts) for _ in range(rng.randint(3, 7)))
                for _ in range(rng.randint(2, 4))
            )
        parts.extend(_wrapped(paragraph) for paragraph in licence.split("\n\n"))
        if rng.random() < 0.3:
            parts.append(f"{INDENT}Usage of {name} in this product:")
            example = "\n".join(
                f"{INDENT * 2}{line}"
                for line in (
                    f"import {name}",
                    f"client = {name}.connect(timeout={rng.randint(1, 60)})",
                    "client.run(retries=3)",
                )
            )
            start = len("\n\n".join(parts)) + 2
            parts.append(example)
            code_blocks.append((start, start + len(example)))
    return Notices("\n\n".join(parts) + "\n", tuple(code_blocks))


def dedented(text: str) -> tuple[str, list[int]]:
    """``text`` with up to four leading spaces removed from each line, and for each
    offset of the dedented text the offset of the same character in ``text``."""
    out: list[str] = []
    where: list[int] = []
    offset = 0
    for line in text.split("\n"):
        cut = len(line[:4]) - len(line[:4].lstrip(" "))
        out.append(line[cut:])
        where.extend(range(offset + cut, offset + len(line) + 1))  # its characters and "\n"
        offset += len(line) + 1
    return "\n".join(out), where[:-1]  # no line end after the last line


def sentence_starts(text: str) -> set[int]:
    """Offsets in ``text`` of the first character of each sentence of its dedented text,
    read by the project's sentence splitter one paragraph (blank-line block) at a time."""
    from agentic_chunking._text import sentence_spans

    flat, where = dedented(text)
    starts: set[int] = set()
    for paragraph in re.finditer(r"\S(?:.|\n(?![ \t]*\n))*", flat):
        for start, end in sentence_spans(paragraph.group()):
            sentence = paragraph.group()[start:end]
            first = paragraph.start() + start + len(sentence) - len(sentence.lstrip())
            starts.add(where[first])
    return starts


def measure(
    notices: Notices, embedder: Callable[[list[str]], object], variant: str
) -> dict[str, float]:
    """Split ``notices`` with ``variant`` ("before" or "after"); return its figures."""
    from agentic_chunking.semantic import SemanticSplitter, _segment

    text = notices.text
    old_rules = contextlib.ExitStack()
    if variant == "before":  # indentation alone made code; a list item's number ended a segment
        old_rules.enter_context(
            mock.patch.object(_segment, "indented_block_is_code", lambda lines: True)
        )
        old_rules.enter_context(mock.patch.object(_segment, "_ENUMERATOR", re.compile(r"(?!)")))
    with old_rules:
        splitter = SemanticSplitter(embedder)  # type: ignore[arg-type]
        began = time.perf_counter()
        explanation = splitter.explain(text)
        seconds = time.perf_counter() - began
        soft = _segment.soft_line_breaks(text)
    starts = sentence_starts(text)
    mid = 0
    for chunk in explanation.chunks:
        body = text[chunk.body_start :]
        if chunk.body_start + len(body) - len(body.lstrip()) not in starts:
            mid += 1
    kept = sum(1 for a, b in notices.code_blocks if not any(a <= s < b for s in soft))
    return {
        "characters": len(text),
        "segments": len(explanation.segments),
        "chunks": len(explanation.chunks),
        "mid_sentence": mid,
        "code_kept": kept,
        "code_blocks": len(notices.code_blocks),
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="6 packages, a few seconds")
    parser.add_argument("--packages", type=int, default=60, help="packages (default 60)")
    parser.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    args = parser.parse_args()
    from agentic_chunking.semantic import HashingEmbedder, MiniLMEmbedder

    notices = notices_document(6 if args.quick else args.packages)
    embedder = MiniLMEmbedder() if args.embedder == "minilm" else HashingEmbedder()
    embedder(["warm up the model"])
    figures = {variant: measure(notices, embedder, variant) for variant in ("before", "after")}
    before, after = figures["before"], figures["after"]
    print(
        f"split on a generated notices file of {before['characters']:,} characters, "
        f"licences indented by four spaces ({args.embedder} embedder, adaptive rule)"
    )
    print(f"{'':8}{'segments':>9}{'chunks':>8}{'mid-sentence':>15}{'code kept':>11}{'seconds':>9}")
    for name, row in figures.items():
        share = row["mid_sentence"] / row["chunks"] if row["chunks"] else 0.0
        print(
            f"{name:8}{row['segments']:>9}{row['chunks']:>8}"
            f"{row['mid_sentence']:>8} ({share:>4.0%})"
            f"{row['code_kept']:>6} of {row['code_blocks']:<2}{row['seconds']:>9.2f}"
        )
    seconds = f"{after['seconds'] / before['seconds']:.2f}" if before["seconds"] else "n/a"
    print(
        f"after / before: chunks starting mid-sentence {after['mid_sentence']} vs "
        f"{before['mid_sentence']} (goal 0), segments "
        f"{after['segments'] / before['segments']:.2f}, seconds {seconds}"
    )


if __name__ == "__main__":
    main()
