"""A group-by in a kernel of our own: a CuPy RawModule, compiled at run time
by NVRTC, adds each row's amount to its group's sum through the map's device
ref (insert_or_apply with gpuhash::plus); Map.find then reads the sums, which
are checked against NumPy. Exits with 77 (skipped) without CuPy or a GPU."""

import sys

import numpy as np

import gpuhash

if not gpuhash.cuda_available():
    print("skipped: no CUDA GPU, or gpuhash was built without the CUDA backend")
    sys.exit(77)
try:
    import cupy
except ImportError as error:
    print(f"skipped: {error}")
    sys.exit(77)

rng = np.random.default_rng(7)
rows, group_count = 1 << 22, 1 << 16
groups = rng.integers(0, group_count, size=rows, dtype=np.int64)
amounts = rng.integers(-1000, 1000, size=rows, dtype=np.int64)

sums = gpuhash.Map("int64", "int64", design="bucketed_cuckoo", device="cuda")
sums.reserve(group_count)  # a map does not grow inside a kernel: make room first
ref = sums.ref()           # valid until the map's next call that may grow it

# The ref's keys and values are the map's as their bits: std::uint64_t here
# (int64 sums add the same in two's complement).
source = f"""
#include "{ref.header}"
using sums_ref = {ref.cuda_type};

extern "C" __global__ void sum_by_group(sums_ref sums, const long long* groups,
                                        const long long* amounts, gpuhash::status* statuses,
                                        unsigned long long n) {{
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  for (unsigned long long i = 1ull * blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    statuses[i] = sums.insert_or_apply(static_cast<sums_ref::key_type>(groups[i]),
                                       static_cast<sums_ref::mapped_type>(amounts[i]),
                                       gpuhash::plus{{}});
}}
"""
module = cupy.RawModule(code=source, options=gpuhash.nvrtc_options())
sum_by_group = module.get_function("sum_by_group")

statuses = cupy.empty(rows, dtype=cupy.uint8)
# On CuPy's current stream, as the map's calls with CuPy arrays run; the ref
# goes by value (a NumPy array of its bytes).
sum_by_group((1024,), (256,), (ref.as_argument(), cupy.asarray(groups), cupy.asarray(amounts),
                               statuses, np.uint64(rows)))

# Each row started its group's sum (inserted) or added to it (updated). With
# too little room some would answer full: those rows go to the map's own
# insert, which grows it (docs/device_api.md, "Rules").
outcome = cupy.asnumpy(statuses)
assert np.isin(outcome, [gpuhash.Status.inserted, gpuhash.Status.updated]).all()

keys, position = np.unique(groups, return_inverse=True)
expected = np.zeros(keys.size, dtype=np.int64)
np.add.at(expected, position, amounts)
values, found = sums.find(cupy.asarray(keys))
assert bool(found.all()) and len(sums) == keys.size
np.testing.assert_array_equal(cupy.asnumpy(values), expected)
print(f"{rows} rows summed into {len(sums)} groups in a kernel through {ref.cuda_type}")
