"""Any chunker under the suite: ``pytest --chunker module:callable`` (or ``chunker = ...``
under ``[tool.agentic-chunking]`` in the project's pyproject.toml).

A chunker is a callable ``chunker(inputs, document_id)`` taking the case's input chunks
(``list[AgenticChunkInput]``) and returning chunks of propositions, in any of these shapes
(``as_response``):

- an ``AgenticResponse`` (ours, as ``chunk_text_agentic`` returns it);
- a list of ``{"category": str, "propositions": [str, ...]}`` (optionally
  ``"source_chunk_ids"``);
- a list of LangChain ``Document``s (anything with ``page_content`` and ``metadata``), one
  proposition each, grouped by ``metadata["category"]`` in order of first appearance.

It may say what it is through attributes: ``chunker_name`` (default: the callable's name
in the spec), ``model`` (the model its calls use, when ``--model`` is not given) and
``groups`` (False for a chunker that does no grouping: the cases that assert grouping are
then not applicable to it).

Guarantees:
- its results and cassettes are named ``<chunker-name>--<model folder>`` (``run_id``):
  cassettes in ``cassettes/<chunker-name>--<model>/``, results in
  ``reports/results-<chunker-name>--<model>.json``, a run the report compares side by side
  with any other, our pipeline's included. Its model calls (through any HTTP client vcrpy
  patches) are recorded and replayed in the case's cassette, before the judge's calls;
- a case the chunker cannot do (``not_applicable``: one whose expected outcome is our
  pipeline's own error, or one that asserts grouping for a chunker that does none: a
  grouping case, or one whose input chunk mixes labelled domains) is
  ``not_applicable`` with the reason, never an error of the checks;
- a chunker that raises, or returns another shape, makes its case an ``error`` with one
  line (``ChunkerError``), never a traceback; a request its cassette cannot answer is the
  suite's stale-cassette message.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import CaseError, ConfigurationError
from .._models import AgenticChunk, AgenticChunkInput, AgenticResponse
from ..client import model_folder
from ..report import CaseResult, InputRecord
from ._cases import Case
from ._cassettes import cassette_error
from ._judging import judge_case
from ._runner import judge

if TYPE_CHECKING:
    from ..client import AnyClient

PYPROJECT_TABLE = "agentic-chunking"
"""``[tool.agentic-chunking]`` of pyproject.toml: ``chunker = "module:callable"``."""
NOT_APPLICABLE = "not_applicable"
NO_MODEL = "no-model"
"""The model part of the run id of a chunker that names none (it calls no model)."""
_SPEC = re.compile(r"(?P<module>[A-Za-z_][\w.]*):(?P<attr>[A-Za-z_][\w.]*)")


class ChunkerError(CaseError):
    """A chunker failed on a case, or returned something that is not chunks: one line."""


@dataclass(frozen=True, slots=True)
class Chunker:
    """A chunker the suite runs instead of our pipeline."""

    spec: str
    name: str
    function: Callable[[list[AgenticChunkInput], str], object]
    groups: bool = True
    model: str | None = None


def configured_chunker(option: str | None, root: Path) -> str | None:
    """The chunker spec of a run: ``--chunker``, else ``chunker`` under
    ``[tool.agentic-chunking]`` of ``root/pyproject.toml``, else None (our pipeline)."""
    if option is not None and option.strip():
        return option.strip()
    path = Path(root) / "pyproject.toml"
    if not path.is_file():
        return None
    try:
        table = tomllib.loads(path.read_text("utf-8")).get("tool", {}).get(PYPROJECT_TABLE, {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigurationError(
            f"{path} cannot be read ({error}); fix it or pass --chunker"
        ) from None
    spec = table.get("chunker") if isinstance(table, dict) else None
    if spec is not None and not isinstance(spec, str):
        raise ConfigurationError(
            f'{path}: [tool.{PYPROJECT_TABLE}] chunker must be a string "module:callable"'
        )
    return spec.strip() if spec else None


def load_chunker(spec: str, root: Path) -> Chunker:
    """Import the callable ``module:attr`` (``root`` first on the import path); a
    ConfigurationError in one line when it cannot be."""
    found = _SPEC.fullmatch(spec)
    if found is None:
        raise ConfigurationError(
            f"--chunker {spec!r} is not module:callable (e.g. my_team.chunking:chunk)"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        target: Any = importlib.import_module(found["module"])
    except (Exception, SystemExit) as error:  # the user's module: any failure is one line
        raise ConfigurationError(
            f"--chunker {spec!r}: the module {found['module']!r} cannot be imported "
            f"({_what_failed(error)})"
        ) from None
    for part in found["attr"].split("."):
        target = getattr(target, part, None)
    if not callable(target):
        raise ConfigurationError(
            f"--chunker {spec!r}: {found['module']} has no callable {found['attr']!r}"
        )
    name = str(getattr(target, "chunker_name", None) or found["attr"].split(".")[-1])
    model = getattr(target, "model", None)
    return Chunker(
        spec=spec,
        name=re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._-") or "chunker",
        function=target,
        groups=bool(getattr(target, "groups", True)),
        model=str(model) if isinstance(model, str) and model.strip() else None,
    )


def replay_keys() -> Callable[[], None]:
    """Set each provider's key variable that is not set to the replay's dummy key; return
    the function that unsets them again."""
    from ..client import API_KEY_ENV_VAR, OPENAI_API_KEY_ENV_VAR, REPLAY_API_KEY

    added = [v for v in (API_KEY_ENV_VAR, OPENAI_API_KEY_ENV_VAR) if not os.environ.get(v)]
    for variable in added:
        os.environ[variable] = REPLAY_API_KEY

    def restore() -> None:
        for variable in added:
            if os.environ.get(variable) == REPLAY_API_KEY:
                del os.environ[variable]

    return restore


def run_id(chunker: Chunker, model: str | None) -> str:
    """``<chunker-name>--<model folder>``: the run's name in cassettes/ and reports/."""
    chosen = model or chunker.model
    return f"{chunker.name}--{model_folder(chosen) if chosen else NO_MODEL}"


