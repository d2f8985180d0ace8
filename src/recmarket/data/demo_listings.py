"""The listings of the synthetic demo domains: items (type, brand, attributes, latent
quality, kind), their titles and their meta records in the official format.

Titles are what the offline model reads most (a request names the target's kind and some
attributes; fit compares a need with titles), so they are built to be as distinctive as
real ones where that matters: real catalogs name thousands of kinds, most once, carry
hundreds of brands, model codes and part numbers, and list a few products as several
near-identical variants. ``scripts/measure_data_realism.py`` puts the result beside the
real samples.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np

from recmarket.data.demo_vocabulary import (
    ATTRIBUTES,
    BRANDS,
    KIND_MODIFIERS,
    MAIN_CATEGORY,
    NAME_SYLLABLES,
    PACKS,
    SELLING_WORDS,
    TIERS,
    TYPES,
    USES,
)
from recmarket.streams import Stream, rng

DOMAINS = tuple(TYPES)
_ALNUM = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
# How distinctive titles are, set so that distinct title words per item, near-duplicate
# titles per 1,000 items and the share of pools whose target is the best fit come near the
# real samples' (scripts/measure_data_realism.py): how many brands and how common the
# common ones are, how common a type's common kind modifiers are, the shares of items with
# a product line and with a part number, and the share that are variants of a listing.
BRAND_COUNT = 600
BRAND_EXPONENT = 1.0
MODIFIER_EXPONENT = 0.8
LINE_SHARE = 0.8
PART_NUMBER_SHARE = 0.8
VARIANT_SHARE = 0.025


@dataclass(frozen=True)
class ProductType:
    """A kind of product in the demo market: its name, subcategory and the dimensions its
    listings vary in."""

    name: str
    subcategory: str
    dimensions: tuple[str, ...]


@dataclass(frozen=True)
class DemoItem:
    """One demo listing before it is written: its id, kind, brand and a value per dimension."""

    asin: str
    ptype: int
    brand: str
    values: tuple[str, ...]
    quality: float
    modifier: str  # first word of the item's kind: "shimmer" in "Reverb Shimmer Pedal"
    line: str  # a product line ("" for none)
    code: str  # the model code every listing carries
    layout: int  # seeds the title's layout, shared by variants of one listing

    def kind(self, ptype: ProductType) -> str:
        """The item's kind: its modifier and its type's noun."""
        return " ".join(w for w in (self.modifier, ptype.name.split()[-1]) if w)


@cache
def product_types(domain: str) -> tuple[ProductType, ...]:
    types = []
    for line in TYPES[domain].strip().splitlines():
        name, sub, dims = (part.strip() for part in line.split("|"))
        types.append(ProductType(name, sub, tuple(d.strip() for d in dims.split(","))))
    return tuple(types)


def random_code(gen: np.random.Generator, prefix: str, length: int) -> str:
    """``prefix`` and ``length`` random letters and digits (model numbers, ids)."""
    return prefix + "".join(gen.choice(_ALNUM, size=length))


def _zipf(n: int, exponent: float) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1) ** exponent
    return weights / weights.sum()


def _name(gen: np.random.Generator) -> str:
    syllables = gen.choice(NAME_SYLLABLES.split(), size=int(gen.integers(2, 4)))
    return "".join(syllables).capitalize()


@cache
def brand_pool(domain: str) -> tuple[str, ...]:
    """The domain's hand-written brands first (the most common), then made-up ones: real
    catalogs hold hundreds of brands, most seen once or twice."""
    gen = rng(0, domain, Stream.DEMO_DATA)
    made = {_name(gen) for _ in range(BRAND_COUNT)} - set(BRANDS[domain])
    return (*BRANDS[domain], *sorted(made))


def type_sizes(n_types: int, per_type: int, gen: np.random.Generator) -> np.ndarray:
    """Items per product type, heavy-tailed like real catalogs (a few kinds hold many
    items, most hold few): lognormal shares with sd 1, at least three items each."""
    shares = gen.lognormal(0.0, 1.0, size=n_types)
    return np.maximum(3, np.round(per_type * n_types * shares / shares.sum())).astype(int)


def _variant(item: DemoItem, ptype: ProductType, gen: np.random.Generator) -> DemoItem:
    """Another listing of the same product: one attribute (a colour, a size) differs."""
    k = int(gen.integers(len(ptype.dimensions)))
    values = list(item.values)
    values[k] = str(gen.choice(ATTRIBUTES[ptype.dimensions[k]]))
    return replace(item, values=tuple(values), quality=item.quality + float(gen.normal(0, 0.1)))


def make_items(domain: str, per_type: int, gen: np.random.Generator) -> list[DemoItem]:
    """``per_type`` distinct listings of every product kind of the domain, brands drawn by
    popularity."""
    items: list[DemoItem] = []
    seen: set[str] = set()
    types = product_types(domain)
    brands = brand_pool(domain)
    brand_weights = _zipf(len(brands), BRAND_EXPONENT)
    modifiers = KIND_MODIFIERS[domain].split()
    for t, (ptype, size) in enumerate(
        zip(types, type_sizes(len(types), per_type, gen), strict=True)
    ):
        own = [str(m) for m in gen.permutation(modifiers) if m not in ptype.name.lower().split()]
        modifier_weights = _zipf(len(own), MODIFIER_EXPONENT)
        first, variants = len(items), round(size * VARIANT_SHARE)
        for n in range(size):
            asin = random_code(gen, "B0", 8)
            while asin in seen:
                asin = random_code(gen, "B0", 8)
            seen.add(asin)
            if n >= size - variants:  # the type's last few listings vary an earlier one
                parent = items[first + int(gen.integers(len(items) - first))]
                items.append(replace(_variant(parent, ptype, gen), asin=asin))
                continue
            values = tuple(str(gen.choice(ATTRIBUTES[d])) for d in ptype.dimensions)
            brand = str(brands[gen.choice(len(brands), p=brand_weights)])
            code = (
                random_code(gen, str(gen.choice(_ALNUM[:26])), 1) + "-" + str(gen.integers(10, 999))
            )
            line = _name(gen) if gen.random() < LINE_SHARE else ""
            modifier = own[gen.choice(len(own), p=modifier_weights)]
            layout = int(gen.integers(2**31))
            quality = float(gen.normal())
            items.append(DemoItem(asin, t, brand, values, quality, modifier, line, code, layout))
    return items


def demo_title(domain: str, item: DemoItem, tier: str) -> str:
    """A listing title built the way real ones vary: brand, sometimes a product line, the
    model code, sometimes a tier or a selling word, the product type with some attributes in
    the head (mostly before it, as in "Regular Slinky Nickel Wound Electric Guitar Strings";
    sometimes after it, so the kind a title seems to name varies as it does on Amazon), the
    item's kind closing the type ("Reverb Shimmer Pedal"), the remaining attributes in
    segments with mixed separators, sometimes a use, a pack size and a part number. The
    layout is drawn from the item's own seed, so variants of one listing read alike."""
    gen = np.random.default_rng(item.layout)
    ptype = product_types(domain)[item.ptype]
    head = [item.brand, *([item.line] if item.line else [])]
    if gen.random() < 0.6:
        head.append(tier)
    head.append(item.code)
    if gen.random() < 0.4:
        head.append(str(gen.choice(SELLING_WORDS)))
    order = [int(k) for k in gen.permutation(len(item.values))]
    before: list[str] = []
    after: list[str] = []
    rest: list[str] = []
    placing = True
    for k in order:  # attributes in the head, mostly before the kind
        placing = placing and gen.random() < 0.6
        if placing:
            (before if gen.random() < 0.8 else after).append(item.values[k].title())
        else:
            rest.append(item.values[k])
    *prefix, noun = ptype.name.split()
    kind = " ".join([*prefix, item.modifier, noun]).title()
    head += [*before, kind, *after]
    title = " ".join(head)
    if rest:
        separator = str(gen.choice([", ", " - ", " | "], p=[0.6, 0.3, 0.1]))
        title += separator + ", ".join(rest)
    if gen.random() < 0.5:
        title += f" for {str(gen.choice(USES[domain])).title()}"
    if gen.random() < 0.3:
        title += f" ({gen.choice(PACKS).format(n=int(gen.integers(2, 7)))})"
    if gen.random() < PART_NUMBER_SHARE:
        title += f" ({int(gen.integers(10_000, 100_000))})"
    return title


