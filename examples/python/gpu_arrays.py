"""A map on the GPU fed by CuPy arrays and PyTorch tensors, without copies,
on the caller's stream; outputs come back in the library that went in.
Exits with 77 (skipped) without CuPy or PyTorch, or without a GPU."""

import sys

import gpuhash

if not gpuhash.cuda_available():
    print("skipped: no CUDA GPU, or gpuhash was built without the CUDA backend")
    sys.exit(77)
try:
    import cupy
    import torch
except ImportError as error:
    print(f"skipped: {error}")
    sys.exit(77)

m = gpuhash.Map(key_dtype="int64", value_dtype="int64", capacity=1 << 22, device="cuda")

# CuPy: on a stream of our own; the map runs on it (CuPy's current stream).
stream = cupy.cuda.Stream(non_blocking=True)
with stream:
    keys = cupy.arange(1, 1 << 20, dtype=cupy.int64)
    statuses = m.insert(keys, keys * 2)  # a CuPy array of gpuhash.Status values
    # CuPy compares arrays with plain Python numbers only, not with an IntEnum: int(...)
    assert isinstance(statuses, cupy.ndarray) and bool((statuses == int(gpuhash.Status.inserted)).all())

# PyTorch: the same map, tensors in and out, on torch's current stream.
queries = torch.tensor([5, -5, 1 << 19], device="cuda")
values, found = m.find(queries)
print(len(m), values[found].tolist(), found.tolist())     # 1048575 [10, 1048576] [True, False, True]
assert isinstance(values, torch.Tensor) and found.tolist() == [True, False, True]
assert values[found].tolist() == [10, 1 << 20]

# A mixed batch: search 5, erase 6, update 7.
ops = torch.tensor([gpuhash.Operation.search, gpuhash.Operation.erase, gpuhash.Operation.update],
                   dtype=torch.uint8, device="cuda")
values, statuses = m.apply(ops, torch.tensor([5, 6, 7], device="cuda"),
                           torch.tensor([0, 0, 70], device="cuda"))
assert [gpuhash.Status(s).name for s in statuses.tolist()] == ["found", "erased", "updated"]
assert values.tolist() == [10, 0, 70]
