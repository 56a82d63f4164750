"""gpuhash.StringMap: word counts keyed by the words themselves, on the CPU
with NumPy (device="cuda" takes CuPy arrays or PyTorch tensors)."""

import numpy as np

import gpuhash

text = "the quick brown fox jumps over the lazy dog the end"
words = text.split()
counts = gpuhash.StringMap(value_dtype="uint32", device="cpu")
distinct = sorted(set(words))
counts.insert(distinct, np.array([words.count(w) for w in distinct], dtype=np.uint32))

values, found = counts.find(["the", "fox", "cat"])   # lists of str or bytes, 'S'/'U' arrays
print(len(counts), values[found], found)             # 9 [3 1] [ True  True False]

# Arrow's layout, read in place: n + 1 offsets into one array of bytes.
data = np.frombuffer(b"dogend", dtype=np.uint8)
offsets = np.array([0, 3, 6], dtype=np.int32)
values, found = counts.find((offsets, data))
print(values, found)                                 # [1 1] [ True  True]

assert found.all() and "lazy" in counts and b"cat" not in counts
assert dict(zip(*counts.items()))[b"the"] == 3
