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
ref_type = gpuhash.device_ref_type("bucketed_cuckoo", "int64", "int64")  # what sums.ref() gives

# The ref's keys and values are the map's as their bits: std::uint64_t here
# (int64 sums add the same in two's complement).
source = f"""
#include "{ref_type.header}"
using sums_ref = {ref_type.cuda_type};

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


def sum_rows(group_rows, amount_rows):
    """Adds the rows to their groups' sums in the kernel, through a ref taken
    now, on CuPy's current stream (where the map's calls with CuPy arrays
    are ordered); the ref goes by value, as a NumPy array of its bytes.
    Returns each row's Status."""
    ref = sums.ref()  # valid until the map's next call that may grow it
    statuses = cupy.empty(group_rows.size, dtype=cupy.uint8)
    sum_by_group((1024,), (256,), (ref.as_argument(), group_rows, amount_rows, statuses,
                                   np.uint64(group_rows.size)))
    return statuses


groups_gpu, amounts_gpu = cupy.asarray(groups), cupy.asarray(amounts)
statuses = sum_rows(groups_gpu, amounts_gpu)
# Each row started its group's sum (inserted), added to it (updated), or
# found no room for a new group (full: the map does not grow in a kernel,
# and bucketed cuckoo's ref places no key whose buckets are all full, a few
# percent of them or fewer near the map's load limit). Those rows' groups go in by a
# batch at 0, which grows the map where it must, then the kernel adds the
# rows again through a new ref.
full = statuses == int(gpuhash.Status.full)
retried = int(full.sum())
if retried:
    sums.insert(groups_gpu[full], cupy.zeros(retried, dtype=cupy.int64))
    statuses[full] = sum_rows(groups_gpu[full], amounts_gpu[full])
assert bool(((statuses == int(gpuhash.Status.inserted)) |
             (statuses == int(gpuhash.Status.updated))).all())

keys, position = np.unique(groups, return_inverse=True)
expected = np.zeros(keys.size, dtype=np.int64)
np.add.at(expected, position, amounts)
values, found = sums.find(cupy.asarray(keys))
assert bool(found.all()) and len(sums) == keys.size
np.testing.assert_array_equal(cupy.asnumpy(values), expected)
print(f"{rows} rows summed into {len(sums)} groups through {ref_type.cuda_type} "
      f"({retried} rows retried after a batch made room)")
