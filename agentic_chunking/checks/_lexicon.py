"""The paraphrase lexicon: common synonyms and connectives a faithful proposition may use,
and the demonyms of places ("British" for "U.K.").

Data: ``data/paraphrases.txt`` and ``data/demonyms.txt`` (hand-written, shipped in the
package; their headers say where they come from). Loaded once; nothing is downloaded.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from ._language import GLUE_WORDS, stem, tokens


@lru_cache(maxsize=1)
def _groups() -> tuple[tuple[tuple[tuple[str, ...], ...], ...], dict[str, tuple[int, ...]]]:
    """Each group as a tuple of members (each a tuple of stems), and stem -> group ids
    (a one-word member by its stem, a phrase by each of its non-glue stems)."""
    text = (resources.files("agentic_chunking.checks") / "data" / "paraphrases.txt").read_text(
        encoding="utf-8"
    )
    glue = {stem(w) for w in GLUE_WORDS}
    groups: list[tuple[tuple[str, ...], ...]] = []  # a group: its members' stem tuples
    index: dict[str, list[int]] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        members = tuple(
            tuple(stem(t.norm) for t in tokens(member) if not t.number)
            for member in line.split("|")
        )
        for member in members:  # a phrase ("due to") is found by its content words
            keys = member if len(member) == 1 else [w for w in member if w not in glue]
            for key in keys:
                index.setdefault(key, []).append(len(groups))
        groups.append(members)
    return tuple(groups), {k: tuple(v) for k, v in index.items()}


def paraphrases(word_stem: str) -> tuple[tuple[str, ...], ...]:
    """The members (as stem tuples) of every group ``word_stem`` belongs to; empty when
    the lexicon does not list it."""
    groups, index = _groups()
    return tuple(m for g in index.get(word_stem, ()) for m in groups[g])


def says_by_lexicon(words: str, text: str) -> bool:
    """True when every content word of ``words`` is in ``text``, by stem or by one of its
    listed paraphrases (a phrase member must be there whole): "Big Cities" is said by
    "Large Cities", "Small Cities" is not. False when ``words`` has no content word."""
    wanted = [stem(t.norm) for t in tokens(words) if not t.number and t.norm not in GLUE_WORDS]
    have = {stem(t.norm) for t in tokens(text) if not t.number}
    if not wanted:
        return False
    return all(
        word in have or any(member and set(member) <= have for member in paraphrases(word))
        for word in wanted
    )


@lru_cache(maxsize=1)
def _demonyms() -> dict[str, tuple[tuple[str, ...], ...]]:
    """Demonym (lower case; a phrase by its last word) -> the stems of each name of its
    place."""
    text = (resources.files("agentic_chunking.checks") / "data" / "demonyms.txt").read_text(
        encoding="utf-8"
    )
    out: dict[str, list[tuple[str, ...]]] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        adjectives, places = line.split(":", 1)
        names = [tuple(stem(t.norm) for t in tokens(p)) for p in places.split("|")]
        for word in adjectives.split():
            out.setdefault(word.lower(), []).extend(n for n in names if n)
    return {k: tuple(v) for k, v in out.items()}


def demonym_places(word: str) -> tuple[tuple[str, ...], ...]:
    """The names (as stem tuples) of the place ``word`` is a demonym of ("British": "uk",
    "britain", "great britain", "united kingdom"); empty when the lexicon does not list it."""
    return _demonyms().get(word.lower(), ())
