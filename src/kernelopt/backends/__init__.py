"""Planner and implementer backends (rules, agent-cli, llm-api): protocol, registry, implementations."""
