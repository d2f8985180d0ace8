"""The fake endpoint's files and batches: OpenAI's Batch API, answered by the same requests'
answers a live call would get, so a batch run against it can be compared with a live one.

A batch is "in_progress" for ``seconds`` after it is created; the first look after that
answers every line through the server's own ``respond`` (content faults and transient ones
included: a line a live call would have had refused lands in the error file), and
``fail_rate`` more of the lines' first submissions fail with a 500, as a provider's batch
returns a few requests failed. Every create is counted (``created``), so a test can see
that a resumed run polls the batch it submitted rather than submitting it again.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from recmarket.testing.fake_replies import Response

Respond = Callable[[dict[str, Any]], Response]


def _not_found(what: str) -> Response:
    return 404, {}, {"error": {"message": f"no such {what}", "type": "invalid_request_error"}}


def uploaded(content_type: str, body: bytes) -> tuple[str, bytes]:
    """The file name and bytes of a multipart/form-data upload (the SDK's files.create)."""
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            data = part.get_payload(decode=True)
            if isinstance(data, bytes):
                return part.get_filename() or "upload.jsonl", data
    raise ValueError("no file part in the upload")


@dataclass
class FakeBatches:
    """Files and batches in memory; ``respond`` answers one request body."""

    respond: Respond
    seconds: float = 0.3  # how long a batch stays in progress
    fail_rate: float = 0.0  # share of lines whose first submission fails (a 500)
    seed: int = 0
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    created: int = 0
    submitted: dict[str, int] = field(default_factory=dict)  # submissions of each line
    lock: threading.Lock = field(default_factory=threading.Lock)

    def upload(self, content_type: str, body: bytes) -> Response:
        """POST /files: keep the file, answer its object."""
        name, data = uploaded(content_type, body)
        with self.lock:
            file_id = f"file-{len(self.files):06d}"
            self.files[file_id] = data
        return 200, {}, _file(file_id, name, len(data))

    def content(self, file_id: str) -> tuple[int, bytes]:
        """GET /files/ID/content: the file's bytes."""
        with self.lock:
            data = self.files.get(file_id)
        return (404, b"no such file") if data is None else (200, data)

    def create(self, body: dict[str, Any]) -> Response:
        """POST /batches: a batch of the uploaded file's lines, in progress."""
        if body.get("input_file_id") not in self.files:
            return _not_found("file")
        with self.lock:
            self.created += 1
            batch_id = f"batch_{self.created:06d}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body.get("endpoint"),
                "input_file_id": body["input_file_id"],
                "completion_window": body.get("completion_window", "24h"),
                "status": "in_progress",
                "created_at": int(time.time()),
                "metadata": body.get("metadata"),
                "output_file_id": None,
                "error_file_id": None,
                "request_counts": {"total": 0, "completed": 0, "failed": 0},
                "_started": time.monotonic(),
            }
        return 200, {}, self.shown(batch_id)

    def shown(self, batch_id: str) -> dict[str, Any]:
        """A batch as the API shows it."""
        return {k: v for k, v in self.batches[batch_id].items() if not k.startswith("_")}

    def retrieve(self, batch_id: str) -> Response:
        """GET /batches/ID: its state; done once ``seconds`` have passed since it began."""
        batch = self.batches.get(batch_id)
        if batch is None:
            return _not_found("batch")
        ended = time.monotonic() - batch["_started"] >= self.seconds
        if batch["status"] == "in_progress" and ended:
            self._finish(batch)
        return 200, {}, self.shown(batch_id)

    def listed(self) -> Response:
        """GET /batches: every batch, newest first."""
        data = [self.shown(b) for b in reversed(self.batches)]
        return 200, {}, {"object": "list", "data": data, "has_more": False}

    def _finish(self, batch: dict[str, Any]) -> None:
        lines = self.files[batch["input_file_id"]].decode().splitlines()
        out: list[str] = []
        errors: list[str] = []
        for number, line in enumerate(lines):
            task = json.loads(line)
            status, _, payload = self._answer(task)
            entry = {
                "id": f"batch_req_{batch['id']}_{number}",
                "custom_id": task["custom_id"],
                "response": {"status_code": status, "request_id": f"req_{number}", "body": payload},
                "error": None,
            }
            (out if status == 200 else errors).append(json.dumps(entry))
        with self.lock:
            for kind, entries in (("output", out), ("error", errors)):
                if entries:
                    file_id = f"file-{len(self.files):06d}"
                    self.files[file_id] = ("\n".join(entries) + "\n").encode()
                    batch[f"{kind}_file_id"] = file_id
            batch["status"] = "completed"
            batch["request_counts"] = {
                "total": len(lines),
                "completed": len(out),
                "failed": len(errors),
            }

    def _answer(self, task: dict[str, Any]) -> Response:
        custom_id = task["custom_id"]
        with self.lock:
            first = custom_id not in self.submitted
            self.submitted[custom_id] = self.submitted.get(custom_id, 0) + 1
        digest = hashlib.sha256(f"{self.seed}:{custom_id}".encode()).hexdigest()
        if first and int(digest[:8], 16) / 2**32 < self.fail_rate:
            return 500, {}, {"error": {"message": "internal error", "type": "server"}}
        return self.respond(task["body"])


def _file(file_id: str, name: str, size: int) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": size,
        "created_at": int(time.time()),
        "filename": name,
        "purpose": "batch",
        "status": "processed",
    }
