"""What the [tagger] extra costs at run time: loading the pipeline once, and tagging one
proposition, measured on the claims of real_llm_fables_dev (the checks call the tagger
only for a proposition the lexical rules suspect of having no finite verb).

    python benchmarks/bench_tagger.py [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from agentic_chunking.checks import _tagger

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1000)
    args = parser.parse_args(argv)
    raw = os.environ.get("AGENTIC_CHUNKING_VALIDATION_DIR", "../shared/validation")
    folder = Path(raw) if Path(raw).is_absolute() else (ROOT / raw).resolve()
    path = folder / "real_llm_fables_dev.jsonl"
    if not path.is_file():
        sys.exit(f"{path} not found (set AGENTIC_CHUNKING_VALIDATION_DIR)")
    started = time.perf_counter()
    if not _tagger.available():
        sys.exit("the [tagger] extra is not installed: pip install -e '.[tagger]'")
    loaded = time.perf_counter() - started
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    claims = [str(p["proposition"]) for row in rows for p in row["propositions"]][: args.limit]
    started = time.perf_counter()
    found = sum(bool(_tagger.finite_verb(c)) for c in claims)
    each = (time.perf_counter() - started) / len(claims)
    print(
        f"load {loaded:.2f} s; {each * 1000:.2f} ms a proposition over {len(claims)} claims"
        f" ({found} with a finite verb)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
