"""``FakeMessageBatchesServer``: FakeMessagesServer with Anthropic's Message Batches API."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._book import BATCH_ROUTE, BatchServing, FakeBatch
from ._messages import FakeMessagesServer, anthropic_error_json
from ._server import FakeReply, Response

_CREATED_AT = "2026-01-01T00:00:00Z"
_EXPIRES_AT = "2026-01-02T00:00:00Z"


class FakeMessageBatchesServer(BatchServing, FakeMessagesServer):
    """FakeMessagesServer with Anthropic's Message Batches API as well: ``POST
    /v1/messages/batches``, ``GET /v1/messages/batches/{id}``, ``GET .../{id}/results``
    (JSONL), ``POST .../{id}/cancel``; ``POST /v1/messages`` is still answered (a client's
    synchronous fallback). Each batch request's ``params`` is answered by the same queue or
    handler as a synchronous request (a ``ScriptedPipeline`` answers both), when the batch
    ends: at its ``polls_to_end``-th retrieval, or at the first retrieval after a cancel
    (every request then ``canceled``); batches numbered in ``cancel_batches`` (1-based) are
    cancelled by the server itself; ``fault`` scripts requests that fail (BatchFault);
    ``poll_fault`` scripts retrievals answered with an HTTP error instead (PollFault: a
    proxy that does not pass them through), counted in ``book.refused_polls``.
    ``book.submissions`` counts the submissions of each custom_id, ``book.batches`` the
    batches. Bounded: it stops serving by itself after ``lifetime_s`` seconds.
    """

    def _answer(self, method: str, path: str, headers: Mapping[str, str], body: Any) -> Response:
        route = path.split("?")[0]
        if method == "POST" and route == "/v1/messages/batches":
            requests = body.get("requests") if isinstance(body, Mapping) else None
            if not isinstance(requests, list) or not all(
                isinstance(r, Mapping) and isinstance(r.get("custom_id"), str) for r in requests
            ):
                return self._refuse("requests: expected a list of {custom_id, params}")
            made = self.book.create(
                "msgbatch_fake", [(r["custom_id"], r.get("params")) for r in requests]
            )
            if isinstance(made, str):
                return self._refuse(made)
            return Response(200, self._batch_json(made))
        match = BATCH_ROUTE.match(route)
        if match is None or not route.startswith("/v1/messages/batches/"):
            return super()._answer(method, path, headers, body)
        batch_id, action = match[1], match[2]
        if method == "POST" and action == "/cancel":
            batch = self.book.cancel(batch_id)
        elif method == "GET" and action == "/results":
            batch = self.book.batches.get(batch_id)
            if batch is not None and batch.results is not None:
                return Response(
                    200, self._results_jsonl(batch), {"content-type": "application/binary"}
                )
            if batch is not None:
                return self._refuse(f"batch {batch_id} has not ended: no results yet")
        elif method == "GET" and action is None:
            refused = self.book.refused(batch_id)
            if refused is not None:
                text = f"scripted HTTP {refused} for a retrieval of {batch_id}"
                return Response(refused, anthropic_error_json(FakeReply(status=refused, text=text)))
            batch = self.book.poll(batch_id, self._next_reply)
        else:
            return super()._answer(method, path, headers, body)
        if batch is None:
            return Response(
                404, anthropic_error_json(FakeReply(status=404, text=f"no batch {batch_id}"))
            )
        return Response(200, self._batch_json(batch))

    def _refuse(self, why: str) -> Response:
        return Response(400, anthropic_error_json(FakeReply(status=400, text=why)))

    def _batch_json(self, batch: FakeBatch) -> dict[str, Any]:
        ended = batch.results is not None
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": batch.status,
            "request_counts": self.book.counts(batch),
            "created_at": _CREATED_AT,
            "expires_at": _EXPIRES_AT,
            "ended_at": _CREATED_AT if ended else None,
            "cancel_initiated_at": _CREATED_AT if batch.cancelled else None,
            "archived_at": None,
            "results_url": f"{self.root_url}/v1/messages/batches/{batch.id}/results"
            if ended
            else None,
        }

    def _results_jsonl(self, batch: FakeBatch) -> bytes:
        bodies = {custom_id: body for custom_id, body, _ in batch.requests}
        lines = []
        for custom_id, kind, reply in batch.results or ():
            result: dict[str, Any]
            if kind == "succeeded" and reply is not None:
                message = self._message_json(reply, bodies[custom_id])
                result = {"type": "succeeded", "message": message}
            elif reply is not None:  # errored, invalid
                result = {"type": "errored", "error": anthropic_error_json(reply)}
            else:
                result = {"type": kind}
            lines.append(json.dumps({"custom_id": custom_id, "result": result}))
        return ("\n".join(lines) + "\n").encode("utf-8")
