"""The chunkers an evaluation compares, built from a spec string or passed in.

A spec is a name and optional settings, comma-separated: ``fixed,size=800,overlap=400``,
``level4``, ``level4-solon,threshold=0.35,window=1``, ``recursive,size=256``,
``level5,replies=chunks.json``, or ``package.module:function`` (any callable from a text
to a list of ``(start, end)`` character spans). Every chunk carries character offsets into
its document; a chunk whose text is only whitespace is dropped (it can never help).

Sizes are tokens as the package counts them (``estimate_tokens``: 4 characters a token),
the unit of the Level 4 splitter's ``max_chunk_token_size``; the fixed windows and the
LangChain and chonkie splitters are given the same unit (4 characters a token), so every
chunker is sized alike.

``level5`` reads recorded Level 5 output, never invents it: a JSON file
``{"model": ..., "replies": "recorded" | "reference", "chunks": [{"document_id", "text",
"spans": [[start, end], ...]}]}``, where ``spans`` are the provenance spans (the source
sentences each chunk's propositions state), so a rewritten proposition is credited with
the text it came from. ``replies: "reference"`` (hand-written replies) is labelled so, and
never counts as a model's output.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._shown import quote
from ..semantic import Embedder, SemanticSplitter
from ._records import Document, EvalChunk, Span

CHARS_PER_TOKEN = 4
SplitFunction = Callable[[Document], list[EvalChunk]]


@dataclass(frozen=True)
class Chunker:
    """A named chunker with its settings.

    ``kind``: ``ours`` (Level 4 or 5), ``baseline`` (built in), ``library`` (LangChain,
    chonkie, semchunk), ``callable`` (the user's). ``model_output``: ``none``,
    ``recorded`` (a real model's replies) or ``reference`` (hand-written replies).
    """

    name: str
    kind: str
    settings: Mapping[str, Any]
    split: SplitFunction
    model_output: str = "none"
    embeds: bool = False
    library: str = field(default="")


def _spans_to_chunks(document: Document, spans: Sequence[Any], who: str) -> list[EvalChunk]:
    chunks = []
    size = len(document.text)
    for item in spans:
        try:
            start, end = int(item[0]), int(item[1])
        except (TypeError, ValueError, IndexError):
            raise InputError(
                f"the chunker {who!r} returned {quote(repr(item), limit=80)} for "
                f"{document.id!r}; expected (start, end) offsets"
            ) from None
        if not 0 <= start <= end <= size:
            raise InputError(
                f"the chunker {who!r} returned the span ({start}, {end}) outside "
                f"{document.id!r} ({size} characters); a chunk must be a range of its document"
            )
        text = document.text[start:end]
        if text.strip():
            chunks.append(EvalChunk(document.id, ((start, end),), text))
    return chunks


def fixed_windows(text: str, size: int, overlap: int = 0) -> list[Span]:
    """Windows of ``size`` tokens (4 characters each), ``overlap`` tokens shared with the
    previous window; a window's end moves back to the last whitespace inside it, if any."""
    width, shared = size * CHARS_PER_TOKEN, overlap * CHARS_PER_TOKEN
    spans: list[Span] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + width)
        if end < len(text):
            space = max(text.rfind(c, start + 1, end) for c in (" ", "\n", "\t"))
            if space > start + width // 2:
                end = space + 1
        spans.append((start, end))
        if end >= len(text):
            break
        start = max(start + 1, end - shared)
    return spans


def _int(settings: dict[str, Any], name: str, default: int, least: int = 0) -> int:
    value = settings.pop(name, default)
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise InputError(f"setting {name}={value!r} is not an integer") from None
    if number < least:
        raise InputError(f"setting {name}={number} must be at least {least}")
    return number


def _float(settings: dict[str, Any], name: str) -> float | None:
    value = settings.pop(name, None)
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"setting {name}={value!r} is not a number") from None


