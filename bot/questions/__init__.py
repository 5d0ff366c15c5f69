"""Questions about PRs: which PR is meant, the reading of what is asked, and the answer in a
thread, a DM or the terminal.
"""
