"""`python -m bot.cli`: the same as the `prdigest` console script."""

from bot.cli.main import run

if __name__ == "__main__":
    run()
