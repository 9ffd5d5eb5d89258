"""The collector is off while planning and as it was afterwards, whatever happens."""

import gc

import pytest

from gridd.collector import held_off


def test_off_inside_and_back_on_after_even_on_error() -> None:
    assert gc.isenabled()
    with held_off():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), held_off():
        raise RuntimeError("planning bug")
    assert gc.isenabled()


def test_left_off_when_somebody_else_turned_it_off() -> None:
    gc.disable()
    try:
        with held_off():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
