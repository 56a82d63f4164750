"""gpuhash.Map of embedding rows: int64 ids to 32 float32 each, read and
written in place, on the CPU with NumPy (device="cuda" takes CuPy arrays or
PyTorch tensors of the same shapes), and 16-byte keys."""

import numpy as np

import gpuhash

dim = 32
table = gpuhash.Map(key_dtype="int64", value_dtype=("float32", dim), design="linear_probing",
                    device="cpu")
ids = np.array([3, 17, 42], dtype=np.int64)
rows = np.random.default_rng(7).standard_normal((3, dim)).astype(np.float32)
table.insert_or_assign(ids, rows)                    # one row of 32 float32 per id

got, found = table.find(np.array([17, 5], dtype=np.int64))
print(got.shape, found)                              # (2, 32) [ True False]

# 16-byte keys: numpy.dtype("V16"), or rows of two uint64 in any library.
pairs = gpuhash.Map(key_dtype=("uint64", 2), value_dtype="float32", design="hashgraph")
pairs.insert(np.array([[1, 2], [2, 1]], dtype=np.uint64), np.array([0.5, 1.5], np.float32))
values, found = pairs.find(np.array([[2, 1]], dtype=np.uint64))
print(values, found)                                 # [1.5] [ True]

assert found.all() and np.array_equal(table.find(ids)[0], rows)
assert gpuhash.designs("int64", ("float32", dim)) == ["linear_probing", "hashgraph"]
