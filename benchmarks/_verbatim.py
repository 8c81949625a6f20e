"""Verbatim corpus: real text nobody here wrote, and generated shapes real documents have.

Shared by ``benchmarks/bench_verbatim.py`` (every document) and
``tests/test_checks_verbatim.py`` (documents drawn by hypothesis). What it reads:

- the five corpora of Chroma's chunking evaluation bundled in
  ``agentic_chunking/evaluate/data/*.md`` (essays, a finance filing, PubMed articles,
  Wikipedia, a speech, chat logs), cut into documents of whole paragraphs (a Wikipedia
  or PubMed article boundary always starts a new one);
- the licence texts of Debian's base-files in ``/usr/share/common-licenses/``;
- the Debian changelogs ``/usr/share/doc/*/changelog.Debian.gz`` and copyright files
  ``/usr/share/doc/*/copyright`` (their first document each: the files run to megabytes);
- generated documents (:func:`generated`) of the shapes the checks have stumbled on:
  numbered lists ("13. accounts payable ..."), changelog headers and entries,
  "Files:"/"Copyright:"/"License:" blocks (two of them the segmenter joins into one
  sentence), numbered licence sections whose heading the segmenter joins to an "All ..."
  or "No ..." sentence, markdown headings, chat logs with speaker
  tags, citation markers ("[16]"), quotes, abbreviations, sentences ending on a verb or
  adverb, contractions with a negation, "nearly all", "Only" at the end of a line.

A path that is absent on this machine is skipped (:func:`sources` says which were read).
Nothing here is imported by the package: the package never reads ``/usr/share``.
"""

from __future__ import annotations

import gzip
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentic_chunking._text import split_sentences

ROOT = Path(__file__).resolve().parent.parent
CHROMA = ROOT / "agentic_chunking" / "evaluate" / "data"
LICENCES = Path("/usr/share/common-licenses")
DEBIAN_DOCS = Path("/usr/share/doc")
MAX_CHARS = 3000
"""A document is at most about this long (whole paragraphs; a longer paragraph is cut
between its sentences)."""
GENERATED = 60
"""How many generated documents (each draws several shapes)."""
_SECTION = re.compile(r"^ = [^=].* = $|^PMID: ")


@dataclass(frozen=True)
class Document:
    """One document of the corpus: where it comes from (``name``) and its text."""

    name: str
    text: str

    def sentences(self) -> list[str]:
        """The document's sentences, by the package's own splitter (what ``check`` uses)."""
        return split_sentences(self.text)


def _paragraphs(text: str) -> list[str]:
    """Paragraphs: blocks between blank lines, and a section heading line on its own."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if not line.strip() or _SECTION.match(line):
            if current:
                blocks.append("\n".join(current))
            current = [line] if line.strip() else []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def _pieces(paragraph: str) -> list[str]:
    """A paragraph, or its sentences regrouped into pieces of at most ``MAX_CHARS``."""
    if len(paragraph) <= MAX_CHARS:
        return [paragraph]
    pieces: list[str] = []
    current = ""
    for sentence in split_sentences(paragraph):
        if current and len(current) + len(sentence) > MAX_CHARS:
            pieces.append(current)
            current = ""
        current = f"{current} {sentence}" if current else sentence
    return [*pieces, current] if current else pieces


def split_documents(name: str, text: str, limit: int | None = None) -> list[Document]:
    """``text`` cut into documents of whole paragraphs of at most about ``MAX_CHARS``; a
    section heading (Wikipedia title, "PMID:") starts a new one; the first ``limit``."""
    documents: list[Document] = []
    current: list[str] = []

    def close() -> None:
        if current and "".join(current).strip():
            documents.append(Document(f"{name}#{len(documents) + 1}", "\n\n".join(current)))
        current.clear()

    for paragraph in _paragraphs(text):
        for piece in _pieces(paragraph):
            size = sum(len(p) + 2 for p in current)
            if current and (_SECTION.match(piece) or size + len(piece) > MAX_CHARS):
                close()
                if limit is not None and len(documents) >= limit:
                    return documents
            current.append(piece)
    close()
    return documents[:limit] if limit is not None else documents


def chroma() -> list[Document]:
    """Chroma's five corpora, every document."""
    return [
        document
        for path in sorted(CHROMA.glob("*.md"))
        if path.name != "README.md"
        for document in split_documents(f"chroma/{path.stem}", path.read_text(encoding="utf-8"))
    ]


def licences() -> list[Document]:
    """The licence texts of base-files, every document (symbolic links read once)."""
    if not LICENCES.is_dir():
        return []
    seen: set[Path] = set()
    documents: list[Document] = []
    for path in sorted(LICENCES.iterdir()):
        real = path.resolve()
        if real in seen or not real.is_file():
            continue
        seen.add(real)
        text = real.read_text(encoding="utf-8", errors="replace")
        documents += split_documents(f"licence/{real.name}", text)
    return documents