def meta_record(domain: str, item: DemoItem, gen: np.random.Generator) -> dict[str, Any]:
    """A demo listing as the official meta files hold one: title, features, description,
    price and rating."""
    ptype = product_types(domain)[item.ptype]
    tier = str(gen.choice(TIERS))
    title = demo_title(domain, item, tier)
    features = [
        f"{d.capitalize()}: {v}" for d, v in zip(ptype.dimensions, item.values, strict=True)
    ]
    if gen.random() < 0.6:
        features.append(f"Designed for {gen.choice(USES[domain])}")
    description: list[str] = []
    if gen.random() < 0.65:  # real descriptions are often empty
        use = gen.choice(USES[domain])
        description = [
            f"The {item.brand} {tier} {ptype.name} is made for {use}.",
            f"It comes in {item.values[0]} with {item.values[-1]} {ptype.dimensions[-1]}.",
        ]
    rating = float(np.clip(round(4.1 + 0.45 * item.quality + gen.normal(0, 0.15), 1), 1, 5))
    categories = (
        []
        if gen.random() < 0.15
        else [MAIN_CATEGORY[domain], ptype.subcategory, ptype.name.title()]
    )
    return {
        "main_category": MAIN_CATEGORY[domain],
        "title": title,
        "average_rating": rating,
        "rating_number": int(gen.lognormal(4.0, 1.2)) + 1,
        "features": features,
        "description": description,
        "price": round(float(gen.lognormal(3.2, 0.6)), 2) if gen.random() < 0.8 else None,
        "images": [],
        "videos": [],
        "store": item.brand,
        "categories": categories,
        "details": dict(zip((d.title() for d in ptype.dimensions), item.values, strict=True)),
        "parent_asin": item.asin,
        "bought_together": None,
    }
