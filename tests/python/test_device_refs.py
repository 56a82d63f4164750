"""gpuhash.DeviceRef: a CUDA map's ref in kernels compiled at run time. The
names, headers and NVRTC options are checked everywhere (the kernels that
use them compile under NVRTC where the CUDA toolkit is installed; NVRTC
needs no GPU); kernels run through CuPy's RawModule where a GPU is present."""

import os

import numpy as np
import pytest

import gpuhash
from conftest import _cuda_reason, cupy
from nvrtc_compiler import Nvrtc

DESIGNS = ("linear_probing", "bucketed_cuckoo")
PAIRS = (("uint32", "uint32"), ("uint64", "uint64"), ("uint32", "uint64"), ("uint64", "uint32"))
CXX = {"uint32": "std::uint32_t", "uint64": "std::uint64_t"}

NVRTC, NO_NVRTC = Nvrtc.find()
needs_nvrtc = pytest.mark.skipif(NVRTC is None, reason=str(NO_NVRTC))
needs_gpu = pytest.mark.skipif(_cuda_reason("cupy", cupy) is not None,
                               reason=str(_cuda_reason("cupy", cupy)))


# ---- What a kernel names, everywhere ---------------------------------------

@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("key_dtype, value_dtype", PAIRS)
def test_ref_types_name_the_public_aliases(design, key_dtype, value_dtype):
    ref_type = gpuhash.device_ref_type(design, key_dtype, value_dtype)
    assert ref_type.cuda_type == f"gpuhash::{design}_ref<{CXX[key_dtype]}, {CXX[value_dtype]}>"
    assert ref_type.header == f"gpuhash/{design}_ref.hpp"
    assert ref_type.nbytes > 0 and ref_type.nbytes % ref_type.alignment == 0


def test_a_ref_type_goes_by_width_not_dtype():
    assert (gpuhash.device_ref_type("linear_probing", "float32", "int64") ==
            gpuhash.device_ref_type("linear_probing", "uint32", "uint64"))


@pytest.mark.parametrize("design, key_dtype, value_dtype", [
    ("dachash", "uint64", "uint64"),
    ("bucketed_cuckoo", "V16", "uint64"),
    ("linear_probing", "uint64", ("float32", 32)),
])
def test_maps_without_refs_say_which_have_them(design, key_dtype, value_dtype):
    with pytest.raises(ValueError, match="has no ref for kernels.*linear_probing: 8/8"):
        gpuhash.device_ref_type(design, key_dtype, value_dtype)


def test_a_cpu_map_has_no_ref():
    with pytest.raises(ValueError, match="device='cuda'"):
        gpuhash.Map(device="cpu").ref()


def test_the_package_holds_the_headers_a_kernel_includes():
    library, stand_ins = gpuhash.include_dirs()
    for design in DESIGNS:
        header = gpuhash.device_ref_type(design, "uint64", "uint64").header
        assert os.path.isfile(os.path.join(library, header))
    assert os.path.isfile(os.path.join(stand_ins, "cstdint"))


def test_nvrtc_options_are_a_tuple_for_cupy():
    options = gpuhash.nvrtc_options()
    assert isinstance(options, tuple)
    assert "-std=c++20" in options
    assert [o for o in options if o.startswith("-I")] == ["-I" + d for d in gpuhash.include_dirs()]


def test_as_argument_passes_the_refs_bytes_by_value():
    ref_type = gpuhash.device_ref_type("bucketed_cuckoo", "uint64", "uint64")
    data = bytes(range(ref_type.nbytes))
    ref = gpuhash.DeviceRef(None, ref_type, data)
    argument = ref.as_argument()
    # CuPy's RawKernel passes a NumPy array of one element by value: the
    # driver copies sizeof(parameter) bytes from its data.
    assert isinstance(argument, np.ndarray) and argument.size == 1
    assert argument.itemsize == ref_type.nbytes and argument.tobytes() == data


def kernel_source(ref_types):
    """One kernel per ref type that calls its methods, each asserting that
    NVRTC lays the ref out as the extension's compiler did."""
    headers = sorted({ref_type.header for ref_type in ref_types})
    source = "".join(f'#include "{header}"\n' for header in headers)
    for index, ref_type in enumerate(ref_types):
        source += f"""
using ref_{index} = {ref_type.cuda_type};
static_assert(sizeof(ref_{index}) == {ref_type.nbytes}, "NVRTC sizes it as the host does");
static_assert(alignof(ref_{index}) == {ref_type.alignment}, "NVRTC aligns it as the host does");
extern "C" __global__ void kernel_{index}(ref_{index} ref, const ref_{index}::key_type* keys,
                                          ref_{index}::mapped_type* values,
                                          gpuhash::status* statuses, unsigned long long n) {{
  const unsigned long long i = 1ull * blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  statuses[i] = ref.insert(keys[i], values[i]);
  ref.insert_or_apply(keys[i], values[i], gpuhash::plus{{}});
  ref.find(keys[i], &values[i]);
}}
"""
    return source


@needs_nvrtc
def test_refs_compile_under_nvrtc_with_the_packages_options():
    ref_types = [gpuhash.device_ref_type(design, key, value)
                 for design in DESIGNS for key, value in PAIRS]
    ok, log = NVRTC.compile(kernel_source(ref_types),
                            gpuhash.nvrtc_options() + ("-arch=compute_90",))
    assert ok, log


@needs_nvrtc
def test_the_nvrtc_check_reports_a_kernel_that_does_not_compile():
    ok, log = NVRTC.compile("__global__ void k() { no_such_type x; }\n",
                            gpuhash.nvrtc_options() + ("-arch=compute_90",))
    assert not ok and "no_such_type" in log


# ---- Kernels through CuPy, on a GPU ----------------------------------------

