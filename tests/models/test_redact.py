"""Masking credentials in URLs (socialbench.models.redact)."""

from __future__ import annotations

from socialbench.models.redact import redact, redact_url, scrub, secret_digest, url_secrets

PASSWORD = "hunter2-SECRET"
KEY = "k3y-SECRET-value"


def test_userinfo_password_is_masked_and_user_kept() -> None:
    assert redact_url(f"http://bob:{PASSWORD}@host:8000/v1") == "http://bob:***@host:8000/v1"


def test_userinfo_without_password_is_masked_whole() -> None:
    assert redact_url(f"https://{KEY}@host/v1") == "https://***@host/v1"


def test_every_query_value_is_masked_and_names_kept() -> None:
    url = f"https://host/v1?api-key={KEY}&api-version=2024-06-01&flag"
    assert redact_url(url) == "https://host/v1?api-key=***&api-version=***&***"


def test_fragment_is_masked() -> None:
    assert redact_url(f"https://host/v1#access_token={KEY}") == "https://host/v1#***"


def test_url_without_credentials_is_unchanged() -> None:
    assert redact_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"


def test_comma_separated_urls_are_masked_each() -> None:
    text = f"http://a:{PASSWORD}@n1/v1,http://n2/v1?key={KEY}"
    assert redact_url(text) == "http://a:***@n1/v1,http://n2/v1?key=***"


def test_urls_inside_text_and_containers_are_masked() -> None:
    argv = ["eval", "-m", f"openai:Qwen/Q:7b@http://u:{PASSWORD}@h/v1", "--model-opt", f"base_url=https://h?key={KEY}"]
    out = redact({"argv": argv, "note": f"failed at 'http://h/v1?sig={KEY}' twice"})
    text = repr(out)
    assert PASSWORD not in text and KEY not in text
    assert out["argv"][2] == "openai:Qwen/Q:7b@http://u:***@h/v1"


def test_password_with_at_sign_is_masked_whole() -> None:
    assert PASSWORD not in redact_url(f"http://bob:{PASSWORD}@x@host/v1")


def test_url_secrets_lists_raw_and_decoded_forms() -> None:
    found = url_secrets("http://bob:p%40ss-word@host/v1?api-key=a%2Fb-long")
    assert {"p%40ss-word", "p@ss-word", "a%2Fb-long", "a/b-long"} <= set(found)


def test_scrub_removes_echoed_secrets_from_messages() -> None:
    url = f"http://h/v1?api-key={KEY}"
    message = f"HTTP 401: key {KEY} is not valid for http://h/v1?api-key={KEY}"
    assert KEY not in scrub(message, url_secrets(url))


def test_secret_digest_differs_by_query_and_holds_no_secret() -> None:
    a = secret_digest(f"http://h/v1?api-key={KEY}")
    b = secret_digest("http://h/v1?api-key=other-key")
    assert a and b and a != b and KEY not in a


def test_secret_digest_is_empty_without_credentials() -> None:
    assert secret_digest("http://h:8000/v1") == ""


def test_log_filter_masks_urls_in_http_library_records(caplog) -> None:
    import logging

    from socialbench.models.redact import install_log_redaction

    install_log_redaction(("socialbench.test.http",))
    caplog.set_level(logging.INFO, logger="socialbench.test.http")
    logging.getLogger("socialbench.test.http").info("HTTP Request: POST %s", f"http://h/v1/x?api-key={KEY}")
    assert KEY not in caplog.text and "api-key=***" in caplog.text


def test_log_redaction_covers_child_loggers(caplog) -> None:
    import logging

    from socialbench.models.redact import install_log_redaction

    install_log_redaction(("socialbench.test.parent",))
    caplog.set_level(logging.DEBUG, logger="socialbench.test.parent.http11")
    logging.getLogger("socialbench.test.parent.http11").debug("send %s", f"http://u:{KEY}@h/v1")
    assert KEY not in caplog.text and "u:***@h" in caplog.text
