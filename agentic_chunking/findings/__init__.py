"""The findings of the substance checks on chunked outputs, as records (``check``'s layer).

- ``_input``: what a chunked output must be before any rule runs (``validate_input``,
  ``validate_record``, the size limits), through the published schema's tolerant models;
- ``_output``: ``output_findings``, every check (and the judge's verdicts, when given) on
  one output, as an ``OutputFindings`` record and the findings document (schema
  ``agentic-chunking-check/1``);
- ``_corpus``: ``CorpusOutputCheck``, the same on a corpus output document by document,
  against the corpus it was made from.

Nothing here writes a file or a message line: ``agentic-chunking check`` and ``chunk
--check`` (``cli``) write the findings and word the summary. May import: the root's
shared modules, ``checks``, ``corpus``, ``report``, ``judge``; never suite, evaluate or cli.
"""

from ._corpus import CLEAR_EVERY as CLEAR_EVERY
from ._corpus import CorpusOutputCheck as CorpusOutputCheck
from ._corpus import Judge as Judge
from ._corpus import OutputDocument as OutputDocument
from ._corpus import SourceDocuments as SourceDocuments
from ._corpus import is_corpus_output as is_corpus_output
from ._corpus import is_corpus_source as is_corpus_source
from ._corpus import listed as listed
from ._corpus import output_documents as output_documents
from ._input import MAX_FILE_BYTES as MAX_FILE_BYTES
from ._input import MAX_PROPOSITION_CHARS as MAX_PROPOSITION_CHARS
from ._input import check_file_size as check_file_size
from ._input import validate_input as validate_input
from ._input import validate_record as validate_record
from ._output import SCHEMA as SCHEMA
from ._output import OutputFindings as OutputFindings
from ._output import findings_document as findings_document
from ._output import output_findings as output_findings

# Nothing here is for users: a program checks an output with ``judge.assess`` (public);
# the names imported above (`X as X`) serve the command line and the tests, no promise.
__all__: list[str] = []
