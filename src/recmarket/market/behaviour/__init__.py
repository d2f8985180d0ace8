"""Platform behaviour, in one place: how each seat of a market conducts itself.

- ``strategies``: the ``PlatformStrategy`` every seat has (its presentation, the name it
  shows, whether it proposes), the fixed and adaptive kinds of ``market.platform_strategy``
  and the arms an adaptive platform chooses among;
- ``learning``: the learning rules adaptive platforms choose arms with (``market.learning``);
- ``attacks``: behaviours that play against the reputation records (``market.behaviours``:
  bait-and-switch, whitewash, sybil, forge, null);
- ``seats``: the strategies of one domain's market at run time, and the lessons they learn
  in periods.

Each kind is a registry that another package adds to through its entry-point group:
``recmarket.platform_strategies``, ``recmarket.learning_rules`` (formerly
``recmarket.strategies``, still read) and ``recmarket.behaviours``.
"""