def not_applicable(case: Case, chunker: Chunker) -> str | None:
    """Why ``chunker`` cannot do ``case``, or None when it can."""
    if case.expect.error is not None:
        return (
            f"the case expects our pipeline's own failure ({', '.join(case.expect.error)}), "
            f"which the chunker {chunker.name!r} has no part in"
        )
    if chunker.groups:
        return None
    if case.category == "grouping":
        return (
            f"the case asserts grouping, and the chunker {chunker.name!r} does no grouping "
            "(groups = False)"
        )
    mixed = next((c for c in case.inputs if len(c.domains) > 1), None)
    if mixed is not None:  # the mixed_domains check runs on every labelled case
        return (
            f"the case asserts grouping (input chunk {mixed.chunk_id} mixes "
            f"{', '.join(mixed.domains)}, which only a grouping separates), and the chunker "
            f"{chunker.name!r} does no grouping (groups = False)"
        )
    return None


def as_response(result: object, document_id: str, *, name: str = "chunker") -> AgenticResponse:
    """``result`` (one of the shapes of the module) as an AgenticResponse; ChunkerError for
    anything else."""
    if isinstance(result, AgenticResponse):
        return result
    if not isinstance(result, Sequence) or isinstance(result, (str, bytes)):
        raise ChunkerError(
            f"the chunker {name!r} returned a {type(result).__name__}, not chunks: return an "
            "AgenticResponse, a list of {category, propositions}, or LangChain Documents"
        )
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for number, item in enumerate(result, start=1):
        category, propositions, sources = _item(item, number, name)
        texts, ids = groups.setdefault(category, ([], []))
        texts += propositions
        ids += [s for s in sources if s not in ids]
    chunks = tuple(
        AgenticChunk.from_propositions(
            document_id=document_id,
            seq=seq,
            thematic_category=category,
            propositions=texts,
            source_chunk_ids=ids,
        )
        for seq, (category, (texts, ids)) in enumerate(groups.items(), start=1)
        if texts
    )
    return AgenticResponse(chunks=chunks)


