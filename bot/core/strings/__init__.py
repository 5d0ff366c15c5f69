"""Text as it comes in: cleaning and token estimates, patterns, spelling, values typed, globs."""
