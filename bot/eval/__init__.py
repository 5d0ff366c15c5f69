"""`prdigest eval`: cards and answers measured against labelled PRs, one row per model."""