def _no_more(name: str, settings: Mapping[str, Any], known: str) -> None:
    if settings:
        raise InputError(
            f"chunker {name!r} has no setting {next(iter(settings))!r}; its settings: {known}"
        )


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name,key=value,...`` into the name and its settings (values as strings)."""
    name, *pairs = [part.strip() for part in spec.split(",")]
    settings: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"chunker spec {spec!r}: {pair!r} is not key=value")
        settings[key.strip()] = value.strip()
    if not name:
        raise InputError(f"chunker spec {spec!r} has no name; e.g. fixed,size=256")
    return name, settings


def _require(module: str, name: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise InputError(
            f"chunker {name!r} needs the package {module!r}, which is not installed; "
            "install it (pip install -e '.[bench]') or choose another chunker"
        )


def _level4(name: str, settings: dict[str, Any], embedder: Embedder) -> Chunker:
    solon = name == "level4-solon"
    threshold = _float(settings, "threshold")
    if solon and threshold is None:
        threshold = 0.5
    options: dict[str, Any] = {"similarity_threshold": threshold}
    window = settings.pop("window", None)
    if window is not None:
        options["similarity_window"] = _int({"window": window}, "window", 0, 1)
    if "max_tokens" in settings:
        options["max_chunk_token_size"] = _int(settings, "max_tokens", 0, 1)
    for key, option in (
        ("min_sentences", "min_sentences_per_chunk"),
        ("min_tokens", "min_chunk_tokens"),
    ):
        if key in settings:
            options[option] = _int(settings, key, 0)
    cutoff = _float(settings, "cutoff")
    if cutoff is not None:
        options["depth_cutoff"] = cutoff
    rule = settings.pop("rule", None)
    if rule is not None:
        if rule not in ("adaptive", "coherence"):
            raise InputError(
                f"chunker {name!r}: rule={rule!r}; expected rule=adaptive (the default) or "
                "rule=coherence"
            )
        options["boundary_rule"] = rule
    _no_more(
        name, settings, "threshold, window, max_tokens, min_sentences, min_tokens, cutoff, rule"
    )
    splitter = SemanticSplitter(embedder, **options)

    def split(document: Document) -> list[EvalChunk]:
        return [
            EvalChunk(document.id, ((c.start, c.end),), c.text)
            for c in splitter.split(document.text, document_id=document.id)
            if c.text.strip()
        ]

    shown = {
        "mode": splitter.mode,
        "threshold": splitter.similarity_threshold,
        "window": splitter.similarity_window,
        "max_tokens": splitter.max_chunk_token_size,
        "min_sentences": splitter.min_sentences_per_chunk,
        "min_tokens": splitter.min_chunk_tokens,
    }
    if splitter.mode == "adaptive":
        shown["cutoff"] = splitter.depth_cutoff
    if splitter.mode == "coherence":
        shown["ratio"] = splitter.coherence_ratio
    return Chunker(name, "ours", shown, split, embeds=True)


def _level5(name: str, settings: dict[str, Any]) -> Chunker:
    path = settings.pop("replies", None)
    _no_more(name, settings, "replies (a recorded Level 5 output file)")
    if not path:
        raise InputError(
            "chunker 'level5' needs replies=FILE: recorded Level 5 output with provenance "
            "spans; it never runs on invented replies"
        )
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        model, replies, records = str(data["model"]), str(data["replies"]), list(data["chunks"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InputError(
            f"cannot read recorded Level 5 output {path}: {error}; expected JSON with "
            "'model', 'replies' and 'chunks'"
        ) from None
    if replies not in ("recorded", "reference"):
        raise InputError(f"{path}: 'replies' is {replies!r}; expected 'recorded' or 'reference'")
    by_document: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_document.setdefault(str(record.get("document_id")), []).append(record)

    def split(document: Document) -> list[EvalChunk]:
        if document.id not in by_document:
            raise InputError(
                f"the recorded Level 5 output {path} has no chunk of {document.id!r}; "
                "record it for every document of the corpus"
            )
        chunks = []
        for record in by_document[document.id]:
            spans = _spans_to_chunks(document, record.get("spans") or [], f"{path}")
            text = record.get("text")
            if not spans or not isinstance(text, str) or not text.strip():
                raise InputError(f"{path}: a chunk of {document.id!r} lacks 'text' or 'spans'")
            chunks.append(EvalChunk(document.id, tuple(s for c in spans for s in c.spans), text))
        return chunks

    output = "recorded" if replies == "recorded" and model != "reference" else "reference"
    return Chunker(name, "ours", {"model": model, "replies": path}, split, model_output=output)


def _callable(spec: str, settings: dict[str, Any]) -> Chunker:
    module_name, _, attribute = spec.partition(":")
    try:
        function = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, SystemExit) as error:
        raise InputError(
            f"cannot load the chunker {spec!r}: {error}; give module:function, importable "
            "from the current folder or the Python path"
        ) from None
    if not callable(function):
        raise InputError(f"{spec!r} is not callable; give a function text -> [(start, end)]")
    _no_more(spec, settings, "none (settings go in the function)")
    return from_callable(spec, function)


def from_callable(name: str, function: Callable[[str], Any], **settings: Any) -> Chunker:
    """A chunker from any callable ``text -> list of (start, end)`` character spans. An
    exception the callable raises (or a result that is not a list of spans) is InputError
    naming the chunker, the document and the contract: the user's function failed, not
    this package."""

    def split(document: Document) -> list[EvalChunk]:
        try:
            spans = list(function(document.text))
        except (Exception, SystemExit) as error:  # the user's code: any failure is theirs
            failed = (
                f"it called sys.exit({error.code!r})"
                if isinstance(error, SystemExit)
                else f"{type(error).__name__}: {quote(str(error), limit=200)}"
            )
            raise InputError(
                f"the chunker {name!r} failed on {document.id!r}: {failed}; it must be a "
                "function text -> [(start, end), ...] of character offsets"
            ) from None
        return _spans_to_chunks(document, spans, name)

    return Chunker(name, "callable", settings, split)


def _library(name: str, settings: dict[str, Any]) -> Chunker:
    """A fixed-size window or a library splitter at ``size`` tokens (``overlap`` below it);
    a library that is not installed raises ConfigurationError naming its extra."""
    size = _int(settings, "size", 256, 1)
    overlap = _int(settings, "overlap", 0)
    _no_more(name, settings, "size, overlap")
    if overlap >= size:
        raise InputError(f"chunker {name!r}: overlap {overlap} must be below size {size}")
    if name == "fixed":
        return Chunker(
            name,
            "baseline",
            {"size": size, "overlap": overlap},
            lambda d: _spans_to_chunks(d, fixed_windows(d.text, size, overlap), name),
        )
    if name == "recursive":
        return _semchunk(name, size, overlap)
    if name == "langchain-recursive":
        return _langchain(name, size, overlap)
    return _chonkie(name, size, overlap)


def _semchunk(name: str, size: int, overlap: int) -> Chunker:
    """semchunk's recursive splitter, counting characters // 4 as tokens."""
    _require("semchunk", name)
    from semchunk.semchunk import chunk as semchunk_split

    def counter(text: str) -> int:
        return len(text) // CHARS_PER_TOKEN

    def recursive(document: Document) -> list[EvalChunk]:
        _, offsets = semchunk_split(
            document.text, size, counter, offsets=True, overlap=overlap or None
        )
        return _spans_to_chunks(document, offsets, name)

    shown = {"size": size, "overlap": overlap}
    return Chunker(name, "library", shown, recursive, library="semchunk")


