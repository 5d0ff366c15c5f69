"""The rules of a card made without a model: the PR's shape, its signals, the verdict and its reasons."""
