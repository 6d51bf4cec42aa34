"""Adapters that gate the tools of agent frameworks with a toolvet host.

Each framework is a module and an optional extra (``pip install 'toolvet[langchain]'``):
``openai_agents``, ``langchain``, ``pydantic_ai``, ``crewai``, ``adk``,
``agent_framework``, ``llamaindex``, ``smolagents`` and ``aisuite``. Importing a
module imports its framework. The shared logic (failing closed, caching verdicts
per call, settling approvals on resume) is :mod:`toolvet.integrations._base`.
"""

from ._base import DENY_PREFIX, Gate, Ruling

__all__ = ["DENY_PREFIX", "Gate", "Ruling"]
