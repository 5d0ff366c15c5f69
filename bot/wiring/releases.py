"""The release digests, built from a process's parts: GitHub's release endpoints through the
process's own GitHub client, the range store on its store, and its digest and card services."""

from __future__ import annotations

from bot.services.release_ranges import ReleaseRanges
from bot.services.releases import ReleaseDigests
from bot.store.releases import ReleaseStore
from bot.wiring.process import Process


def release_digests(process: Process) -> ReleaseDigests:
    ranges = ReleaseRanges(process.source.releases(), ReleaseStore(process.kv))
    return ReleaseDigests(ranges, process.digests, process.cards, process.source)
