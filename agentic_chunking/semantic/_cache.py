"""Embeddings cached by content hash: each distinct text is embedded once per embedder.

``CachedEmbedder`` wraps any ``Embedder`` and is one itself, so in an evaluation the
Level 4 splitter's segment embeddings go through the same cache as chunks and questions,
and the semantic duplicate finder remembers the propositions it has seen. Vectors are
kept in memory (all of them, or the ``max_texts`` most recently used) and, with a
``cache_dir``, on disk: ``flush`` writes the vectors this process
computed as one new shard file (``<cache_dir>/<embedder name>/<hash>.json``, written
atomically by ``_files.write_text_atomic``); a later run reads every shard of its
embedder's folder at start. So a second run of the same evaluation embeds nothing, and a
sweep embeds each distinct chunk once. The key is the SHA-256 of the text; the folder is
the embedder's ``name`` attribute (else its class name): two embedders must not share a
name.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._errors import InputError
from .._files import write_text_atomic
from ._embedders import Embedder

_BATCH = 32
_FORMAT = "agentic-chunking-embeddings/1"


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embedder_name(embedder: Any) -> str:
    """The embedder's ``name`` attribute, else its class name."""
    return str(getattr(embedder, "name", None) or type(embedder).__name__)


class CachedEmbedder:
    """An embedder returning unit vectors (float32), each distinct text embedded once.

    Counts: ``calls`` to the wrapped embedder and ``computed`` texts it embedded (cache
    misses); ``requested`` texts asked for (hits included). Texts are sent sorted by length
    in batches of ``batch_size``. ``max_texts`` bounds the vectors kept in memory (the
    least recently used go first, never one the current call needs); None keeps all. One
    call at a time (thread-safe). A wrong-shaped answer raises InputError. ``on_embedded``,
    if set, is called after each batch with the number of texts it embedded (progress).
    """

    def __init__(
        self,
        embedder: Embedder,
        *,
        cache_dir: Path | str | None = None,
        batch_size: int = _BATCH,
        max_texts: int | None = None,
    ) -> None:
        self.embedder = embedder
        self.name = embedder_name(embedder)
        self.batch_size = batch_size
        self.max_texts = max_texts
        self.calls = 0
        self.computed = 0
        self.requested = 0
        self.on_embedded: Callable[[int], None] | None = None
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._unsaved: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._folder: Path | None = None
        if cache_dir is not None:
            self._folder = Path(cache_dir) / re.sub(r"[^A-Za-z0-9._-]+", "_", self.name)
            self._load()

    def _load(self) -> None:
        assert self._folder is not None
        if not self._folder.is_dir():
            return
        for shard in sorted(self._folder.glob("*.json")):
            try:
                data = json.loads(shard.read_text(encoding="utf-8"))
                if data.get("format") != _FORMAT:
                    continue
                width = int(data["dimensions"])
                for key, packed in data["vectors"].items():
                    vector = np.frombuffer(base64.b64decode(packed), dtype="<f4")
                    if vector.size == width:
                        self._vectors[key] = vector
            except (OSError, ValueError, KeyError, TypeError):
                continue  # a damaged shard only costs its vectors: they are embedded again

    def __call__(self, texts: list[str], /) -> np.ndarray:
        """Return one unit vector per text, in order (a zero vector stays zero)."""
        with self._lock:
            self.requested += len(texts)
            keys = [_key(t) for t in texts]
            # Sorted by length, then text: each batch pads to similar lengths, and the
            # batches (hence the vectors, to the last bit) are the same on every run.
            missing = sorted(
                {t for t, k in zip(texts, keys, strict=True) if k not in self._vectors},
                key=lambda t: (len(t), t),
            )
            for first in range(0, len(missing), self.batch_size):
                self._embed(missing[first : first + self.batch_size])
            if not texts:
                return np.zeros((0, 0), dtype=np.float32)
            rows = np.vstack([self._vectors[k] for k in keys])
            if self.max_texts is not None:
                for key in keys:
                    self._vectors.move_to_end(key)
                kept = max(self.max_texts, len(set(keys)))
                while len(self._vectors) > kept:
                    self._vectors.popitem(last=False)
            return rows

    def _embed(self, batch: list[str]) -> None:
        vectors = np.asarray(self.embedder(batch), dtype=np.float32)
        self.calls += 1
        if vectors.ndim != 2 or vectors.shape[0] != len(batch):
            raise InputError(
                f"the embedder returned an array of shape {vectors.shape} for {len(batch)} "
                "texts; expected one vector per text, in order"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        for text, vector in zip(batch, unit, strict=True):
            key = _key(text)
            self._vectors[key] = vector
            if self._folder is not None:
                self._unsaved[key] = vector
        self.computed += len(batch)
        if self.on_embedded is not None:
            self.on_embedded(len(batch))

    def flush(self) -> Path | None:
        """Write the vectors computed since the last flush as one shard; return its path
        (None without a cache folder or with nothing new). Raises InputError when the folder
        cannot be written."""
        with self._lock:
            return self._flush()

    def _flush(self) -> Path | None:
        if self._folder is None or not self._unsaved:
            return None
        keys = sorted(self._unsaved)
        width = int(self._unsaved[keys[0]].size)
        payload = {
            "format": _FORMAT,
            "embedder": self.name,
            "dimensions": width,
            "vectors": {
                k: base64.b64encode(self._unsaved[k].astype("<f4").tobytes()).decode("ascii")
                for k in keys
            },
        }
        name = hashlib.sha256("\n".join(keys).encode("ascii")).hexdigest()[:32]
        try:
            self._folder.mkdir(parents=True, exist_ok=True)
            path = write_text_atomic(self._folder / f"{name}.json", json.dumps(payload))
        except OSError as error:
            raise InputError(
                f"cannot write the embedding cache in {self._folder}: {error}; give a "
                "writable --cache-dir"
            ) from None
        self._unsaved.clear()
        return path
