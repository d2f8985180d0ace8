"""Every kind of variant a run can name, one module a kind, each with its registry,
entry-point group, parameters' models and probe: presentation policies (``policies``),
reputation mechanisms (``mechanisms``), reputation scopes (``scopes``), conditions
(``conditions``), learning rules (``learning``), platform strategies (``strategies``),
attacks that platforms play against the records (``attacks``), how platforms rewrite their
listings (``listing_copy``), payload families
(``payloads``), role backends (``roles``), market measures (``measures``) and LLM providers
(``providers``). ``registry`` is the machinery they share, and ``variants_used`` the walk
that finds every variant a run's settings name.

The catalogue sits below the agents and the market, which read its variants; run-time code
(a market's seats, its memory, the round) lives above it. ``recmarket.api.CATALOGUE`` maps
each kind's name to its registry.
"""

# The classical defences that weigh records by their writers build on the window of
# ``mechanisms`` and register beside the built-ins, whichever module of the catalogue is
# imported first.
#
# Composite attacks ("sybil+camouflage") combine registered attacks, and the built-in ones
# register beside them, likewise.
from recmarket.catalogue import attack_composites, writer_mechanisms  # noqa: F401
