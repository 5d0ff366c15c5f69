"""Unfurls: a pasted PR link answered with its card."""
