"""Inbound HTTP: the server under `prdigest serve`, the install gate and GitHub's webhook."""
