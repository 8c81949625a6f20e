"""Names cut short: a proposition's organisation-style name made of a source name with
words left out of its middle ("the Department of Welfare" where the source says "the
Department of Health, Education, and Welfare"). Every word is the source's, so the word
rules find nothing; but the name now names another thing, or nothing at all.

Guarantees: only a name with "of" or "for" between its capitalised words is judged, so a
person's name without a middle name ("Barack Obama" for "Barack Hussein Obama") never is,
nor two names joined by "and" ("Ada and Ben's friend" for "Ada and Cole, Ben's friend").
The cut name must keep the source name's first and last word, in order, and appear
nowhere in the source as written (case aside); no "the" may be among the words left out
(one of several names kept is no cut); a name cut at its end ("the University of
California" for "the University of California, Berkeley") is not judged. Lexical only:
no parse.
"""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"[A-Za-z](?:[\w'-]|\.(?=\w))*|&|,")
"""A word (inner dots kept: "U.S"; a full stop after it not), an ampersand or a comma."""
_CONNECTORS = frozenset({"of", "and", "for", "the", "&"})
"""Lower-case words that may stand inside a name between its capitalised words."""
_OF_FOR = frozenset({"of", "for"})
"""What makes a run of capitals one organisation-style name ("Ministry of Sport", "Centre
for Ageing"); "and" alone may join two names ("Ada and Ben")."""


def _name_spans(text: str) -> list[list[str]]:
    """Each run of capitalised words of ``text``, with the connectors and commas between
    them ("Department of Health, Education, and Welfare": eight tokens); a run ends before
    a lower-case word that is no connector."""
    spans: list[list[str]] = []
    current: list[str] = []
    pending: list[str] = []
    for token in _TOKEN.findall(text):
        if token[0].isupper():
            current += [*pending, token] if current else [token]
            pending = []
        elif current and (token == "," or token.lower() in _CONNECTORS):
            pending.append(token)
        else:
            if current:
                spans.append(current)
            current, pending = [], []
    if current:
        spans.append(current)
    return spans


@lru_cache(maxsize=256)
def _written(source: str) -> str:
    """The source's tokens, lower case, one space apart: what a span is looked up in
    (tokenised once per source, not once per proposition)."""
    return " ".join(_TOKEN.findall(source)).lower()


def _words(span: list[str]) -> list[str]:
    return [token for token in span if token != ","]


def _shown(span: list[str]) -> str:
    return " ".join(span).replace(" ,", ",")


def _cut_from(short: list[str], long: list[str]) -> bool:
    """Is ``short`` ``long`` with words left out between its first and its last word, none
    of them a "the"? A "the" among them starts another noun phrase: the source's run is
    several names, and the proposition kept one ("the Seattle Mariners" of "the San
    Francisco Giants and the Seattle Mariners", "Fundación Progresar" of "the NGO
    Fundación Progresar")."""
    if len(short) >= len(long) or short[0] != long[0] or short[-1] != long[-1]:
        return False
    left_out: list[str] = []
    position = 0
    for word in short:
        while position < len(long) and long[position] != word:
            left_out.append(long[position])
            position += 1
        if position == len(long):
            return False
        position += 1
    return "the" not in (w.lower() for w in left_out)


def cut_name(proposition: str, window_text: str, source: str) -> tuple[str, str] | None:
    """(cut, whole): the first name of ``proposition`` that is a name of ``window_text``
    (the sentences it restates) with words left out of its middle, and that name; None
    when there is none."""
    wholes = _name_spans(window_text)
    for span in _name_spans(proposition):
        words = _words(span)
        capitals = [w for w in words if w[0].isupper()]
        if len(capitals) < 2 or not _OF_FOR & {w.lower() for w in words}:
            continue  # a person's name, two names ("Ada and Ben"), or one word: not judged
        if " ".join(span).lower() in _written(source):
            continue  # the source writes it so itself
        for whole in wholes:
            if _cut_from(words, _words(whole)):
                return _shown(span), _shown(whole)
    return None
