"""Scripts run by hand (`python scripts/NAME.py`); a package only so that mypy names them scripts.*."""
