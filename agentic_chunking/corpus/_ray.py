"""The Ray engine: the same per-document work as a Ray Data pipeline, for many machines.

``ray_results`` makes a Ray Dataset of where the documents are, and each Ray task reads its
own documents through the corpus's one reader (``CorpusSource``), the reader every engine
uses, never through Ray's (``read_binary_files`` decompresses a ``.gz`` by its name, and
``read_text`` knows no line numbers): a folder's rows are the ids the driver's scan listed,
each file read by ``read_file_document``; a JSONL or Parquet corpus's rows are where each
run of BATCH_SIZE documents starts (``CorpusSource.starts``), read by ``documents(start)``.
So a corpus gives the same documents, records and failures on every engine. It runs
``map_batches`` over them, each task running the local engine (``chunk_corpus``, so
``process_document``) on its batch with its own client, the shared reply cache and the
shared ledger, and streams one result per document back to the driver in input order
(``preserve_order``) as each document finishes (a block each), where the command writes
OUT exactly as the local engine does: the same records, atomically.

Ray runs locally (``ray.init()``: a local instance with this machine's CPUs) unless
``RAY_ADDRESS`` names a cluster. On a cluster every node must see the reply cache and the
ledger (shared storage at the same path) and have the provider's key in its environment;
the requests in flight are bounded per task (``max_concurrency`` divided among the
cluster's CPUs), since no lock spans machines. Needs the ``ray`` extra.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import logging
import os
import socket
from collections.abc import Generator, Iterator, Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from .._entry import handle_stop_signals
from .._errors import ConfigurationError, InputError
from ..client import ModelClient, RequestLimits, parse_model
from ..pipeline import PipelineOptions, ReplyCache
from ._documents import CorpusDocument, CorpusSource, Start
from ._ledger import Ledger
from ._run import DocumentResult, chunk_corpus

BATCH_SIZE = 16
"""Documents per Ray task."""
_STOP = "configuration"
"""The status of a worker's row that stops the run (a key rejected, an unknown model)."""


