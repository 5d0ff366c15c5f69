"""Workspaces: each installed workspace's parts, its installs, and the model tokens it may spend."""
