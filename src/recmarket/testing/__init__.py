"""Test doubles that take the real code paths: an OpenAI-compatible server on loopback."""
