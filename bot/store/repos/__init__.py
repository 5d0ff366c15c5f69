"""What is kept per repository: snapshots and cards, list pages, releases, facts, authors."""
