"""The `prdigest` command line: arguments in, one line per error out; each command a few feature calls."""
