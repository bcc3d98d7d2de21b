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
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL, usage TEXT NOT NULL, created REAL NOT NULL)"
    )
    db.execute("INSERT INTO responses VALUES ('old', 'm', 'x', '{\"prompt_tokens\": 1, \"completion_tokens\": 2}', 0)")
    db.commit()
    db.close()
    c = ResponseCache(path)
    c.put("new", "m", Generation("y", reasoning="r"))
    assert (c.get("old"), c.get("new")) == (Generation("x", Usage(1, 2)), Generation("y", reasoning="r"))


# ----------------------------------------------------------------- unusable entries (issue 29)
import logging  # noqa: E402
import sqlite3  # noqa: E402

import pytest  # noqa: E402

from socialbench.runner.cache import entry_problem  # noqa: E402


def _store_raw(path, key, text, usage):
    db = sqlite3.connect(str(path))
    db.execute(
        "INSERT OR REPLACE INTO responses (key, model, text, usage, created) VALUES (?, 'm', ?, ?, 0)",
        (key, text, usage),
    )
    db.commit()
    db.close()


def _cache_warnings(caplog):
    return [r for r in caplog.records if r.name == "socialbench.runner.cache" and r.levelno == logging.WARNING]


@pytest.mark.parametrize(
    "text, usage",
    [
        ("hello", "{bad"),  # usage not JSON
        ("hello", "[1, 2]"),  # usage not an object
        ("hello", '{"prompt_tokens": "3"}'),  # a count that is text
        ("hello", '{"prompt_tokens": -1}'),  # a negative count
        ("hello", '{"cost": 1}'),  # a field Usage does not have
        ("hello", 7),  # usage column holding an integer
        (42, "{}"),  # text column holding an integer
        (b"\x00\x01", "{}"),  # text column holding a blob
    ],
)
def test_an_entry_with_wrong_column_types_is_a_miss(tmp_path, text, usage):
    path = tmp_path / "c.sqlite"
    db = sqlite3.connect(str(path))  # columns without a declared type keep what is stored
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model, text, usage, created, reasoning)")
    db.close()
    _store_raw(path, "k", text, usage)
    assert ResponseCache(path).get("k") is None


def test_unusable_entries_are_logged_once_not_per_question(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    ResponseCache(path).close()
    for i in range(5):
        _store_raw(path, f"k{i}", "hello", "{bad")
    cache = ResponseCache(path)
    with caplog.at_level(logging.WARNING):
        assert all(cache.get(f"k{i}") is None for i in range(5))
    (warning,) = _cache_warnings(caplog)
    assert str(path) in warning.getMessage() and "dataset" not in warning.getMessage()
    assert cache.errors == 5


def test_an_unusable_entry_is_replaced_by_the_next_answer(tmp_path):
    path = tmp_path / "c.sqlite"
    ResponseCache(path).close()
    _store_raw(path, "k", "stale", "{bad")
    cache = ResponseCache(path)
    cache.put("k", "m", Generation("fresh", Usage(1, 2)))
    assert cache.get("k") == Generation("fresh", Usage(1, 2))


def test_entry_problem_accepts_what_put_writes():
    assert entry_problem("x", '{"prompt_tokens": 3, "completion_tokens": 4, "reasoning_tokens": 1}') is None


def test_a_table_without_the_cache_columns_turns_the_cache_off_with_one_warning(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    db = sqlite3.connect(str(path))
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, answer TEXT)")
    db.execute("INSERT INTO responses VALUES ('k', 'x')")
    db.commit()
    db.close()
    with caplog.at_level(logging.WARNING):
        cache = ResponseCache(path)
        cache.put("k", "m", Generation("x"))
        assert cache.get("k") is None
    assert cache._off
    (warning,) = _cache_warnings(caplog)
    assert "text, usage" in warning.getMessage() and "--no-cache" in warning.getMessage()


def test_the_default_wait_for_a_lock_is_short():
    from socialbench.runner.cache import LOCK_WAIT_S

    assert 0 < LOCK_WAIT_S <= 2


def test_a_cache_another_process_keeps_locked_is_left_after_one_bounded_wait(tmp_path, caplog):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path, lock_wait_s=0.05)
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another writer holds the write lock
    try:
        with caplog.at_level(logging.WARNING):
            for i in range(3):
                cache.put(f"k{i}", "m", Generation("x"))
                assert cache.get(f"k{i}") is None
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert cache._off and cache.errors == 1  # one wait, then no more tries
    (warning,) = _cache_warnings(caplog)
    assert "locked" in warning.getMessage() and "goes on without it" in warning.getMessage()


def test_the_busy_timeout_is_the_bounded_wait(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite", lock_wait_s=0.25)
    assert cache._db.execute("PRAGMA busy_timeout").fetchone()[0] == 250
