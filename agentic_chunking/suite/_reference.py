"""Rebuild the ``reference`` cassettes from the hand-written replies.

The replies in ``cases/reference_replies/`` are served by a FakeMessagesServer on
127.0.0.1 under the model id ``reference``, and each case is run through the real
pipeline while vcrpy records, with exactly the options of the suite (``vcr_config``). The
cassettes therefore hold the real prompts and the exact wire format of the Messages API,
and, after each case's pipeline calls, the reference judge's calls (its ``judge:`` section);
run this whenever a prompt, a case input or a reply file changes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import CaseError, ModelCallError
from .._loopback import fake_server_for
from .._models import AgenticResponse
from ..client import ModelClient, parse_model
from ..judge import Judgement
from ._cases import Case, load_cases
from ._cassettes import StagedPersister, cassette_path, vcr_config
from ._judging import judge_case
from ._replies import REFERENCE_MODEL, ReferenceServer, load_replies
from ._runner import run_pipeline

if TYPE_CHECKING:
    from ..client import AnyClient

REFERENCE_HOST = "http://reference-replies.invalid"
REFERENCE_URI = f"{REFERENCE_HOST}/v1/messages"
"""Where the reference cassettes say their requests went: a reserved, unreachable host
that names what answered (the fake server's random port would churn every rebuild); the
path is the API's own (``/v1/chat/completions`` for ``openai:reference``)."""


def _at_reference_host(request: Any) -> Any:
    request.uri = REFERENCE_HOST + request.path
    return request


def _judged_note(judgement: Judgement | None) -> str:
    if judgement is None:
        return ""
    if judgement.error is not None:
        return f"; judge failed: {judgement.error}"
    return f"; judged in {len(judgement.calls)} call(s)"


def _reference_judgement(
    case: Case, response: AgenticResponse, client: AnyClient, replies_dir: Path, model: str
) -> Judgement | None:
    """The reference judge on the case; CaseError naming the reply file when its judge
    section does not answer (the propositions changed since it was written)."""
    try:
        return judge_case(case, response, client=client, judge_model=model)
    except ModelCallError as error:
        raise CaseError(
            f"{replies_dir / (case.id + '.yaml')}: the judge section does not answer the "
            f"reference run ({error}). Draft the missing verdicts with `python "
            f"scripts/draft_judge_replies.py --case {case.id}`, review them, then rebuild."
        ) from None


def _cases_to_rebuild(cases_dir: Path, only: set[str] | None) -> list[Case]:
    """The cases of ``cases_dir`` (those in ``only`` when given), in case order; CaseError,
    before anything is written, for an id in ``only`` that names no case."""
    every = load_cases(cases_dir)
    unknown = sorted((only or set()) - {c.id for c in every})
    if unknown:
        raise CaseError(
            f"no case {', '.join(unknown)} in {cases_dir} (it has {every[0].id} to "
            f"{every[-1].id}); nothing was written. Give --case with an existing case id"
            if every
            else f"no case {', '.join(unknown)}: {cases_dir} holds no case; nothing was written"
        )
    return [c for c in every if only is None or c.id in only]


def _reference_recorder() -> tuple[Any, StagedPersister]:
    """A vcrpy recorder with the suite's options (``vcr_config``) that records every request
    as sent to ``REFERENCE_HOST``, and its persister: a case's cassette is replaced only
    whole, once ``approve``d."""
    import vcr

    options = vcr_config()
    scrub = options["before_record_request"]
    options["before_record_request"] = lambda request: _at_reference_host(scrub(request))
    recorder = vcr.VCR(record_mode="all", **options)
    persister = StagedPersister(recording=True)
    recorder.register_persister(persister)
    return recorder, persister


def rebuild_reference_cassettes(
    *,
    cases_dir: Path,
    replies_dir: Path,
    cassette_root: Path,
    only: set[str] | None = None,
    progress: Callable[[str], None] | None = None,
    model: str = REFERENCE_MODEL,
) -> list[Path]:
    """Record ``<cassette_root>/reference/TC-0NN.yaml`` for each case (or those in ``only``).

    ``model`` is ``reference`` on a provider (``openai:reference`` records the same replies
    in the Chat Completions wire format, in ``openai--reference/``, through a
    FakeChatCompletionsServer). Extraction runs one batch at a time so the interactions
    are stored in batch order.
    Returns the paths written. Raises CaseError for a case or reply file that is invalid,
    a judge section included, and, before anything is written, for an id in ``only`` that
    names no case.
    """
    cases = _cases_to_rebuild(cases_dir, only)
    replies = {case.id: load_replies(case, replies_dir) for case in cases}
    recorder, persister = _reference_recorder()
    reference = ReferenceServer()
    written: list[Path] = []
    provider = parse_model(model).provider
    if parse_model(model).name != REFERENCE_MODEL:
        raise CaseError(f"the reference replies are served as 'reference', not {model!r}")
    with fake_server_for(provider)(handler=reference) as server:
        client = ModelClient(
            api_keys={provider: "reference-replies-no-key"},
            base_urls={provider: server.base_url},
            max_retries=0,
        )
        with client:
            for case in cases:
                reference.use(case, replies[case.id])
                path = cassette_path(cassette_root, model, case.id)
                with recorder.use_cassette(str(path)):
                    response = run_pipeline(case, client=client, model=model, max_concurrency=1)
                    judgement = _reference_judgement(case, response, client, replies_dir, model)
                    persister.approve(path)
                written.append(path)
                if progress is not None:
                    state = "ok" if response.is_success else f"fails: {response.error_detail}"
                    judged = _judged_note(judgement)
                    calls = len(response.calls)
                    progress(f"{case.id}: {calls} calls recorded, run {state}{judged}")
        if server.handler_errors:
            raise server.handler_errors[0]
    return written
