"""Operation families: the distributed algorithms that chapter modules call."""
