"""The README's Python example: a map on the CPU with NumPy arrays."""

import numpy as np

import gpuhash

m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64", capacity=1 << 20,
                design="bucketed_cuckoo", device="cpu")
keys = np.arange(1, 1_000_001, dtype=np.uint64)
statuses = m.insert(keys, keys * 10)                 # one gpuhash.Status per key
values, found = m.find(np.array([7, 0, 2_000_000], dtype=np.uint64))
print(len(m), values[found], found)                  # 1000000 [70] [ True False False]

assert np.all(statuses == gpuhash.Status.inserted)
assert found.tolist() == [True, False, False] and values[0] == 70
