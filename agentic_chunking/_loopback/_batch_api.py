"""``FakeBatchAPIServer``: FakeChatCompletionsServer with OpenAI's Batch API (files,
batches, output and error files)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from typing import Any

from ._book import BATCH_ROUTE, BatchServing, FakeBatch
from ._chat import FakeChatCompletionsServer, as_messages_body
from ._server import FakeReply, RecordedRequest, Response

_EXPIRED_TEXT = "This request could not be executed before the completion window expired."
_CANCELLED_TEXT = "This request was not executed because the batch was cancelled."


class FakeBatchAPIServer(BatchServing, FakeChatCompletionsServer):
    """FakeChatCompletionsServer with OpenAI's Batch API as well: ``POST /v1/files``
    (multipart, ``purpose=batch``), ``GET /v1/files/{id}/content``, ``POST /v1/batches``,
    ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``; ``POST
    /v1/chat/completions`` is still answered. A batch's lines are answered as
    FakeMessageBatchesServer answers its requests (same arguments, same ``book``): the
    replies in the output file, failed requests in the error file (an HTTP error's body,
    or ``batch_expired`` / ``batch_cancelled``); a batch whose lines are malformed is
    refused with HTTP 400, as is a custom_id given twice.
    """

    def _open_files(self) -> None:
        """The uploaded files, the raw body of the request being answered, and the output
        and error files of each ended batch (written once)."""
        self.files: dict[str, bytes] = {}
        self._raw = threading.local()
        self._outputs: dict[str, tuple[str | None, str | None]] = {}

    def _record(self, request: RecordedRequest) -> None:
        super()._record(request)
        self._raw.body = request.raw_body  # the multipart upload, for ``_answer``

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Response:
        route = path.split("?")[0]
        if method == "POST" and route == "/v1/files":
            return self._upload(headers.get("content-type", ""), getattr(self._raw, "body", b""))
        content = re.match(r"^/v1/files/([^/]+)/content$", route)
        if method == "GET" and content is not None:
            if content[1] not in self.files:
                return self._refuse(f"No such File object: {content[1]}", status=404)
            return Response(200, self.files[content[1]], {"content-type": "application/jsonl"})
        if method == "POST" and route == "/v1/batches":
            return self._create(body if isinstance(body, Mapping) else {})
        match = BATCH_ROUTE.match(route)
        if match is None or not route.startswith("/v1/batches/"):
            return super()._answer(method, path, headers, body)
        batch_id, action = match[1], match[2]
        if method == "POST" and action == "/cancel":
            batch = self.book.cancel(batch_id)
        elif method == "GET" and action is None:
            refused = self.book.refused(batch_id)
            if refused is not None:
                return self._refuse(f"scripted HTTP {refused} for {batch_id}", status=refused)
            batch = self.book.poll(batch_id, self._reply_to)
        else:
            return super()._answer(method, path, headers, body)
        if batch is None:
            return self._refuse(f"No batch found with id '{batch_id}'.", status=404)
        return Response(200, self._batch_json(batch))

    def _refuse(self, why: str, status: int = 400) -> Response:
        return Response(status, self._error_json(FakeReply(status=status, text=why)))

    def _reply_to(self, body: Any) -> FakeReply:
        return self._next_reply(as_messages_body(body if isinstance(body, Mapping) else {}))

    def _upload(self, content_type: str, raw: bytes) -> Response:
        from email.parser import BytesParser
        from email.policy import HTTP

        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        form = BytesParser(policy=HTTP).parsebytes(head + raw)
        fields: dict[str, bytes] = {}
        for part in form.iter_parts() if form.is_multipart() else ():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(name, str) and isinstance(payload, bytes):
                fields[name] = payload
        if fields.get("purpose") != b"batch" or "file" not in fields:
            return self._refuse("expected a multipart upload with file and purpose=batch")
        file_id = f"file-fake{len(self.files) + 1:06d}"
        self.files[file_id] = fields["file"]
        return Response(
            200,
            {
                "id": file_id,
                "object": "file",
                "bytes": len(fields["file"]),
                "created_at": 0,
                "filename": "batch.jsonl",
                "purpose": "batch",
                "status": "processed",
            },
        )

    def _create(self, body: Mapping[str, Any]) -> Response:
        endpoint = body.get("endpoint")
        data = self.files.get(str(body.get("input_file_id")))
        if data is None:
            return self._refuse(f"No such File object: {body.get('input_file_id')}", status=404)
        requests = []
        for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
            try:
                entry = json.loads(line)
            except ValueError:
                return self._refuse(f"line {number} of the input file is not JSON")
            if not (
                isinstance(entry, Mapping)
                and isinstance(entry.get("custom_id"), str)
                and entry.get("method") == "POST"
                and entry.get("url") == endpoint
                and isinstance(entry.get("body"), Mapping)
            ):
                return self._refuse(
                    f"line {number}: expected {{custom_id, method: POST, url: {endpoint}, body}}"
                )
            requests.append((entry["custom_id"], entry["body"]))
        made = self.book.create("batch_fake", requests)
        if isinstance(made, str):
            return self._refuse(made)
        return Response(200, self._batch_json(made, input_file_id=str(body["input_file_id"])))

    def _batch_json(self, batch: FakeBatch, input_file_id: str = "") -> dict[str, Any]:
        counts = self.book.counts(batch)
        failed = counts["errored"] + counts["canceled"] + counts["expired"]
        output, errors = self._files_of(batch)
        if batch.results is None:
            status = "cancelling" if batch.status == "canceling" else "in_progress"
        elif batch.cancelled:
            status = "cancelled"
        elif counts["expired"] == len(batch.requests):
            status = "expired"
        else:
            status = "completed"
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": input_file_id or "file-unknown",
            "completion_window": "24h",
            "status": status,
            "output_file_id": output,
            "error_file_id": errors,
            "created_at": 0,
            "request_counts": {
                "total": len(batch.requests),
                "completed": counts["succeeded"],
                "failed": failed,
            },
        }

    def _files_of(self, batch: FakeBatch) -> tuple[str | None, str | None]:
        """The output and error files of an ended batch (written once), else None, None."""
        if batch.results is None:
            return None, None
        with self.book.lock:
            if batch.id not in self._outputs:
                self._outputs[batch.id] = self._write_results(batch)
            return self._outputs[batch.id]

    def _write_results(self, batch: FakeBatch) -> tuple[str | None, str | None]:
        bodies = {custom_id: body for custom_id, body, _ in batch.requests}
        good: list[str] = []
        bad: list[str] = []
        for number, (custom_id, kind, reply) in enumerate(batch.results or (), 1):
            line: dict[str, Any] = {"id": f"batch_req_{number:06d}", "custom_id": custom_id}
            request_id = f"req_fake_batch_{number:06d}"
            if kind == "succeeded" and reply is not None:
                body = self._completion(reply, bodies[custom_id])
                line |= {
                    "response": {"status_code": 200, "request_id": request_id, "body": body},
                    "error": None,
                }
                good.append(json.dumps(line))
                continue
            if reply is not None:
                response = {
                    "status_code": reply.status,
                    "request_id": request_id,
                    "body": self._error_json(reply),
                }
                line |= {"response": response, "error": None}
            else:
                code, text = (
                    ("batch_expired", _EXPIRED_TEXT)
                    if kind == "expired"
                    else ("batch_cancelled", _CANCELLED_TEXT)
                )
                line |= {"response": None, "error": {"code": code, "message": text}}
            bad.append(json.dumps(line))
        ids: list[str | None] = []
        for lines in (good, bad):
            if not lines:
                ids.append(None)
                continue
            file_id = f"file-fake{len(self.files) + 1:06d}"
            self.files[file_id] = ("\n".join(lines) + "\n").encode("utf-8")
            ids.append(file_id)
        return ids[0], ids[1]
