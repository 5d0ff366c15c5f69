"""Snapshots and cards are kept compressed (store/codec.py), and a value written before
compression is still read: an upgrade finds every cached card and snapshot. A snapshot whose
patches were cut for storing is marked apart, so that code from before the cut never reads it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bot.core.prompting.patch_cut import cut_patches
from bot.models import Card, Coverage, Window
from bot.store import codec
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore, merged_key, snapshot_key
from tests.unit.builders import MERGED_AT, make_file, make_listing, make_snapshot

SNAPSHOT = make_snapshot([(f"vllm/model_executor/layers/m{n}.py", 40 + n, 3) for n in range(40)], title="Faster MoE")
CARD = Card("Faster MoE", "read", 9, ("It fuses the kernels.",) * 8, ("No test.",), (), "llm", Coverage(40, 40))


def test_a_large_value_is_kept_compressed_and_read_back_whole() -> None:
    stored = codec.dump_snapshot(SNAPSHOT)
    plain = codec.unpacked(stored)
    assert stored.startswith(codec.ZLIB_MARKER) and isinstance(plain, bytes)
    assert len(stored) * 3 < len(plain)
    assert codec.load_snapshot(stored) == SNAPSHOT
    assert codec.load_card(codec.dump_card(CARD)) == CARD


def test_a_value_written_before_compression_is_still_read() -> None:
    # What an older version stored: the JSON as it is, without the marker.
    assert codec.load_snapshot(codec.unpacked(codec.dump_snapshot(SNAPSHOT)) or b"") == SNAPSHOT
    assert codec.load_card(codec.unpacked(codec.dump_card(CARD)) or b"") == CARD


def test_a_small_value_stays_json_and_a_broken_one_is_a_miss() -> None:
    small = b'{"a": 1}'
    assert codec.packed(small) == small
    assert codec.load_snapshot(codec.ZLIB_MARKER + b"not zlib") is None
    assert codec.load_card(codec.ZLIB_MARKER + b"not zlib") is None


def test_the_card_store_reads_what_it_wrote_and_what_an_older_version_wrote() -> None:
    kv = MemoryKV()
    store = CardStore(kv)
    store.put_snapshot(SNAPSHOT)
    revision = store.get_revision(SNAPSHOT.ref)
    assert revision is not None and store.get_snapshot(SNAPSHOT.ref, revision) == SNAPSHOT
    older = codec.unpacked(codec.dump_snapshot(SNAPSHOT))
    assert isinstance(older, bytes)
    kv.set(snapshot_key(SNAPSHOT.ref, "older"), older, None)
    assert store.get_snapshot(SNAPSHOT.ref, "older") == SNAPSHOT


CUT = cut_patches(make_snapshot([make_file("vllm/big.py", 9000, 0, hunks=300)], title="Bigger"), 2000)


def test_a_snapshot_with_cut_patches_is_marked_apart_and_read_back_as_cut() -> None:
    assert CUT.files[0].cut is not None
    stored = codec.dump_snapshot(CUT)
    assert stored.startswith(codec.CUT_MARKER) and not stored.startswith(codec.ZLIB_MARKER)
    assert codec.load_snapshot(stored) == CUT
    kv = MemoryKV()
    store = CardStore(kv)
    store.put_snapshot(CUT)
    revision = store.get_revision(CUT.ref)
    assert revision is not None and store.get_snapshot(CUT.ref, revision) == CUT


def test_code_from_before_the_cut_finds_no_value_it_could_take_for_whole_patches() -> None:
    # It read ZLIB_MARKER's values and plain JSON, and ignored fields it did not know.
    stored = codec.dump_snapshot(CUT)
    assert not stored.startswith(codec.ZLIB_MARKER)
    with pytest.raises(ValueError):
        json.loads(stored)


def test_a_window_s_listings_are_kept_compressed_and_ones_kept_before_as_json_are_still_read() -> None:
    kv = MemoryKV()
    store = CardStore(kv)
    window = Window(MERGED_AT, MERGED_AT + timedelta(days=1))
    listings = [make_listing(number=n, title=f"Faster kernel {n}") for n in range(30)]
    store.put_merged("acme/widgets", window, listings)
    stored = kv.get(merged_key("acme/widgets", window))
    assert stored is not None and stored.startswith(codec.ZLIB_MARKER)
    assert store.get_merged("acme/widgets", window) == listings
    plain = codec.unpacked(stored)
    assert isinstance(plain, bytes)
    kv.set(merged_key("acme/widgets", window), plain, 60)
    assert store.get_merged("acme/widgets", window) == listings
