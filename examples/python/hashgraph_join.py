"""A hash join with HashGraph's static map: build it once on a dimension
table's keys, then probe it with a fact table's foreign keys."""

import numpy as np

import gpuhash

rng = np.random.default_rng(7)
product_ids = rng.permutation(np.arange(10_000, 20_000, dtype=np.uint32))
prices = (product_ids % 97 + 1).astype(np.uint32)
sales = rng.integers(9_000, 20_000, size=100_000).astype(np.uint32)   # some ids are unknown

index = gpuhash.HashGraphMap.build(product_ids, prices)              # on the keys' device: the CPU
price, known = index.find(sales, probe="binned")
revenue = int(price[known].sum())
print(f"{len(index)} products, {int(known.sum())} of {len(sales)} sales matched, revenue {revenue}")

expected = dict(zip(product_ids.tolist(), prices.tolist()))
assert known.tolist() == [s in expected for s in sales.tolist()]
assert revenue == sum(expected[s] for s in sales.tolist() if s in expected)
