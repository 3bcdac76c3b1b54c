"""The tinygrad backend's row builder (backends/tinygrad/python/tl_row_builder.py), as Python against
the pinned tinygrad on DEV=PYTHON: a roster tensor is built with the shape the roster declares,
whatever its dtype and source, empty dimensions included."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "backends" / "tinygrad" / "python"))

import tl_row_builder  # noqa: E402

# Every dtype a roster may name (harness/model/dtype.cpp), numpy's spelling.
DTYPES = [
    "float32", "float16", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool",
]

# A zero anywhere: `Tensor(array.tolist())` keeps only the dimensions before the first zero.
SHAPES = [[2, 0, 3], [0, 3], [3, 0], [0], [1, 0, 1, 4]]


@pytest.mark.parametrize("source", ["list", "ndarray"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_an_empty_tensor_has_the_declared_shape(dtype, source):
    for shape in SHAPES:
        built = tl_row_builder.tensor_of({"name": "x", "dtype": dtype, "shape": shape, "values": [], "source": source})
        assert built.shape == tuple(shape), f"{dtype} {source} {shape}"


@pytest.mark.parametrize("source", ["list", "ndarray"])
def test_a_sum_over_an_empty_axis_keeps_the_other_axis(source):
    x = tl_row_builder.tensor_of({"name": "x", "dtype": "float32", "shape": [0, 3], "values": [], "source": source})
    assert x.sum(axis=0).numpy().tolist() == [0.0, 0.0, 0.0]


def test_a_tensor_with_values_keeps_its_shape():
    built = tl_row_builder.tensor_of(
        {"name": "x", "dtype": "int32", "shape": [2, 1, 2], "values": [1, 2, 3, 4], "source": "list"})
    assert built.shape == (2, 1, 2)
    assert built.numpy().tolist() == [[[1, 2]], [[3, 4]]]
