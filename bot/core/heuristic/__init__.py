"""The rules of a card made without a model: the PR's shape, its signals, the verdict, its reasons
and its headline, without words (cards/heuristic/ words the card in the reader's language)."""
