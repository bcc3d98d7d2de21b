"""`build crawl`: candidates from a folder, a URL list or a JSON search API served on
loopback; validation, provenance, per-URL failures, resume, and the hand-off to
`build real-images`."""

from __future__ import annotations

import io
import json
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from socialbench.construction.crawl import queries_from_taxonomy
from socialbench.construction.jsonl import read_jsonl
from socialbench.errors import UsageError


def _photo_bytes(seed: int, fmt: str = "PNG", size: tuple[int, int] = (640, 480)) -> bytes:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, size=(size[1] // 8, size[0] // 8, 3), dtype=np.uint8)
    img = Image.fromarray(base).resize(size, Image.Resampling.NEAREST)
    buf = io.BytesIO()
    img.save(buf, format=fmt)
    return buf.getvalue()


class _Site:
    """What the loopback server serves: path -> (status, content type, body), the search
    replies, a key the search endpoint requires, and a log of requested paths."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[int, str, bytes]] = {}
        self.search: dict[str, object] = {}
        self.required_key: str | None = None
        self.fail_once: set[str] = set()
        self.requests: list[str] = []


@pytest.fixture
def site() -> Iterator[tuple[_Site, str]]:
    state = _Site()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, ctype: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = urllib.parse.urlsplit(self.path)
            state.requests.append(parts.path)
            if parts.path in state.fail_once:
                state.fail_once.discard(parts.path)
                self._send(503, "text/plain", b"busy")
                return
            if parts.path == "/search":
                args = urllib.parse.parse_qs(parts.query)
                if state.required_key is not None and args.get("key") != [state.required_key]:
                    self._send(403, "text/plain", b"bad key")
                    return
                reply = state.search.get(args["q"][0], {"results": []})
                self._send(200, "application/json", json.dumps(reply).encode())
                return
            status, ctype, body = state.files.get(parts.path, (404, "text/plain", b"not found"))
            self._send(status, ctype, body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _serve_mixed(state: _Site) -> None:
    state.files.update(
        {
            "/a.png": (200, "image/png", _photo_bytes(1)),
            "/b.jpg": (200, "image/jpeg", _photo_bytes(2, "JPEG")),
            "/copy-of-a.png": (200, "image/png", _photo_bytes(1)),
            "/page.html": (200, "text/html", b"<html>" + b"x" * 20000 + b"</html>"),
            "/big.png": (200, "image/png", _photo_bytes(3, size=(2400, 1800))),  # over 0.2 MB
            "/broken.jpg": (200, "image/jpeg", b"\xff\xd8\xff" + b"\x00" * 20000),
        }
    )


def _url_list(tmp_path: Path, base: str, names: list[str]) -> Path:
    f = tmp_path / "urls.txt"
    f.write_text("# candidates\n" + "".join(f"{base}/{n}\n" for n in names), encoding="utf-8")
    return f


def _by_url(work: Path) -> dict[str, dict[str, object]]:
    return {r["url"].rsplit("/", 1)[1]: r for r in read_jsonl(work / "crawl.jsonl")}


MIXED = ["a.png", "b.jpg", "copy-of-a.png", "missing.jpg", "page.html", "big.png", "broken.jpg"]


def test_url_list_keeps_valid_photos_and_records_each_rejection(cli, work, site, tmp_path):
    state, base = site
    _serve_mixed(state)
    res = cli("crawl", "--work", work, "--source", f"urls:{_url_list(tmp_path, base, MIXED)}", "--max-mb", "0.2")
    assert res.exit_code == 0, res.output
    records = _by_url(work)
    assert {n: (r["status"], r.get("reason")) for n, r in records.items()} == {
        "a.png": ("kept", None),
        "b.jpg": ("kept", None),
        "copy-of-a.png": ("rejected", "duplicate"),
        "missing.jpg": ("rejected", "http_status"),
        "page.html": ("rejected", "content_type"),
        "big.png": ("rejected", "size"),
        "broken.jpg": ("rejected", "undecodable"),
    }
    assert sorted(p.suffix for p in (work / "crawl").iterdir()) == [".jpg", ".png"]


def test_kept_record_describes_the_saved_photo(cli, work, site, tmp_path):
    state, base = site
    _serve_mixed(state)
    assert cli("crawl", "--work", work, "--source", f"urls:{_url_list(tmp_path, base, ['b.jpg'])}").exit_code == 0
    rec = _by_url(work)["b.jpg"]
    saved = work / str(rec["image"])
    assert saved.read_bytes() == state.files["/b.jpg"][2]
    assert (rec["mime"], rec["width"], rec["height"]) == ("image/jpeg", 640, 480)


def test_rerun_fetches_nothing_already_decided(cli, work, site, tmp_path):
    state, base = site
    _serve_mixed(state)
    urls = _url_list(tmp_path, base, MIXED)
    assert cli("crawl", "--work", work, "--source", f"urls:{urls}", "--max-mb", "0.2").exit_code == 0
    state.requests.clear()
    res = cli("crawl", "--work", work, "--source", f"urls:{urls}", "--max-mb", "0.2")
    assert res.exit_code == 0, res.output
    assert state.requests == []


def test_server_error_is_recorded_and_retried_by_the_next_run(cli, work, site, tmp_path):
    state, base = site
    _serve_mixed(state)
    state.fail_once.add("/a.png")
    urls = _url_list(tmp_path, base, ["a.png", "b.jpg"])
    first = cli("crawl", "--work", work, "--source", f"urls:{urls}")
    assert first.exit_code == 2, first.output
    failures = read_jsonl(work / "crawl.failures.jsonl")
    assert [(f["url"], f["kind"]) for f in failures] == [(f"{base}/a.png", "http_error")]
    assert _by_url(work)["b.jpg"]["status"] == "kept"
    second = cli("crawl", "--work", work, "--source", f"urls:{urls}")
    assert second.exit_code == 0, second.output
    assert _by_url(work)["a.png"]["status"] == "kept"


def test_url_list_json_lines_carry_license_and_query(cli, work, site, tmp_path):
    state, base = site
    _serve_mixed(state)
    f = tmp_path / "urls.jsonl"
    f.write_text(
        json.dumps({"url": f"{base}/a.png", "query_id": "hotel/pov", "license": "CC-BY-4.0", "page": "http://p/1"})
        + "\n",
        encoding="utf-8",
    )
    assert cli("crawl", "--work", work, "--source", f"urls:{f}").exit_code == 0
    rec = _by_url(work)["a.png"]
    assert (rec["license"], rec["page"], rec["query_id"], rec["subcategory"]) == (
        "CC-BY-4.0",
        "http://p/1",
        "hotel/pov",
        "Hotel",
    )


def test_queries_are_three_kinds_per_subcategory(work):
    queries = queries_from_taxonomy(read_jsonl(work / "taxonomy.jsonl"))
    assert [q["id"] for q in queries] == [
        "restaurant/pov",
        "restaurant/scene",
        "restaurant/staff",
        "hotel/pov",
        "hotel/scene",
        "hotel/staff",
    ]


def _search_replies(state: _Site, base: str, work: Path) -> None:
    """Two photos for the restaurant POV query, one for the hotel POV query."""
    queries = {q["id"]: q["query"] for q in queries_from_taxonomy(read_jsonl(work / "taxonomy.jsonl"))}
    _serve_mixed(state)
    state.files["/c.png"] = (200, "image/png", _photo_bytes(4))
    state.search[queries["restaurant/pov"]] = {
        "results": [
            {"url": f"{base}/a.png", "license": "CC0", "page": "http://pages/a"},
            {"url": f"{base}/b.jpg"},
        ]
    }
    state.search[queries["hotel/pov"]] = {"results": [f"{base}/c.png"]}


def test_search_source_records_query_and_license(cli, work, site):
    state, base = site
    _search_replies(state, base, work)
    res = cli("crawl", "--work", work, "--source", f"search:{base}/search?q={{query}}&n={{n}}")
    assert res.exit_code == 0, res.output
    rec = _by_url(work)["a.png"]
    assert (rec["query_id"], rec["subcategory"], rec["category"], rec["license"], rec["page"]) == (
        "restaurant/pov",
        "Restaurant",
        "Retail, Hospitality & Consumer Services",
        "CC0",
        "http://pages/a",
    )
    assert _by_url(work)["c.png"]["query_id"] == "hotel/pov"


def test_per_query_limit_stops_fetching_a_query(cli, work, site):
    state, base = site
    _search_replies(state, base, work)
    res = cli("crawl", "--work", work, "--source", f"search:{base}/search?q={{query}}", "--per-query", "1")
    assert res.exit_code == 0, res.output
    assert sorted(_by_url(work)) == ["a.png", "c.png"]


def test_search_replies_are_stored_and_not_asked_again(cli, work, site):
    state, base = site
    _search_replies(state, base, work)
    source = f"search:{base}/search?q={{query}}"
    assert cli("crawl", "--work", work, "--source", source).exit_code == 0
    state.requests.clear()
    assert cli("crawl", "--work", work, "--source", source).exit_code == 0
    assert "/search" not in state.requests


def test_search_reply_path_and_url_field_are_configurable(cli, work, site):
    state, base = site
    queries = queries_from_taxonomy(read_jsonl(work / "taxonomy.jsonl"))
    _serve_mixed(state)
    state.search.update({q["query"]: {"data": {"images": []}} for q in queries})
    state.search[queries[0]["query"]] = {"data": {"images": [{"original": f"{base}/a.png", "rights": "CC-BY"}]}}
    res = cli(
        "crawl",
        "--work",
        work,
        "--source",
        f"search:{base}/search?q={{query}}",
        "--results-path",
        "data.images",
        "--url-field",
        "original",
        "--license-field",
        "rights",
    )
    assert res.exit_code == 0, res.output
    assert (_by_url(work)["a.png"]["status"], _by_url(work)["a.png"]["license"]) == ("kept", "CC-BY")


def test_search_key_comes_from_the_environment_and_is_not_written(cli, work, site, monkeypatch):
    state, base = site
    _search_replies(state, base, work)
    state.required_key = "s3cret-key"
    monkeypatch.setenv("CRAWL_TEST_KEY", "s3cret-key")
    source = f"search:{base}/search?q={{query}}&key={{key}}"
    res = cli("crawl", "--work", work, "--source", source, "--key-env", "CRAWL_TEST_KEY")
    assert res.exit_code == 0, res.output
    assert _by_url(work)["a.png"]["status"] == "kept"
    written = "".join(p.read_text(encoding="utf-8") for p in work.rglob("*.json*"))
    assert "s3cret-key" not in written


def test_search_reply_without_the_list_is_a_failure_per_query(cli, work, site):
    state, base = site
    queries = queries_from_taxonomy(read_jsonl(work / "taxonomy.jsonl"))
    state.search[queries[0]["query"]] = {"items": []}
    res = cli("crawl", "--work", work, "--source", f"search:{base}/search?q={{query}}")
    assert res.exit_code == 2, res.output
    failures = read_jsonl(work / "crawl_search.failures.jsonl")
    assert [(f["id"], f["kind"]) for f in failures] == [("restaurant/pov", "bad_reply")]


def test_folder_source_takes_the_subcategory_from_the_subfolder(cli, work, tmp_path):
    photos = tmp_path / "photos"
    (photos / "hotel").mkdir(parents=True)
    (photos / "hotel" / "one.png").write_bytes(_photo_bytes(5))
    (photos / "loose.png").write_bytes(_photo_bytes(6))
    assert cli("crawl", "--work", work, "--source", f"folder:{photos}").exit_code == 0
    records = _by_url(work)
    assert (records["one.png"]["subcategory"], records["loose.png"].get("subcategory")) == ("Hotel", None)


def test_unknown_source_kind_is_a_usage_error(cli, work):
    res = cli("crawl", "--work", work, "--source", "ftp:somewhere")
    assert isinstance(res.exception, UsageError)


def test_crawled_photos_reach_real_images_with_their_provenance(cli, work, site):
    state, base = site
    _search_replies(state, base, work)
    assert cli("crawl", "--work", work, "--source", f"search:{base}/search?q={{query}}").exit_code == 0
    res = cli("real-images", work / "crawl", "--work", work, "--min-sharpness", "10")
    assert res.exit_code == 0, res.output
    kept = {r["source_url"].rsplit("/", 1)[1]: r for r in read_jsonl(work / "real_images.jsonl")}
    assert sorted(kept) == ["a.png", "b.jpg", "c.png"]
    assert (kept["a.png"]["license"], kept["a.png"]["query_id"], kept["a.png"]["subcategory"]) == (
        "CC0",
        "restaurant/pov",
        "Restaurant",
    )


def test_given_queries_are_asked_instead_of_the_taxonomy(cli, work, site, tmp_path):
    state, base = site
    _serve_mixed(state)
    state.search["people at a ticket gate"] = {"results": [f"{base}/a.png"]}
    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps({"id": "gate", "query": "people at a ticket gate"}) + "\n", encoding="utf-8")
    res = cli("crawl", "--work", work, "--source", f"search:{base}/search?q={{query}}", "--queries", queries)
    assert res.exit_code == 0, res.output
    assert (_by_url(work)["a.png"]["query_id"], state.requests.count("/search")) == ("gate", 1)


def test_refused_search_is_a_failure_asked_again_next_run(cli, work, site, monkeypatch):
    state, base = site
    _search_replies(state, base, work)
    state.required_key = "right-key"
    monkeypatch.setenv("CRAWL_TEST_KEY", "wrong-key")
    source = f"search:{base}/search?q={{query}}&key={{key}}"
    assert cli("crawl", "--work", work, "--source", source, "--key-env", "CRAWL_TEST_KEY").exit_code == 2
    kinds = {f["kind"] for f in read_jsonl(work / "crawl_search.failures.jsonl")}
    assert kinds == {"search_http_status"}
    monkeypatch.setenv("CRAWL_TEST_KEY", "right-key")
    assert cli("crawl", "--work", work, "--source", source, "--key-env", "CRAWL_TEST_KEY").exit_code == 0
