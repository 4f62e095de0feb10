"""The web API's answers to what a client may send: a body with NaN, Infinity or 1e400 that
fails validation, and stopping a collection under another set's name (FastAPI's test
client, a real ledger)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.collect import FaceCollector
from server.diesets import DieSetStore
from server.ledger import Ledger
from server.table import Table


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    store = DieSetStore(tmp_path)
    with Ledger(tmp_path) as ledger:
        app = create_app(Table(ledger), diesets=store, collector=FaceCollector(tmp_path, store))
        with TestClient(app, raise_server_exceptions=False) as test_client:
            yield test_client


NOT_NUMBERS = ("NaN", "Infinity", "-Infinity", "1e400")  # JSON as Python reads it (1e400: inf)


def _bodies(schema: dict[str, Any], name: str) -> Iterator[tuple[bytes, bool]]:
    """Bodies of the request model ``name`` and whether validation must refuse them: each of
    its fields given each of NOT_NUMBERS, the whole body one of them (refused), and a field
    it has not (where it has required fields, refused for those: FastAPI then echoes the
    whole body)."""
    model = schema["components"]["schemas"][name]
    for bad in NOT_NUMBERS:
        yield bad.encode(), True
        for field in model.get("properties", {}):
            yield f'{{"{field}": {bad}}}'.encode(), True
        yield f'{{"no_such_field": {bad}}}'.encode(), bool(model.get("required"))


def test_a_body_of_numbers_json_cannot_carry_is_refused_in_words(client: TestClient) -> None:
    """Every operation that takes a body: a NaN, an Infinity or a 1e400 it refuses was
    echoed back in FastAPI's answer, which JSON cannot carry ("Out of range float values are
    not JSON compliant"): a 500 on every endpoint."""
    schema = client.get("/openapi.json").json()
    tried = 0
    for path, operations in schema["paths"].items():
        url = re.sub(r"\{[a-z_]+\}", "1", path)  # a check, a row, a set named "1"
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            ref = json.dumps(content.get("application/json", {}).get("schema", {}))
            if "#/components/schemas/" not in ref:
                continue
            name = ref.split("#/components/schemas/")[1].split('"')[0]
            for body, refused in _bodies(schema, name):
                reply = client.request(method.upper(), url, content=body,
                                       headers={"content-type": "application/json"})  # fmt: skip
                tried += 1
                assert reply.status_code < 500, (method, url, body, reply.text)
                assert reply.status_code == 422 or not refused, (method, url, body, reply.text)
                said = reply.json()["detail"]  # JSON, and words
                assert said, (method, url, body)
    assert tried > 100


@pytest.mark.parametrize(
    ("url", "body", "field", "echoed"),
    [
        ("/api/checks/x/withdraw", '{"reason": Infinity}', "reason", "Infinity"),
        ("/api/checks", '{"system": "d6pool", "params": NaN}', "params", "NaN"),
        ("/api/readings/1/confirm", '{"face": 1e400}', "face", "Infinity"),
        ("/api/checks/x/dice", '{"dice": [{"die": "d6", "value": -Infinity}]}', "value",
         "-Infinity"),
    ],
)  # fmt: skip
def test_the_refusal_names_the_field_and_what_was_sent_as_text(
    client: TestClient, url: str, body: str, field: str, echoed: str
) -> None:
    reply = client.post(url, content=body, headers={"content-type": "application/json"})
    assert reply.status_code == 422, reply.text
    [error] = reply.json()["detail"]
    assert error["loc"][-1] == field and error["msg"]
    assert error["input"] == echoed  # as the client wrote it (JSON has no such number)


def test_stopping_another_set_s_collection_leaves_this_one_running(client: TestClient) -> None:
    """DELETE under another name answered 404 but stopped the collection running."""
    started = client.post("/api/diesets/coll-d20/collect", json={"die": "d20"})
    assert started.status_code == 201 and started.json()["collecting"] is True
    other = client.delete("/api/diesets/other-name/collect")
    assert other.status_code == 404
    assert client.get("/api/diesets/coll-d20/collect").json()["collecting"] is True
    client.post("/api/diesets/red-d5/collect", json={"die": "d5"})  # another set, now
    client.post("/api/diesets/coll-d20/collect", json={"die": "d20"})  # and back
    earlier = client.delete("/api/diesets/red-d5/collect")  # collected before, not now
    assert earlier.status_code == 200 and earlier.json()["collecting"] is False
    assert client.get("/api/diesets/coll-d20/collect").json()["collecting"] is True
    stopped = client.delete("/api/diesets/coll-d20/collect")
    assert stopped.status_code == 200 and stopped.json()["collecting"] is False
