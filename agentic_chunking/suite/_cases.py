"""The case files of the suite: schema, loading, and what a case derives from its inputs.

Schema: cases/README.md. A file that does not fit raises CaseError naming the file and
the field (``cases/TC-007.yaml: inputs.1.chunk_id: Field required``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .._errors import CaseError
from .._models import AgenticChunkInput
from .._text import split_sentences
from ..checks import WARNING, Severity, rule_ids
from ..judge import SOURCE_JOINER, source_text
from ..pipeline import (
    DEFAULT_EXTRACTION_MAX_TOKENS,
    DEFAULT_GROUPING_MAX_TOKENS,
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MAX_REPAIR_ATTEMPTS,
    DEFAULT_MAX_TOKENS_PER_BATCH,
    PipelineOptions,
)

Category = Literal["extraction", "grouping", "edge", "integration"]


def _registered_rule(name: str) -> str:
    """``name`` when it is a rule of the registry (``agentic_chunking.checks.rule_ids()``,
    read at each validation), else the error pydantic gives a value outside a Literal."""
    known = rule_ids()
    if name not in known:
        quoted = [repr(rule) for rule in known]
        expected = " or ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected}
        )
    return name


RuleId = Annotated[str, AfterValidator(_registered_rule)]
"""A substance rule's id, one of the registry's."""

CASE_COUNT = 32


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LabelledSentence(_Strict):
    text: str = Field(min_length=1)
    domain: str = Field(min_length=1)


class CaseInput(_Strict):
    """One input chunk of a case; ``domain`` or ``sentences`` label its domains."""

    chunk_id: str = Field(min_length=1)
    text: str
    domain: str | None = None
    sentences: tuple[LabelledSentence, ...] | None = None

    @model_validator(mode="after")
    def _labels_fit_the_text(self) -> CaseInput:
        if self.domain is not None and self.sentences is not None:
            raise ValueError("give either `domain` or `sentences`, not both")
        for position, sentence in enumerate(self.sentences or ()):
            if sentence.text.strip() not in self.text:
                raise ValueError(
                    f"sentences.{position}.text is not a substring of the chunk text: "
                    f"{sentence.text[:60]!r}"
                )
        return self

    def labelled_sentences(self) -> list[tuple[str, str]]:
        """(sentence, domain) pairs; a chunk-level ``domain`` labels each of its sentences."""
        if self.sentences is not None:
            return [(s.text.strip(), s.domain) for s in self.sentences]
        if self.domain is not None:
            return [(s, self.domain) for s in split_sentences(self.text)]
        return []

    @property
    def domains(self) -> tuple[str, ...]:
        """The distinct domains labelled in this chunk, in order of appearance."""
        return tuple(dict.fromkeys(d for _, d in self.labelled_sentences()))


class SeedFigures(_Strict):
    chunks: int | None = None
    propositions: int | None = None
    tokens: int | None = None
    note: str = ""


class Expectations(_Strict):
    """Soft ranges (reported, never failed), the seed's figures, and an expected error."""

    chunks: tuple[int, int] | None = None
    propositions: tuple[int, int] | None = None
    tokens: tuple[int, int] | None = None
    themes: tuple[str, ...] = ()
    seed: SeedFigures | None = None
    error: tuple[str, ...] | None = None

    @model_validator(mode="after")
    def _ranges_are_ordered(self) -> Expectations:
        for name in ("chunks", "propositions", "tokens"):
            bounds = getattr(self, name)
            if bounds is not None and not 0 <= bounds[0] <= bounds[1]:
                raise ValueError(
                    f"{name} range {list(bounds)} is not [min, max] with 0 <= min <= max"
                )
        return self


class PipelineSettings(_Strict):
    """Pipeline settings a case fixes for every model (e.g. a small ``extraction_max_tokens``
    so that any model's reply is cut, as TC-030 needs); unset ones keep the defaults. The
    case file's schema only: ``Case.pipeline_options`` turns it into the PipelineOptions
    the run takes."""

    extraction_max_tokens: int = Field(default=DEFAULT_EXTRACTION_MAX_TOKENS, ge=1)
    grouping_max_tokens: int = Field(default=DEFAULT_GROUPING_MAX_TOKENS, ge=1)
    max_repair_attempts: int = Field(default=DEFAULT_MAX_REPAIR_ATTEMPTS, ge=0)


