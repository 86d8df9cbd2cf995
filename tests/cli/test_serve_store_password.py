"""`serve --store` takes the Redis password from the environment, never the command line: it is put in
the URL's userinfo, beside a user the URL already names."""

from urllib.parse import urlsplit

from mrtr_studio.cli.serve_store import with_password


def test_the_password_joins_the_user_already_in_the_url() -> None:
    joined = with_password("redis://alice@127.0.0.1:6379/0", "p@ss")
    parts = urlsplit(joined)
    assert (parts.username, parts.password, parts.hostname, parts.port) == ("alice", "p%40ss", "127.0.0.1", 6379)
    assert joined == "redis://alice:p%40ss@127.0.0.1:6379/0"


def test_without_a_user_and_when_one_is_there_already() -> None:
    assert with_password("redis://127.0.0.1:6379/0", "s") == "redis://:s@127.0.0.1:6379/0"
    assert with_password("redis://u:kept@127.0.0.1/0", "other") == "redis://u:kept@127.0.0.1/0"
    assert with_password("redis://127.0.0.1/0", None) == "redis://127.0.0.1/0"
    assert with_password("http://127.0.0.1/0", "s") == "http://127.0.0.1/0"