def ray_results(
    source: CorpusSource,
    options: PipelineOptions,
    *,
    positions: Mapping[str, int],
    cache_dir: Path,
    ledger_path: Path,
) -> Generator[DocumentResult]:
    """One DocumentResult per document of ``source``, in input order (see the module).

    Every worker runs ``options`` (its model resolved here, once); ``options.max_concurrency``
    is the requests in flight for the whole run, divided among the cluster's CPUs.
    ``positions`` maps each document id to its place (from ``source.scan()``). Raises
    ConfigurationError when a worker met one, InputError when Ray is not installed.
    """
    ray = _started_ray()
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    task_options = {
        # absolute: a worker's working folder need not be the command's
        "source": CorpusSource(source.path.resolve(), source.selection),
        "options": options.resolved().to_dict(),
        "cache_dir": str(cache_dir.resolve()),
        "ledger_path": str(ledger_path.resolve()),
        "max_in_flight": max(1, options.max_concurrency // cpus),
    }
    if source.kind == "folder":  # a row a file, BATCH_SIZE files a task
        rows = [{"document_id": d, "position": n} for d, n in positions.items()]
        per_task = BATCH_SIZE
    else:  # a row a run of BATCH_SIZE records, one a task
        rows = [asdict(start) for start in source.starts(BATCH_SIZE)]
        per_task = 1
    if not rows:
        return
    mapped = ray.data.from_items(rows).map_batches(
        process_batch, batch_size=per_task, batch_format="pyarrow", fn_kwargs=task_options
    )
    for row in mapped.iter_rows():
        data = json.loads(row["result"])
        if data.get("status") == _STOP:
            raise ConfigurationError(str(data["error"]))
        result = DocumentResult.from_dict(data)
        yield replace(result, position=positions.get(result.document_id, result.position))


def _started_ray() -> Any:
    """The ``ray`` module, connected (``RAY_ADDRESS``'s cluster, else a local instance)
    and its Data context set for the run: order kept, no progress bars, a block a row.
    InputError naming the way out when Ray is missing or cannot start."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise InputError(
            "--engine ray needs Ray: pip install 'agentic-chunking[ray]' (or use the default "
            "--engine local)"
        ) from None
    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS") or None
        check_address(address)
        try:
            ray.init(
                address=address,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.WARNING,
            )
        except (ConnectionError, TimeoutError) as error:
            raise InputError(_no_cluster(address, error)) from None
        except OSError as error:  # a local instance that cannot start here
            raise InputError(_cannot_start(error)) from None
        # Ray put its own SIGTERM handlers in (sys.exit, and its core's, which aborts with
        # SIGABRT): the command's own again, so that SIGTERM ends the run with 143
        handle_stop_signals()
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    # every row a block of its own: a task's rows reach the driver as each document
    # finishes (process_batch yields them one by one), not all at the end of its task, so
    # the progress counts documents as they end (it sat at 0/280 for five minutes, then
    # jumped to the end)
    context.target_max_block_size = 1
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    return ray


CONNECT_WAIT_S = 5.0
"""How long the address RAY_ADDRESS names is given to answer before the run is refused."""


def check_address(address: str | None) -> None:
    """InputError naming the way out, within CONNECT_WAIT_S, when ``address`` (RAY_ADDRESS)
    names a cluster this machine cannot reach (Ray itself retries for ever), or the Ray
    Client form (``ray://HOST:PORT``) without the Ray Client installed (grpcio). None,
    ``auto`` and ``local`` are Ray's own business."""
    if address is None or address in ("auto", "local"):
        return
    client = address.startswith("ray://")
    if client and importlib.util.find_spec("grpc") is None:
        raise InputError(
            f"RAY_ADDRESS {address!r} uses the Ray Client, which needs grpcio: pip install "
            "'agentic-chunking[ray]' again (its extra now holds ray[client]), or give the "
            "cluster's own address HOST:6379 from a machine of the cluster"
        )
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise InputError(
            f"RAY_ADDRESS {address!r} is not HOST:PORT (or ray://HOST:PORT); give the "
            "cluster's address, or unset RAY_ADDRESS to run on a local Ray instance"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_WAIT_S).close()
    except OSError as error:
        raise InputError(_no_cluster(address, error)) from None


def _cannot_start(error: OSError) -> str:
    """The line for a local Ray instance that cannot start, with the way out."""
    if "path length" in str(error) or "socket" in str(error).lower():
        import tempfile

        return (
            "--engine ray cannot start a local Ray instance: its socket paths under the "
            f"temporary folder {tempfile.gettempdir()!r} would be longer than the 107 bytes "
            "Unix allows; set RAY_TMPDIR to a short folder (e.g. RAY_TMPDIR=/tmp) or use a "
            "shorter TMPDIR, and rerun"
        )
    return (
        f"--engine ray cannot start a local Ray instance ({error}); "
        "fix the cause, or use the default --engine local"
    )


def _no_cluster(address: str | None, error: BaseException) -> str:
    reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
    return (
        f"no Ray cluster answers at RAY_ADDRESS {address!r} ({reason}); start it (ray start "
        "--head), check the address and port, or unset RAY_ADDRESS to run on a local Ray "
        "instance"
    )


def process_batch(batch: Any, **options: Any) -> Iterator[Any]:
    """A Ray task: the documents of ``batch`` (a pyarrow Table of Ray's rows) through the
    local engine, with a client, the reply cache and the ledger of its own; a one-row table
    per document, ``{"result": DocumentResult.to_dict() as JSON}``, yielded as that
    document finishes (in input order)."""
    import pyarrow as pa

    def row(text: str) -> Any:
        return pa.table({"result": pa.array([text], pa.string())})

    documents = list(_documents(batch, options["source"]))
    run = replace(PipelineOptions(**options["options"]), max_concurrency=options["max_in_flight"])
    provider = parse_model(run.model_id).provider
    client = ModelClient(
        timeout=run.timeout,
        base_urls={provider: run.base_url} if run.base_url else None,
        limits=RequestLimits(max_in_flight=options["max_in_flight"]),
    )
    ledger = Ledger(options["ledger_path"])
    try:
        results = chunk_corpus(
            documents,
            run,
            client=client,
            cache=ReplyCache(options["cache_dir"], read=True),
            ledger=ledger,
            max_documents=options["max_in_flight"],
        )
        for result in results:
            yield row(json.dumps(result.to_dict(), ensure_ascii=False))
    except ConfigurationError as error:
        yield row(json.dumps({"status": _STOP, "error": str(error)}))
    finally:
        client.close()
        ledger.close()


def _documents(batch: Any, source: CorpusSource) -> Iterator[CorpusDocument]:
    """The documents of one Ray batch, read by the corpus's own reader (see the module)."""
    for row in batch.to_pylist():
        if source.kind == "folder":
            yield source.read_file_document(row["document_id"], row["position"])
        else:
            yield from itertools.islice(source.documents(Start(**row)), BATCH_SIZE)