def _langchain(name: str, size: int, overlap: int) -> Chunker:
    """LangChain's RecursiveCharacterTextSplitter at ``size`` * 4 characters."""
    _require("langchain_text_splitters", name)
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size * CHARS_PER_TOKEN,
        chunk_overlap=overlap * CHARS_PER_TOKEN,
        add_start_index=True,
    )

    def langchain(document: Document) -> list[EvalChunk]:
        pieces = splitter.create_documents([document.text])
        spans = [
            (p.metadata["start_index"], p.metadata["start_index"] + len(p.page_content))
            for p in pieces
        ]
        return _spans_to_chunks(document, spans, name)

    shown = {"size": size, "overlap": overlap}
    return Chunker(name, "library", shown, langchain, library="langchain-text-splitters")


def _chonkie(name: str, size: int, overlap: int) -> Chunker:
    """One of chonkie's recursive, token and sentence chunkers, on characters."""
    _require("chonkie", name)
    import chonkie

    classes: dict[str, Callable[[], Any]] = {
        "chonkie-recursive": lambda: chonkie.RecursiveChunker(
            tokenizer="character", chunk_size=size * CHARS_PER_TOKEN
        ),
        "chonkie-token": lambda: chonkie.TokenChunker(
            tokenizer="character",
            chunk_size=size * CHARS_PER_TOKEN,
            chunk_overlap=overlap * CHARS_PER_TOKEN,
        ),
        "chonkie-sentence": lambda: chonkie.SentenceChunker(
            tokenizer="character",
            chunk_size=size * CHARS_PER_TOKEN,
            chunk_overlap=overlap * CHARS_PER_TOKEN,
        ),
    }
    made = classes[name]()

    def chonkie_split(document: Document) -> list[EvalChunk]:
        spans = [(c.start_index, c.end_index) for c in made.chunk(document.text)]
        return _spans_to_chunks(document, spans, name)

    shown = {"size": size, "overlap": overlap}
    return Chunker(name, "library", shown, chonkie_split, library="chonkie")


BUILT_IN = (
    "level4",
    "level4-solon",
    "level5",
    "fixed",
    "recursive",
    "langchain-recursive",
    "chonkie-recursive",
    "chonkie-token",
    "chonkie-sentence",
)
INSTALLED_MODULES = {
    "recursive": "semchunk",
    "langchain-recursive": "langchain_text_splitters",
    "chonkie-recursive": "chonkie",
    "chonkie-token": "chonkie",
    "chonkie-sentence": "chonkie",
}


def installed_splitters() -> list[str]:
    """The library splitters whose package is installed (built-in names)."""
    return [n for n, m in INSTALLED_MODULES.items() if importlib.util.find_spec(m) is not None]


def build_chunker(spec: str, embedder: Embedder, *, label: str | None = None) -> Chunker:
    """Build the chunker a spec names (see the module docstring); raise InputError when the
    name, a setting or a needed package is wrong or missing."""
    name, settings = parse_spec(spec)
    chunker: Chunker
    if ":" in name:
        chunker = _callable(name, settings)
    elif name in ("level4", "level4-solon"):
        chunker = _level4(name, settings, embedder)
    elif name == "level5":
        chunker = _level5(name, settings)
    elif name in BUILT_IN:
        chunker = _library(name, settings)
    else:
        raise InputError(
            f"no chunker named {name!r}; choose from {', '.join(BUILT_IN)}, or give module:function"
        )
    return Chunker(
        label or spec,
        chunker.kind,
        chunker.settings,
        chunker.split,
        chunker.model_output,
        chunker.embeds,
        chunker.library,
    )
