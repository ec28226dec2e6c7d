"""gpu-wiki: the built-in knowledge base (technique, pitfall and hardware records), search and lookup."""