def _item(item: object, number: int, name: str) -> tuple[str, list[str], list[str]]:
    """(category, propositions, source chunk ids) of one returned item."""
    if isinstance(item, Mapping):
        category, propositions = item.get("category"), item.get("propositions")
        sources = item.get("source_chunk_ids") or []
        if (
            isinstance(category, str)
            and isinstance(propositions, Sequence)
            and not isinstance(propositions, str)
            and all(isinstance(p, str) for p in propositions)
        ):
            return category, [p for p in propositions if p.strip()], [str(s) for s in sources]
    content, metadata = getattr(item, "page_content", None), getattr(item, "metadata", None)
    if isinstance(content, str) and isinstance(metadata, Mapping):
        category = metadata.get("category")
        if isinstance(category, str):
            sources = metadata.get("source_chunk_ids") or []
            return category, [content] if content.strip() else [], [str(s) for s in sources]
        raise ChunkerError(
            f"the chunker {name!r} returned a Document (item {number}) with no "
            "metadata['category']: put its chunk's category there"
        )
    raise ChunkerError(
        f"the chunker {name!r} returned item {number} as a {type(item).__name__}, not a "
        "{category, propositions} mapping or a Document"
    )


def run_chunker_case(
    case: Case,
    chunker: Chunker,
    *,
    client: AnyClient,
    run_model: str,
    cassette: Path | None = None,
    judge_model: str | None = None,
) -> CaseResult:
    """``case`` through ``chunker`` (its calls recorded or replayed in the case's cassette),
    then the judge and the checks, as ``run_case`` does for our pipeline (see the module)."""
    reason = not_applicable(case, chunker)
    if reason is not None:
        return CaseResult(
            id=case.id,
            name=case.name,
            category=case.category,
            description=case.description,
            outcome=NOT_APPLICABLE,
            error=reason,
            expected_error=case.expect.error,
            inputs=tuple(InputRecord(c.chunk_id, c.text, c.domains) for c in case.inputs),
        )
    try:
        result = chunker.function(case.agentic_inputs(), case.document_id)
    except (Exception, SystemExit) as error:  # the user's code: one line, the cassette's first
        _stale(error, cassette, case.id, run_model)
        raise ChunkerError(
            f"{case.id}: the chunker {chunker.name!r} failed: {_what_failed(error)}"
        ) from None
    response = as_response(result, case.document_id, name=chunker.name)
    _check_sizes(response, case, chunker.name)
    judgement = None
    if judge_model is not None:
        try:
            judgement = judge_case(case, response, client=client, judge_model=judge_model)
        except Exception as error:
            _stale(error, cassette, case.id, run_model)
            raise
    return judge(case, response, judgement)


def _stale(error: BaseException, cassette: Path | None, case_id: str, model: str) -> None:
    """Raise the suite's stale-cassette message when ``error`` is a request no cassette
    answers."""
    if cassette is None:
        return
    explained = cassette_error(error, path=cassette, case_id=case_id, model=model)
    if explained is not None:
        raise explained from None


GROWTH_LIMIT = 4
"""A returned chunk may hold at most this many times the case's input characters (and
``GROWTH_FLOOR`` whatever the input): a chunk restates its input, it does not grow it."""
GROWTH_FLOOR = 20_000


def _check_sizes(response: AgenticResponse, case: Case, name: str) -> None:
    """ChunkerError when a returned chunk is far longer than the case's whole input (a
    runaway chunker), before the checks spend minutes on it."""
    given = sum(len(c.text) for c in case.inputs)
    limit = max(GROWTH_LIMIT * given, GROWTH_FLOOR)
    for chunk in response.chunks:
        size = max([len(chunk.merged_content), *(len(p) for p in chunk.propositions)])
        if size > limit:
            raise ChunkerError(
                f"{case.id}: the chunker {name!r} returned a chunk of {size:,} characters for "
                f"an input of {given:,} (at most {limit:,}): a chunk restates its input, it "
                "does not grow it; check what the chunker returns"
            )


def _what_failed(error: BaseException) -> str:
    """``Type: first line`` of the user's error, or the sys.exit it called."""
    if isinstance(error, SystemExit):
        return f"it called sys.exit({error.code!r}), which a chunker must not"
    return f"{type(error).__name__}: {_first_line(error)}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "(no message)"


__all__ = [
    "NOT_APPLICABLE",
    "Chunker",
    "ChunkerError",
    "as_response",
    "configured_chunker",
    "load_chunker",
    "not_applicable",
    "run_chunker_case",
    "run_id",
]
