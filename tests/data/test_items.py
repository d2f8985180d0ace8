from recmarket.data.items import parse_item
from tests.fixtures import meta


def test_evidence_uses_joined_description_and_category_path() -> None:
    item = parse_item(
        meta(
            "B1",
            description=["First part.", "Second part."],
            categories=["Musical Instruments", "Strings"],
        )
    )
    ev = item.evidence
    assert ev.description == "First part. Second part."
    assert ev.description_source == "description"
    assert ev.category == "Musical Instruments > Strings"


def test_empty_description_falls_back_to_features_then_details() -> None:
    ev = parse_item(meta("B1", description=[], features=["Gauge: light", "Nickel"])).evidence
    assert (ev.description, ev.description_source) == ("Gauge: light; Nickel", "features")
    ev = parse_item(
        meta("B1", description=[], features=[], details={"Color": "red", "Size": None})
    ).evidence
    assert (ev.description, ev.description_source) == ("Color: red", "details")
    ev = parse_item(meta("B1", description=[], features=[], details={})).evidence
    assert (ev.description, ev.description_source) == ("", "none")


def test_category_falls_back_to_main_category_and_quirky_prices_parse() -> None:
    item = parse_item(meta("B1", categories=[], main_category="AMAZON FASHION", price="None"))
    assert item.evidence.category == "AMAZON FASHION"
    assert item.price is None
    assert parse_item(meta("B1", price="$1,299.50")).price == 1299.5


def test_records_without_id_or_title_are_rejected_with_reason() -> None:
    assert parse_item({"title": "x"}) == "missing required field: parent_asin"
    assert parse_item({"parent_asin": "B1"}) == "missing required field: title"
