"""The LLM backend: Appendix C prompt cards, any OpenAI-compatible model per role.

Kept empty of imports so that settings (``agents.llm.config``) load without the OpenAI
SDK: the backend itself is ``agents.llm.backend``.
"""
