"""Adapters that gate the tools of agent frameworks with a toolvet host.

Each framework is a module and an optional extra (``pip install 'toolvet[langchain]'``):
``openai_agents``, ``langchain``, ``pydantic_ai``, ``crewai``, ``adk``,
``agent_framework``, ``llamaindex``, ``smolagents`` and ``aisuite``; ``agent_hooks`` is
toolvet as an interceptor of any AGENT-HOOKS-0.1 host. Importing a
module imports its framework. The shared logic (failing closed, remembering plain
verdicts per call, settling approvals on resume: a held call runs only when both the
framework and toolvet's ledger approve it, once) is :mod:`toolvet.integrations._base`.
"""

from ._base import CWD_ATTRIBUTE, DENY_PREFIX, Gate, Ruling, visible

__all__ = ["CWD_ATTRIBUTE", "DENY_PREFIX", "Gate", "Ruling", "visible"]
