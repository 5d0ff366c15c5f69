"""Releases: a release's PRs by area, what to know before upgrading, posted once where channels asked."""
