"""SQLite response cache keys on model identity and the full request, images included."""

from socialbench.runner.cache import ResponseCache, cache_key
from socialbench.types import EncodedImage, Generation, GenerationConfig, Request, Usage


def img(b: bytes) -> EncodedImage:
    return EncodedImage(data=b, mime="image/png", width=1, height=1)


def test_round_trip_keeps_text_and_usage(tmp_path):
    c = ResponseCache(tmp_path / "c.sqlite")
    k = cache_key("m", Request(prompt="p"))
    c.put(k, "m", Generation("hello", Usage(3, 4)))
    assert c.get(k) == Generation("hello", Usage(3, 4))


def test_key_depends_on_image_bytes():
    a = cache_key("m", Request(prompt="p", images=(img(b"1"),)))
    b = cache_key("m", Request(prompt="p", images=(img(b"2"),)))
    assert a != b


def test_key_depends_on_model_identity_and_generation_settings():
    r = Request(prompt="p")
    assert cache_key("m1", r) != cache_key("m2", r)
    assert cache_key("m", r) != cache_key("m", Request(prompt="p", config=GenerationConfig(max_tokens=7)))


def test_cache_persists_across_connections(tmp_path):
    k = cache_key("m", Request(prompt="p"))
    c = ResponseCache(tmp_path / "c.sqlite")
    c.put(k, "m", Generation("x"))
    c.close()
    assert ResponseCache(tmp_path / "c.sqlite").get(k).text == "x"


def test_a_cache_path_that_sqlite_cannot_open_is_a_storage_error_naming_it(tmp_path):
    import pytest

    from socialbench.errors import StorageError

    link = tmp_path / "responses.sqlite3"
    link.symlink_to(tmp_path / "missing-folder" / "x.sqlite3")  # dangling: sqlite cannot open it
    with pytest.raises(StorageError) as e:
        ResponseCache(link)
    assert str(link) in str(e.value) and "--no-cache" in str(e.value)


def test_round_trip_keeps_the_reasoning_section(tmp_path):
    c = ResponseCache(tmp_path / "c.sqlite")
    k = cache_key("m", Request(prompt="p"))
    c.put(k, "m", Generation('{"answer": "a"}', Usage(3, 9, 5), reasoning="left is blocked"))
    assert c.get(k) == Generation('{"answer": "a"}', Usage(3, 9, 5), reasoning="left is blocked")


def test_a_cache_file_from_before_reasoning_sections_is_read_and_written(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL, "
        "usage TEXT NOT NULL, created REAL NOT NULL)"
    )
    db.execute("INSERT INTO responses VALUES ('old', 'm', 'x', '{\"prompt_tokens\": 1, \"completion_tokens\": 2}', 0)")
    db.commit()
    db.close()
    c = ResponseCache(path)
    c.put("new", "m", Generation("y", reasoning="r"))
    assert (c.get("old"), c.get("new")) == (Generation("x", Usage(1, 2)), Generation("y", reasoning="r"))
