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


def test_an_untitled_listing_is_titled_from_its_other_fields() -> None:
    """One policy for untitled listings: a title from the first feature bullet, else the
    description's first sentence, cut to a title's length, else the category; the listing
    says it had none, and its evidence and every history read the described title."""
    bullet = "Heavy duty steel hooks for hanging tools in a garage or shed, set of twelve"
    item = parse_item(meta("B1", title="", features=[bullet], description=["Strong. Rust free."]))
    assert item.untitled and item.shown_title == " ".join(bullet.split()[:12])
    assert item.evidence.title == item.shown_title
    described = parse_item(meta("B1", title=" ", features=[], description=["Strong hooks. Free."]))
    assert described.shown_title == "Strong hooks"
    bare = parse_item(
        meta("B1", title="", features=[], description=[], categories=["Tools", "Hooks"])
    )
    assert bare.shown_title == "Hooks item"
    titled = parse_item(meta("B1", title="Steel Hooks"))
    assert not titled.untitled and titled.shown_title == titled.evidence.title == "Steel Hooks"
