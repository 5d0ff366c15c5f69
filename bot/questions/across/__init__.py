"""Questions across days: the PRs of a span that fit what was asked, found and counted by code,
with the model's summary above them.
"""
