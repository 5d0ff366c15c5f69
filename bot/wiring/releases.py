"""The release digests, built from a process's parts: GitHub's release endpoints through the
process's own GitHub client, the range store on its store, and its digest and card services."""

from __future__ import annotations

from bot.releases.digests import ReleaseDigests
from bot.releases.ranges import ReleaseRanges
from bot.store.repos.releases import ReleaseStore
from bot.wiring.process import Process


def release_digests(process: Process) -> ReleaseDigests:
    ranges = ReleaseRanges(process.source.releases(), ReleaseStore(process.kv))
    return ReleaseDigests(ranges, process.digests, process.cards, process.source)
