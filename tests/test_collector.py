"""The cyclic collector during a command (workbench/collector.py)."""

from __future__ import annotations

import gc

import pytest

from workbench import collector


class _Record:
    """A container the collector tracks (a plain object with a dictionary)."""

    def __init__(self, n: int) -> None:
        self.n = n


def test_outside_a_command_loading_leaves_the_collector_alone() -> None:
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    with collector.loading():
        assert gc.isenabled()  # a library call never pauses the caller's collector
        held = [_Record(n) for n in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() == frozen  # nothing a caller drops stays
    assert len(held) == 1000


def test_in_a_command_what_is_loaded_is_frozen_until_the_command_ends() -> None:
    assert gc.get_freeze_count() == 0
    with collector.batch():
        with collector.loading():
            assert not gc.isenabled()  # paused while the run's state is read
            held = [_Record(n) for n in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() >= len(held)
        with collector.batch():  # a command inside a command gives nothing back early
            pass
        assert gc.get_freeze_count() >= len(held)
    assert gc.get_freeze_count() == 0


def test_a_collector_the_caller_turned_off_stays_off_and_nothing_is_frozen() -> None:
    gc.disable()
    try:
        with collector.batch(), collector.loading():
            _Record(1)
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_a_loader_that_fails_gives_the_collector_back() -> None:
    with collector.batch():
        with pytest.raises(ValueError), collector.loading():
            raise ValueError("a record that does not parse")
        assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_a_cycle_made_after_loading_is_still_collected() -> None:
    """Only what a `loading()` block left tracked is frozen: garbage made later is found."""
    with collector.batch():
        with collector.loading():
            pass
        a, b = _Record(1), _Record(2)
        a.other, b.other = b, a  # type: ignore[attr-defined]
        del a, b
        assert gc.collect() >= 2


def test_a_command_gives_back_only_what_it_froze() -> None:
    """A caller that froze its own objects before a command finds them frozen after it."""
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with collector.batch():
            pass  # no loader ran: nothing of the command's to give back
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
