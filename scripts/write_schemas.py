"""Rewrite the published JSON Schemas in ``schemas/`` from their pydantic models.

Run after changing ``agentic_chunking/_schema.py``: ``python scripts/write_schemas.py``.
tests/test_output_schema.py fails while a committed file differs from what this writes.
"""

from __future__ import annotations

from pathlib import Path

from agentic_chunking._schema import write_schemas

if __name__ == "__main__":
    for path in write_schemas(Path(__file__).resolve().parent.parent / "schemas"):
        print(f"wrote {path}")
