"""A PR's card: its snapshot read from GitHub once, the card written once (by the model or the
rules), stored for every surface.
"""
