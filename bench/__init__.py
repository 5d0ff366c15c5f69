"""prdigest's benchmark: `make bench` (or `python -m bench`) prints a table of figures, each
next to the lower bound it is compared with and its target. Not part of the shipped package."""
