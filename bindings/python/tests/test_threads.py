"""A loaded project is reusable and safe to use from several threads."""

from concurrent.futures import ThreadPoolExecutor


def test_parallel_compiles_equal_serial_ones(example):
    cells = example.cells()
    serial = [example.compile(**c.options).prompt for c in cells]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            parallel = list(pool.map(lambda c: example.compile(**c.options).prompt, cells))
            assert parallel == serial


def test_parallel_reports_and_freezes(example):
    with ThreadPoolExecutor(max_workers=4) as pool:
        reports = list(pool.map(lambda p: example.report(profile=p, provider="openai"), ["lite", "standard"] * 3))
    assert reports[0] == reports[2] == reports[4]
    assert reports[1] == reports[3] == reports[5]
    with ThreadPoolExecutor(max_workers=4) as pool:
        records = list(pool.map(lambda _: example.freeze(profile="lite", nonce="abcd1234"), range(4)))
    assert all(r == records[0] for r in records)
