"""The report's compact episode rows read like the stored dicts, in a fraction of the memory."""

import gc
import tracemalloc

from recmarket.analysis.records import fingerprint
from recmarket.report.data import compact_rows


def stored(n: int) -> list[dict]:
    """Rows shaped like the store's: labels repeated in value but each row's own object (as
    sqlite returns them), a unique id and note, flags, numbers."""

    def text(*parts: str) -> str:
        return "_".join(parts)  # a new object each call

    return [
        {
            "domain": text("Video", "Games"),
            "ord": i,
            "episode_id": f"Video_Games/USER{i:024d}",
            "profile": text("transactional", "direct") if i % 2 else text("exploratory"),
            "condition": text("local", "rep"),
            "top1_policy": text("exaggeration") if i % 3 else None,
            "purchased_policy": text("strict") if i % 3 else None,
            "rep_label": text("high") if i % 4 else text("low"),
            "top1_platform": text("P", str(i % 6)),
            "target_purchased": bool(i % 2),
            "regret": i / 7,
            "rep_note": f"Item {i}: the claim about its battery held up.",
        }
        for i in range(n)
    ]


def test_compact_rows_read_as_the_stored_dicts_with_the_extra_columns() -> None:
    rows = stored(50)
    compact = compact_rows(rows, {"replicate": 43})
    assert [dict(r) for r in compact] == [{**r, "replicate": 43} for r in rows]
    assert compact[7]["regret"] == 1.0 and compact[7].get("missing", "none") == "none"
    assert {**compact[3], "x": 1}["ord"] == 3
    assert fingerprint(compact) == fingerprint([{**r, "replicate": 43} for r in rows])
    assert compact_rows([], {"replicate": 1}) == []


def test_short_texts_are_one_object_and_rows_take_under_half_the_memory() -> None:
    rows = stored(2000)
    compact = compact_rows(rows, {"replicate": 1})
    assert compact[0]["profile"] is compact[2]["profile"]  # one object, however many rows

    def held(make) -> int:
        gc.collect()
        tracemalloc.start()
        made = make()
        gc.collect()  # what the making left for the collector is not what the rows hold
        size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del made
        return size

    as_dicts = held(lambda: [{**r, "replicate": 1} for r in stored(2000)])
    as_compact = held(lambda: compact_rows(stored(2000), {"replicate": 1}))
    assert as_compact < 0.5 * as_dicts
