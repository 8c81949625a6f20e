"""Generated propositions for the benchmarks (made by this script, not written by a person).

``propositions(n, seed)`` gives ``n`` distinct, self-contained English-shaped facts,
deterministic for a seed: a subject phrase, a verb, an object phrase and an optional
prepositional phrase or number, drawn from pseudo-words with a Zipf-like frequency (a few
common words, many rare ones, as in real text), ``topics`` themes of their own vocabulary.
``with_copies`` mixes in repeats and rewordings, so duplicate detection has work to do.
"""

from __future__ import annotations

import random

_SYLLABLES = [c + v for c in "bdklmnprstvz" for v in "aeiou"]
_VERBS = """stores filters regulates produces controls reduces increases releases contains carries
    supports converts requires protects measures limits detects absorbs transports shapes""".split()  # noqa: SIM905
_PREPOSITIONS = "in during across near under within after before".split()  # noqa: SIM905


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables)) + rng.choice(
        ["n", "r", "l", "t", "s"]
    )


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < size:
        w = _word(rng, rng.randint(2, 4))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def propositions(n: int, seed: int = 0, topics: int = 40) -> list[str]:
    """``n`` distinct generated facts in ``topics`` themes (consecutive runs share a theme)."""
    return [text for text, _theme in themed_propositions(n, seed, topics)]


def themed_propositions(n: int, seed: int = 0, topics: int = 40) -> list[tuple[str, str]]:
    """``(fact, theme label)`` pairs: ``n`` distinct facts, a run of consecutive facts per
    theme, themes recurring (a theme comes back every ``topics`` runs of 25)."""
    rng = random.Random(seed)
    shared = _vocabulary(rng, 400)
    themes = [_vocabulary(rng, 60) for _ in range(topics)]
    weights = [1 / (rank + 1) for rank in range(len(shared))]
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    while len(out) < n:
        number = (len(out) // 25) % topics
        theme = themes[number]
        subject = f"{rng.choice(theme)} {rng.choice(theme)}"
        obj = " ".join(rng.choices(shared, weights, k=2))
        tail = ""
        roll = rng.random()
        if roll < 0.4:
            tail = f" {rng.choice(_PREPOSITIONS)} {rng.choice(theme)} {rng.choice(shared)}"
        elif roll < 0.6:
            tail = f" at {rng.randint(2, 999)} {rng.choice(['meters', 'kilograms', 'percent'])}"
        text = f"The {subject} {rng.choice(_VERBS)} {obj}{tail}."
        text = text[0].upper() + text[1:]
        if text not in seen:
            seen.add(text)
            out.append((text, f"Theme {number + 1}"))
    return out


def with_copies(texts: list[str], share: float = 0.05, seed: int = 0) -> list[str]:
    """``texts`` with about ``share`` of them repeated later (verbatim or re-spaced)."""
    rng = random.Random(seed)
    out = list(texts)
    for text in rng.sample(texts, int(len(texts) * share)):
        copy = text if rng.random() < 0.5 else "  " + text.replace(" ", "  ", 1)
        out.insert(rng.randint(0, len(out)), copy)
    return out


def wrapped_document(size: int, seed: int = 0, width: int = 72) -> str:
    """A plain-text document of about ``size`` characters, hard-wrapped at ``width`` columns.

    The shape of a README, a licence file or a Project Gutenberg text: ``# Heading`` lines,
    paragraphs of three to eight sentences (two generated facts joined by ", and", so most
    sentences run across a line end), bullet lists whose items wrap onto indented
    continuation lines, and an indented code block now and then; blocks are separated by a
    blank line. Deterministic for a seed; every sentence is distinct.
    """
    import textwrap

    rng = random.Random(seed)
    facts = iter(propositions(size // 40 + 100, seed, topics=max(4, size // 4000)))

    def sentence() -> str:
        first, second = next(facts), next(facts)
        return f"{first[:-1]}, and {second[0].lower()}{second[1:]}"

    blocks: list[str] = []
    length = 0
    section = 0
    while length < size:
        roll = rng.random()
        if roll < 0.08 or not blocks:
            section += 1
            block = f"# Section {section}: {next(facts)[4:-1]}"
        elif roll < 0.2:
            block = "\n".join(
                textwrap.fill(sentence(), width, initial_indent="- ", subsequent_indent="  ")
                for _ in range(rng.randint(2, 5))
            )
        elif roll < 0.25:
            block = "\n".join(f"    step_{i}(value={rng.randint(1, 99)})" for i in range(3))
        else:
            block = textwrap.fill(" ".join(sentence() for _ in range(rng.randint(3, 8))), width)
        blocks.append(block)
        length += len(block) + 2
    return "\n\n".join(blocks) + "\n"


def near_limit_texts(count: int, limit_tokens: int, seed: int = 0) -> list[list[str]]:
    """``count`` paragraphs of generated facts, each just under ``limit_tokens`` (at 4
    characters a token, the pipeline's estimate; between 92% of the limit and the limit),
    as their lists of facts (a paragraph is its facts joined by a space). Input chunks
    this size cannot share an extraction batch (a batch over 90% full is closed), so
    ``count`` of them make ``count`` extraction calls after packing."""
    most = limit_tokens * 4
    facts = iter(propositions(count * (most // 40 + 10), seed))
    out: list[list[str]] = []
    for _ in range(count):
        paragraph: list[str] = []
        size = -1
        for fact in facts:
            if size + 1 + len(fact) > most:
                if size >= 0.92 * most:
                    break
                continue  # too long for the room left: a shorter fact may fit
            paragraph.append(fact)
            size += 1 + len(fact)
        out.append(paragraph)
    return out
