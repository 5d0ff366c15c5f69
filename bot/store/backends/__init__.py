"""The KV port's backends: Redis, one SQLite file (its user's alone), and memory."""
