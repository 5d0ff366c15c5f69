"""Personal watches: the PRs a person's paths and words match, and their daily DM."""
