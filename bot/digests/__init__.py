"""A channel's digest of a day: the window's merged PRs, filtered, carded, ordered, and posted once."""
