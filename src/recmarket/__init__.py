"""recmarket: a simulator of agentic recommendation markets.

A user states a need to their own user agent, which queries N competing platforms; each
platform retrieves a candidate from its own catalog and explains it under a presentation
policy; the user agent ranks a shortlist of K; the simulated user buys one item or nothing.
"""

__version__ = "0.1.0"
