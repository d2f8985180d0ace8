"""Records written after an episode by someone other than its user: a forging platform's fake
users (``market.attacks``: forge, flood, collude) and the oracle mechanism's referee, who knows the
held-out target. Each goes into the episode's memory set and onto the outcome (``written``,
with its source), so a resumed run appends the same records in the same order.
"""

from __future__ import annotations

from recmarket.agents.contracts import ReputationRecord
from recmarket.catalogue.mechanisms import Writer
from recmarket.catalogue.scopes import SCOPES
from recmarket.data.episodes import Request
from recmarket.market.build import DomainMarket, request_key
from recmarket.market.outcome import Outcome
from recmarket.market.reputation import ReputationMemory
from recmarket.market.seats import Strategies
from recmarket.streams import Stream, rng

FORGED_PRAISE = ReputationRecord(
    claim_reliability="high", note="Claims matched my use exactly; it delivered what it said."
)
FORGED_COMPLAINT = ReputationRecord(
    claim_reliability="low", note="It overstated what it delivered; the claims did not hold."
)
# The oracle's records say which way a proposal erred, in words any user agent reads (the
# offline one finds its own direction phrases in them, agents/rules/lexicon.DIRECTIONS, which
# the market does not import: tests/market/test_written.py reads them back): a proposal
# ranked above the wanted item was presented as better than it was; the wanted item, first,
# was presented fairly, and below another, as worse than it was.
ORACLE_LOW = ReputationRecord(
    claim_reliability="low",
    note="Ranked above the item the user wanted: the explanation overstated the fit.",
)
ORACLE_FAIR = ReputationRecord(
    claim_reliability="high",
    note="Offered the item the user wanted, first: the explanation was accurate.",
)
ORACLE_UNDER = ReputationRecord(
    claim_reliability="high",
    note="Offered the item the user wanted, below others: the explanation undersold the item.",
)


def _write(
    o: Outcome,
    memory: ReputationMemory,
    request: Request,
    name: str,
    record: ReputationRecord,
    source: Writer,
) -> None:
    memory.append(request, name, record, source, len(o.written))
    o.written.append((name, record.claim_reliability, record.note, source))


def forge(
    o: Outcome, memory: ReputationMemory, market: DomainMarket, strategies: Strategies
) -> None:
    """Fake-user records the forging seats write after the episode, each after a keyed draw
    of the episode, into its user's memory set where the scope lets strangers write there
    (never under ``local``): praise for the seat (as many records as its forgery says, for
    every seat its owner runs where they collude), then a complaint about its rival."""
    if not SCOPES.get(memory.scope).strangers_write:
        return
    ids = [seat.platform_id for seat in market.seats]
    for index, forgery in market.forgers():
        draw = rng(market.seed, market.domain.name, Stream.FORGE, request_key(o.request), index)
        if draw.random() >= forgery.share:
            continue
        owner = market.seats[index].platform_id
        praised = [
            i
            for i, seat in enumerate(market.seats)
            if i == index or (forgery.owned and seat.owned_by == owner)
        ]
        writes = [(i, FORGED_PRAISE) for i in praised for _ in range(forgery.praise)]
        if forgery.rival is not None:
            writes.append((ids.index(forgery.rival), FORGED_COMPLAINT))
        for seat, record in writes:
            name = strategies.identity(o.request, seat)  # a whitewasher's current name
            _write(o, memory, o.request, name, record, "forged")


def oracle(o: Outcome, memory: ReputationMemory) -> None:
    """The precursor code's referee, who knows the target: where the target was shown, every
    platform ranked above it gets a Low record that says its claim ran over, and every
    platform that showed it a High one, which says its claim was fair where the target came
    first and under where it came below another; where it was not shown, nobody is judged
    (who displaced it is not known). Not one a market could run; whether it bounds an
    outcome-grounded mechanism is what a paired contrast against it shows."""
    shown = [p.item_index for p in o.shown]
    if o.target not in shown:
        return
    first = shown.index(o.target)
    for rank, proposal in enumerate(o.shown):
        if proposal.item_index == o.target:
            record = ORACLE_FAIR if first == 0 else ORACLE_UNDER
            _write(o, memory, o.request, proposal.shown_as, record, "oracle")
        elif rank < first:
            _write(o, memory, o.request, proposal.shown_as, ORACLE_LOW, "oracle")