KERNELS = r"""
#include "{header}"
using ref_type = {cuda_type};
static_assert(sizeof(ref_type) == {nbytes}, "the ref's bytes are the object the kernel reads");

extern "C" __global__ void insert(ref_type ref, const ref_type::key_type* keys,
                                  const ref_type::mapped_type* values, gpuhash::status* statuses,
                                  unsigned long long n) {{
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  for (unsigned long long i = 1ull * blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    statuses[i] = ref.insert(keys[i], values[i]);
}}

extern "C" __global__ void count(ref_type ref, const ref_type::key_type* keys,
                                 gpuhash::status* statuses, unsigned long long n) {{
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  for (unsigned long long i = 1ull * blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    statuses[i] = ref.insert_or_apply(keys[i], 1, gpuhash::plus{{}});
}}
"""


def compiled(ref):
    source = KERNELS.format(header=ref.header, cuda_type=ref.cuda_type, nbytes=ref.nbytes)
    return cupy.RawModule(code=source, options=gpuhash.nvrtc_options())


def launch(kernel, n, *args):
    threads = 256
    kernel((max(1, min((n + threads - 1) // threads, 4096)),), (threads,), args)


@needs_gpu
@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("dtype", ["uint32", "uint64"])
def test_a_kernel_inserts_through_the_ref(design, dtype, rng):
    keys = np.unique(rng.integers(1, 2**31, size=100_000, dtype=dtype))
    values = rng.integers(0, 2**31, size=keys.size, dtype=dtype)
    m = gpuhash.Map(dtype, dtype, design=design, device="cuda")
    m.reserve(keys.size)
    ref = m.ref()
    statuses = cupy.empty(keys.size, dtype=np.uint8)
    launch(compiled(ref).get_function("insert"), keys.size, ref.as_argument(),
           cupy.asarray(keys), cupy.asarray(values), statuses, np.uint64(keys.size))
    statuses = cupy.asnumpy(statuses)
    inserted = statuses == gpuhash.Status.inserted
    full = statuses == gpuhash.Status.full
    assert np.all(inserted | full)
    # Linear probing's ref answers full only in a table with no free slot;
    # bucketed cuckoo's also for a key whose buckets are all full, which
    # reserve's load (up to 0.9) leaves for a few percent of the keys or
    # fewer (docs/results/device_api.md).
    if design == "linear_probing":
        assert not full.any()
    else:
        assert full.mean() < 0.5
    assert len(m) == np.count_nonzero(inserted)
    m.insert(cupy.asarray(keys[full]), cupy.asarray(values[full]))
    found_values, found = m.find(cupy.asarray(keys))
    assert bool(found.all())
    np.testing.assert_array_equal(cupy.asnumpy(found_values), values)


@needs_gpu
@pytest.mark.parametrize("design", DESIGNS)
def test_a_kernel_counts_groups_through_the_ref(design, rng):
    rows = rng.integers(1, 5_000, size=200_000, dtype=np.uint64)
    groups, counts = np.unique(rows, return_counts=True)
    m = gpuhash.Map("uint64", "uint64", design=design, device="cuda")
    m.reserve(groups.size)

    def count(rows_gpu):
        ref = m.ref()
        statuses = cupy.empty(rows_gpu.size, dtype=np.uint8)
        launch(compiled(ref).get_function("count"), rows_gpu.size, ref.as_argument(), rows_gpu,
               statuses, np.uint64(rows_gpu.size))
        return cupy.asnumpy(statuses)

    statuses = count(cupy.asarray(rows))
    full = statuses == gpuhash.Status.full
    assert np.all(np.isin(statuses[~full], [gpuhash.Status.inserted, gpuhash.Status.updated]))
    assert len(m) == np.count_nonzero(statuses == gpuhash.Status.inserted)
    # The retry of docs/device_api.md: a batch inserts the full rows' groups
    # at 0, then the kernel counts those rows again through a new ref.
    if full.any():
        m.insert(cupy.asarray(rows[full]), cupy.zeros(int(full.sum()), dtype=np.uint64))
        assert np.all(count(cupy.asarray(rows[full])) == gpuhash.Status.updated)
    assert len(m) == groups.size
    sums, found = m.find(cupy.asarray(groups))
    assert bool(found.all())
    np.testing.assert_array_equal(cupy.asnumpy(sums), counts)


@needs_gpu
def test_keys_that_find_no_room_come_back_full_and_a_batch_places_them(rng):
    keys = np.unique(rng.integers(1, 2**62, size=50_000, dtype=np.uint64))
    m = gpuhash.Map("uint64", "uint64", design="linear_probing", device="cuda", capacity=1024)
    ref = m.ref()
    statuses = cupy.empty(keys.size, dtype=np.uint8)
    launch(compiled(ref).get_function("insert"), keys.size, ref.as_argument(),
           cupy.asarray(keys), cupy.asarray(keys), statuses, np.uint64(keys.size))
    statuses = cupy.asnumpy(statuses)
    full = statuses == gpuhash.Status.full
    assert np.all(np.isin(statuses, [gpuhash.Status.inserted, gpuhash.Status.full]))
    assert full.any() and len(m) == np.count_nonzero(~full)
    m.insert(cupy.asarray(keys[full]), cupy.asarray(keys[full]))  # grows
    values, found = m.find(cupy.asarray(keys))
    assert bool(found.all())
    np.testing.assert_array_equal(cupy.asnumpy(values), keys)


@needs_gpu
def test_a_map_that_grows_hands_out_a_new_ref():
    m = gpuhash.Map("uint64", "uint64", design="bucketed_cuckoo", device="cuda", capacity=1024)
    before = m.ref()
    assert m.ref().bytes == before.bytes
    m.reserve(1 << 20)
    assert m.ref().bytes != before.bytes
