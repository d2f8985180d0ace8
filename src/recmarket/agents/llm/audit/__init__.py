"""A model audit: controlled probes with a known right answer for each role a model plays,
read before any market result of that model is (``recmarket llm audit``)."""