def debian_docs() -> list[Document]:
    """The first document of each Debian changelog and copyright file (none when absent)."""
    if not DEBIAN_DOCS.is_dir():
        return []
    documents: list[Document] = []
    for path in sorted(DEBIAN_DOCS.glob("*/changelog.Debian.gz")):
        try:
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as stream:
                text = stream.read(4 * MAX_CHARS)
        except (OSError, EOFError):
            continue
        documents += split_documents(f"changelog/{path.parent.name}", text, limit=1)
    for path in sorted(DEBIAN_DOCS.glob("*/copyright")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")[: 4 * MAX_CHARS]
        except OSError:
            continue
        documents += split_documents(f"copyright/{path.parent.name}", text, limit=1)
    return documents


# Generated shapes. Each takes a random source and returns a block of text; the words are
# varied so that no rule can pass by one fixed sentence.
_NOUNS = [
    "accounts payable",
    "deferred revenue",
    "the inventory",
    "the pension plan",
    "goodwill",
    "the new parser",
    "the build system",
    "the test suite",
    "the translation",
    "the server",
]
_PEOPLE = ["Jane Doe", "Ahmed Khan", "Maria Rossi", "Li Wei", "Tom Baker"]
_PACKAGES = ["libfoo", "python-bar", "zlib-ng", "gnome-baz", "texcat"]
_VERB_ENDINGS = [
    "It took years before anyone knew where the limits were.",
    "This was what we had expected the course to do.",
    "If she wants the post, she is going to get it.",
    "Nobody could say how long the repairs would take, but they did.",
    "The committee asked whether the new rules would help, and they will.",
    "We tried the old method because it was what everyone else did.",
    "He kept the letter for as long as he could.",
    "The price rose faster than anyone had thought it would.",
    "That is where the river used to be.",
    "Most of the engineers left early, as they always had.",
]
_NEGATIONS = [
    "But it isn't needed to.",
    "She wanted to call, but she didn't.",
    "They can't, and they know it.",
    "The patch is harmless, but it isn't required.",
    "We don't know why it failed.",
    "You cannot afford not to test it.",
    "He won't sign unless the terms change.",
    "It wasn't the first time.",
]
_QUANTIFIERS = [
    "Nearly all stores at the Arsenal closed before noon.",
    "Almost all of the samples were negative.",
    "Not all users need the new option.",
    "Nearly every branch reported a loss in {year}.",
    "All but two of the {n} patients recovered.",
    "Only a few of the files changed.",
]
_ABBREVIATIONS = [
    "Dr. Smith met Mr. Jones at 10 a.m. on Jan. 5 at the U.S. embassy.",
    "The results, e.g. the yields in Fig. 3, were checked by Prof. Lee et al. in {year}.",
    "Revenue grew approx. {n} percent vs. the prior year, i.e. faster than costs.",
    "St. Louis and Washington, D.C. each sent {n} delegates.",
]
_QUOTES = [
    'He said, "We will not stop until the job is done."',
    "\u201cI address you at a moment unprecedented in the history of the Union\u201d, he said.",
    'The manual says: "Do not open the case while the power is on."',
    "She called it \u2018the best year we have had\u2019 in her letter of {year}.",
]


def _numbered_list(rng: random.Random) -> str:
    start = rng.randint(1, 20)
    items = rng.sample(_NOUNS, 4)
    amounts = [rng.randint(2, 900) for _ in items]
    if rng.random() < 0.5:  # inline, as in a filing flattened to one paragraph
        return " ".join(
            f"{start + i}. {noun} increased to ${amount} million in {rng.randint(2001, 2020)}."
            for i, (noun, amount) in enumerate(zip(items, amounts, strict=True))
        )
    return "\n".join(
        f"{start + i}. {noun.capitalize()} was reviewed by {rng.choice(_PEOPLE)} in {amount} days."
        for i, (noun, amount) in enumerate(zip(items, amounts, strict=True))
    )


def _changelog(rng: random.Random) -> str:
    package = rng.choice(_PACKAGES)
    version = f"{rng.randint(0, 9)}.{rng.randint(0, 30)}-{rng.randint(1, 5)}"
    bug = rng.randint(100000, 999999)
    person = rng.choice(_PEOPLE)
    email = person.lower().replace(" ", ".") + "@example.org"
    only = rng.choice(["Only", "only"])
    return (
        f"{package} ({version}) unstable; urgency=medium\n\n"
        f"  * New upstream release.\n"
        f"  * Fix a crash when the configuration file is empty (Closes: #{bug}).\n"
        f"  * Drop the patch for the old kernel, applied upstream. {only}\n"
        f"    needed on armel and mipsel.\n"
        f"  * Build with the default compiler for amd64 only.\n\n"
        f" -- {person} <{email}>  Mon, {rng.randint(10, 28)} Jan {rng.randint(2001, 2024)} "
        "10:00:00 +0100"
    )


def _copyright(rng: random.Random) -> str:
    person = rng.choice(_PEOPLE)
    year = rng.randint(1995, 2015)
    package = rng.choice(_PACKAGES)
    authors = f"The {package.capitalize()} Authors"
    later = year + rng.randint(1, 9)
    return (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        f"Upstream-Name: {package}\n\n"
        f"Files: *\nCopyright: {year}-{year + rng.randint(1, 9)} {person}\n"
        f"License: GPL-{rng.choice([2, 3])}+\n\n"
        f"Files: debian/*\nCopyright: {year + 1} {rng.choice(_PEOPLE)}\nLicense: BSD-3-clause\n\n"
        # blocks the segmenter joins into one sentence, each with its own year
        f"License: Unicode\nComment: http://www.unicode.org/copyright.html\n\n"
        f"Files: src/*\nCopyright: Copyright {year} {authors}. All rights reserved.\n"
        f"License: BSD-3-clause\n\n"
        f"Files: src/version.h\nCopyright: Copyright {later} {authors}.\n"
        "License: BSD-3-clause\n\n"
        "License: BSD-3-clause\n Redistribution and use in source and binary forms, with or"
        " without\n modification, are permitted provided that the following conditions are"
        " met."
    )


def _licence_sections(rng: random.Random) -> str:
    """Numbered section headings with no closing mark, each before a paragraph that opens
    with a quantifier or negation: the segmenter joins heading and sentence."""
    section = rng.randint(1, 9)
    noun = rng.choice(_NOUNS)
    return (
        f"{section}.1. Distribution of Source Form\n\n"
        f"All distribution of {noun} in source form must be under the terms of this"
        f" License. You must inform recipients of the terms.\n\n"
        f"{section}.2. Warranty\n\n"
        f"No warranty is given for {noun}, and only the author may change this"
        f" notice.\n\n"
        f"{section}.3. Notices\n\n"
        f"Every copy of {noun} must keep this notice in {rng.randint(2001, 2024)}."
    )


def _headings(rng: random.Random) -> str:
    noun = rng.choice(_NOUNS)
    return (
        f"# Installation\n\n{noun.capitalize()} runs on Linux and macOS.\n\n## Usage\n\n"
        f"Run the command with the file name. The output goes to standard output.\n\n"
        f"### Limits\n\nFiles over {rng.randint(2, 64)} MB are refused."
    )


def _chat(rng: random.Random) -> str:
    person = rng.choice(_PEOPLE).split()[0]
    return (
        f"{person}: How do I reset my password?\n"
        "Assistant: You can reset it from the settings page.\n"
        f"{person}: It isn't there.\n"
        "Assistant: Then your administrator has turned it off, and only they can turn it "
        "back on.\n"
        f"User: Thanks, that is what I needed to know."
    )


def _citations(rng: random.Random) -> str:
    a, b = rng.sample(range(1, 40), 2)
    year = rng.randint(1990, 2020)
    return (
        f"Smoking raises the risk of lung cancer [{a}]. The effect was seen in every "
        f"cohort [{a}, {b}]. Earlier studies found the same (Smith et al., {year})."
    )


def _fill(rng: random.Random, template: str) -> str:
    return template.format(year=rng.randint(1950, 2024), n=rng.randint(2, 99))


def _prose(rng: random.Random) -> str:
    pools = (_VERB_ENDINGS, _NEGATIONS, _QUANTIFIERS, _ABBREVIATIONS, _QUOTES)
    sentences = [_fill(rng, rng.choice(pool)) for pool in pools for _ in range(2)]
    rng.shuffle(sentences)
    return " ".join(sentences)


_SHAPES = (
    _numbered_list,
    _changelog,
    _copyright,
    _licence_sections,
    _headings,
    _chat,
    _citations,
    _prose,
)


def generated(count: int = GENERATED, seed: int = 0) -> list[Document]:
    """``count`` generated documents, each of three shapes drawn at random (``seed``)."""
    rng = random.Random(seed)
    return [
        Document(
            f"generated/{i + 1}",
            "\n\n".join(shape(rng) for shape in rng.sample(_SHAPES, 3)),
        )
        for i in range(count)
    ]


def sources() -> dict[str, list[Document]]:
    """Every source of the corpus by name (an absent path gives an empty list)."""
    return {
        "chroma": chroma(),
        "licences": licences(),
        "debian": debian_docs(),
        "generated": generated(),
    }


def documents() -> list[Document]:
    """Every document of the corpus, source after source."""
    return [d for docs in sources().values() for d in docs]


def paragraphs(source: str) -> list[str]:
    """The paragraphs of ``source`` (blocks between blank lines), each whole: the
    propositions of an output that gives the source back a paragraph at a time, which
    the segmenter's sentences need not line up with (a heading joined to the sentence
    after it, two "Files:" blocks joined into one sentence)."""
    return [p.strip() for p in re.split(r"\n[^\S\n]*\n", source) if p.strip()]


def runs(sentences: Sequence[str], lengths: Sequence[int]) -> Iterator[str]:
    """The sentences cut into consecutive runs of ``lengths`` (cycled), each joined by a
    space: the propositions of an output that gives the source back a few sentences at
    a time."""
    i = 0
    k = 0
    while i < len(sentences):
        size = max(1, lengths[k % len(lengths)]) if lengths else 1
        yield " ".join(sentences[i : i + size])
        i += size
        k += 1
