"""Rebuild the ``reference`` cassettes from the hand-written replies.

The replies in ``cases/reference_replies/`` are served by a FakeMessagesServer on
127.0.0.1 under the model id ``reference``, and each case is run through the real
pipeline while vcrpy records, with exactly the options of the suite (``vcr_config``). The
cassettes therefore hold the real prompts and the exact wire format of the Messages API;
run this whenever a prompt, a case input or a reply file changes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._client import make_client
from ..testing import FakeMessagesServer
from ._cases import load_cases
from ._cassettes import cassette_path, vcr_config
from ._persister import atomic_persister
from ._replies import REFERENCE_MODEL, ReferenceServer, load_replies
from ._runner import run_pipeline

REFERENCE_URI = "http://reference-replies.invalid/v1/messages"
"""Where the reference cassettes say their requests went: a reserved, unreachable host
that names what answered (the fake server's random port would churn every rebuild)."""


def _at_reference_host(request: Any) -> Any:
    request.uri = REFERENCE_URI
    return request


def rebuild_reference_cassettes(
    *,
    cases_dir: Path,
    replies_dir: Path,
    cassette_root: Path,
    only: set[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Record ``<cassette_root>/reference/TC-0NN.yaml`` for each case (or those in ``only``).

    Extraction runs one batch at a time so the interactions are stored in batch order.
    Returns the paths written. Raises CaseError for a case or reply file that is invalid.
    """
    import vcr

    cases = [c for c in load_cases(cases_dir) if only is None or c.id in only]
    replies = {case.id: load_replies(case, replies_dir) for case in cases}
    options = vcr_config()
    scrub = options["before_record_request"]
    options["before_record_request"] = lambda request: _at_reference_host(scrub(request))
    recorder = vcr.VCR(record_mode="all", **options)
    recorder.register_persister(atomic_persister())
    reference = ReferenceServer()
    written: list[Path] = []
    with FakeMessagesServer(handler=reference) as server:
        client = make_client(
            api_key="reference-replies-no-key", base_url=server.base_url, max_retries=0
        )
        with client:
            for case in cases:
                reference.use(case, replies[case.id])
                path = cassette_path(cassette_root, REFERENCE_MODEL, case.id)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.unlink(missing_ok=True)
                with recorder.use_cassette(str(path)):
                    response = run_pipeline(
                        case, client=client, model=REFERENCE_MODEL, max_concurrency=1
                    )
                written.append(path)
                if progress is not None:
                    state = "ok" if response.is_success else f"fails: {response.error_detail}"
                    progress(f"{case.id}: {len(response.calls)} calls recorded, run {state}")
        if server.handler_errors:
            raise server.handler_errors[0]
    return written
