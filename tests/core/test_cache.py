from senso.core.cache import ResponseCache, cache_key


def test_roundtrip_and_persistence(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    key = cache_key("model", [1, 2, 3])
    assert cache.get("loglik", key) is None
    cache.put_many("loglik", {key: [-1.5, -2.0]})
    cache.close()
    again = ResponseCache(path)
    assert again.get("loglik", key) == [-1.5, -2.0]
    assert again.get("other", key) is None
    assert again.hits == 1 and again.misses == 1


def test_disabled_cache_stores_nothing(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite", enabled=False)
    cache.put("x", "k", 1)
    assert cache.get("x", "k") is None
    assert not (tmp_path / "c.sqlite").exists()


def test_key_depends_on_every_part():
    assert cache_key("m", [1, 2]) != cache_key("m", [1, 3])
    assert cache_key("m", [1, 2]) == cache_key("m", [1, 2])