class Case(_Strict):
    """One case of the suite, as its YAML file states it."""

    id: str = Field(pattern=r"^TC-\d{3}$")
    name: str = Field(min_length=1)
    category: Category
    description: str = Field(min_length=1)
    document_id: str = Field(min_length=1)
    max_tokens_per_batch: int = Field(default=DEFAULT_MAX_TOKENS_PER_BATCH, ge=1)
    inputs: tuple[CaseInput, ...] = Field(min_length=1)
    checks: tuple[RuleId, ...] | None = None
    coverage: Severity = WARNING
    expect: Expectations
    level4: dict[str, Any] | None = None
    pipeline: PipelineSettings = Field(default_factory=PipelineSettings)

    @model_validator(mode="after")
    def _chunk_ids_are_unique(self) -> Case:
        ids = [c.chunk_id for c in self.inputs]
        duplicated = sorted({i for i in ids if ids.count(i) > 1})
        if duplicated:
            raise ValueError(f"chunk ids repeated in inputs: {duplicated}")
        return self

    def pipeline_options(
        self, model: str, *, max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    ) -> PipelineOptions:
        """The PipelineOptions the case runs with (the one place its settings become
        them): its batch limit, its ``pipeline`` settings (the same for every model), and
        as output chunk limit its batch limit, as when the cases were recorded (the
        library's default limit was the batch limit then; it is now an embedder's window,
        DEFAULT_MAX_CHUNK_TOKENS), so that a case's expected chunks do not change with
        that default."""
        return PipelineOptions(
            model=model,
            max_tokens_per_batch=self.max_tokens_per_batch,
            max_chunk_tokens=self.max_tokens_per_batch,
            extraction_max_tokens=self.pipeline.extraction_max_tokens,
            grouping_max_tokens=self.pipeline.grouping_max_tokens,
            max_repair_attempts=self.pipeline.max_repair_attempts,
            max_concurrency=max_concurrency,
        )

    @property
    def applicable_rules(self) -> tuple[str, ...]:
        """The substance rules asserted on this case (every rule of the registry unless
        the file says)."""
        return rule_ids() if self.checks is None else self.checks

    @property
    def source_text(self) -> str:
        """All input text, chunk after chunk: what the propositions must be grounded in."""
        return source_text(self.agentic_inputs())

    def agentic_inputs(self) -> list[AgenticChunkInput]:
        """The inputs, each with offsets into ``source_text`` (the case's document: its
        chunks with text, joined by a blank line), so output spans point into it."""
        inputs = []
        position = 0
        for c in self.inputs:
            if c.text.strip():
                inputs.append(AgenticChunkInput(chunk_id=c.chunk_id, text=c.text, start=position))
                position += len(c.text) + len(SOURCE_JOINER)
            else:
                inputs.append(AgenticChunkInput(chunk_id=c.chunk_id, text=c.text))
        return inputs

    def labelled_sentences(self) -> list[tuple[str, str]]:
        """Every labelled (sentence, domain) pair of the case, in input order."""
        return [pair for c in self.inputs for pair in c.labelled_sentences()]

    @property
    def has_domain_labels(self) -> bool:
        return len({d for _, d in self.labelled_sentences()}) >= 2


_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when the wheel has it


def safe_load_yaml(text: str) -> Any:
    """Parse YAML safely (no Python objects), with libyaml's fast reader when available."""
    return yaml.load(text, Loader=_YAML_LOADER)


def load_case(path: Path) -> Case:
    """Read and validate one case file; raise CaseError naming the file and the field."""
    path = Path(path)
    try:
        data = safe_load_yaml(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise CaseError(f"{path}: cannot be read ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise CaseError(
            f"{path}: is not UTF-8 text (byte {error.start}); save it as UTF-8"
        ) from None
    except yaml.YAMLError as error:
        raise CaseError(f"{path}: is not valid YAML ({error})") from None
    if not isinstance(data, dict):
        raise CaseError(f"{path}: expected a mapping of case fields, found {type(data).__name__}")
    try:
        case = Case.model_validate(data)
    except ValidationError as error:
        raise CaseError(f"{path}: {_describe(error)}") from None
    if case.id != path.stem:
        raise CaseError(f"{path}: id is {case.id!r} but the file is named {path.name}; rename one")
    return case


def case_files(cases_dir: Path) -> list[Path]:
    """The case files ``TC-*.yaml`` of a directory, in id order."""
    return sorted(Path(cases_dir).glob("TC-*.yaml"))


def load_cases(cases_dir: Path) -> list[Case]:
    """Every case of a directory, validated, in id order."""
    return [load_case(path) for path in case_files(cases_dir)]


def _describe(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "(top level)"
        problems.append(f"{where}: {item['msg']}")
    return "; ".join(problems)


def rules_of(cases: Sequence[Case]) -> set[str]:
    """Every rule any of ``cases`` asserts."""
    return {rule for case in cases for rule in case.applicable_rules}
