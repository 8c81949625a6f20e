"""What the [tagger] extra costs at run time: loading the pipeline once, and tagging one
proposition, measured on the claims of real_llm_fables_dev (the checks call the tagger
only for a proposition the lexical rules suspect of having no finite verb).

    python benchmarks/bench_tagger.py [--limit N] [--quick]

``--quick``: the first QUICK_LIMIT claims.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _results import add_options, cannot_run, keep

from agentic_chunking.checks import _tagger

ROOT = Path(__file__).resolve().parent.parent
QUICK_LIMIT = 50


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1000)
    add_options(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.limit = QUICK_LIMIT
    raw = os.environ.get("AGENTIC_CHUNKING_VALIDATION_DIR", "../shared/validation")
    folder = Path(raw) if Path(raw).is_absolute() else (ROOT / raw).resolve()
    path = folder / "real_llm_fables_dev.jsonl"
    if not path.is_file():
        cannot_run(f"{path} not found (set AGENTIC_CHUNKING_VALIDATION_DIR)")
    started = time.perf_counter()
    if not _tagger.available():
        cannot_run("the [tagger] extra is not installed: pip install -e '.[tagger]'")
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
    figures = {
        "model load s": round(loaded, 2),
        "ms per proposition": round(each * 1000, 2),
        "claims": len(claims),
        "claims with a finite verb": found,
    }
    keep(__file__, args, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
