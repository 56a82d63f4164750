"""What a user who gets something wrong is told: the exception type and a
message that says what to do."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpuhash
from conftest import CPU, cupy, torch


def make(place, dtype="uint64"):
    return gpuhash.Map(key_dtype=dtype, value_dtype=dtype, device=place.device)


def test_a_wrong_dtype_is_a_type_error(place):
    m = make(place)
    keys = place.array(np.arange(4, dtype=np.float32))
    with pytest.raises(TypeError, match=r"keys have dtype float32 but this table takes uint64"):
        m.insert(keys, keys)
    with pytest.raises(TypeError, match=r"keys have dtype int64 but this table takes uint64"):
        m.find(place.array(np.arange(4, dtype=np.int64)))
    good = place.array(np.arange(4, dtype=np.uint64))
    with pytest.raises(TypeError, match=r"values have dtype uint32"):
        m.insert(good, place.array(np.arange(4, dtype=np.uint32)))
    with pytest.raises(TypeError, match=r"ops have dtype int64 but this call takes uint8"):
        m.apply(place.array(np.zeros(4, dtype=np.int64)), good)


def test_mismatched_lengths_are_a_value_error(place):
    m = make(place)
    with pytest.raises(ValueError, match=r"values have 3 elements but keys have 4"):
        m.insert(place.array(np.arange(4, dtype=np.uint64)),
                 place.array(np.arange(3, dtype=np.uint64)))
    with pytest.raises(ValueError, match=r"ops have 2 elements but keys have 4"):
        m.apply(place.array(np.zeros(2, dtype=np.uint8)),
                place.array(np.arange(4, dtype=np.uint64)))


def test_non_contiguous_input_is_a_value_error(place):
    m = make(place)
    keys = place.array(np.arange(10, dtype=np.uint64))[::2]
    with pytest.raises(ValueError, match=r"keys are not contiguous .*ascontiguousarray"):
        m.find(keys)


def test_more_than_one_dimension_is_a_value_error(place):
    m = make(place)
    keys = place.array(np.arange(6, dtype=np.uint64).reshape(2, 3))
    with pytest.raises(ValueError, match=r"keys must be one-dimensional, got 2 dimensions"):
        m.contains(keys)


def test_host_arrays_on_a_gpu_map_are_a_value_error(gpu_place):
    m = make(gpu_place)
    with pytest.raises(ValueError, match=r"keys are on cpu but this table is on cuda:0"):
        m.find(np.arange(4, dtype=np.uint64))
    if torch is not None:
        with pytest.raises(ValueError, match=r"keys are on cpu but this table is on cuda:0"):
            m.find(torch.zeros(4, dtype=torch.int64).view(torch.uint64))


def test_gpu_arrays_on_a_cpu_map_are_a_value_error(gpu_place):
    m = make(CPU)
    keys = gpu_place.array(np.arange(4, dtype=np.uint64))
    with pytest.raises(ValueError, match=r"keys are on cuda:0 but this table is on the CPU"):
        m.insert(keys, keys)


def test_bad_construction_arguments():
    with pytest.raises(ValueError, match=r"no design named 'nope'; the designs are .*dachash"):
        gpuhash.Map(design="nope")
    with pytest.raises(ValueError, match=r"the design 'bucketed_cuckoo' takes no 4-byte keys with "
                                         r"8-byte values .*designs that take them: linear_probing"):
        gpuhash.Map(key_dtype="uint32", value_dtype="uint64")
    with pytest.raises(TypeError, match=r"key_dtype float16 has 2 bytes; a Map takes keys of 4, 8 "):
        gpuhash.Map(key_dtype="float16", value_dtype="float64")
    with pytest.raises(ValueError, match=r"device must be 'cpu', 'cuda' or 'cuda:N'"):
        gpuhash.Map(device="gpu")
    with pytest.raises(ValueError, match=r"max_load_factor must be in \(0, 1\]"):
        gpuhash.Map(max_load_factor=1.5)
    with pytest.raises(TypeError, match=r"is not a dtype"):
        gpuhash.Map(key_dtype=object())


def test_a_cuda_table_where_no_gpu_can_be_used():
    # In a process that sees no GPU (CUDA_VISIBLE_DEVICES empty), so that the
    # test runs on GPU machines too.
    script = textwrap.dedent("""
        import numpy as np
        import pytest
        import gpuhash

        assert not gpuhash.cuda_available()
        if gpuhash.built_with_cuda():
            error, message = RuntimeError, r"no CUDA GPU can be used here .*use device='cpu'"
        else:
            error, message = ValueError, r"this build has no CUDA backend"
        with pytest.raises(error, match=message):
            gpuhash.Map(device="cuda")
        with pytest.raises(error, match=message):
            gpuhash.HashGraphSet.build(np.arange(3, dtype=np.uint32), device="cuda:0")
    """)
    environment = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_out_of_memory_is_a_memory_error(place):
    m = make(place)
    with pytest.raises(MemoryError, match=r"out of memory"):
        m.reserve(1 << 44)
    keys = place.array(np.arange(1, 5, dtype=np.uint64))
    assert list(place.numpy(m.insert(keys, keys))) == [gpuhash.Status.inserted] * 4


def test_reserved_keys_are_a_status_not_an_exception(place):
    m = make(place, "uint32")
    reserved = m.reserved_keys
    assert len(reserved) > 0
    keys = place.array(reserved)
    statuses = place.numpy(m.insert(keys, keys))
    assert np.all(statuses == gpuhash.Status.invalid_key)
    assert not place.numpy(m.contains(keys)).any()


def test_a_bad_stream_is_a_type_error(gpu_place):
    m = make(gpu_place)
    keys = gpu_place.array(np.arange(4, dtype=np.uint64))
    with pytest.raises(TypeError, match=r"stream must be an int"):
        m.find(keys, stream="default")


def test_items_names_its_libraries():
    with pytest.raises(ValueError, match=r"library must be one of"):
        make(CPU).items(library="jax")


@pytest.mark.skipif(cupy is None, reason="CuPy is not installed")
def test_cupy_is_only_needed_for_cupy():
    assert gpuhash.Map().find(np.arange(3, dtype=np.uint64))[1].tolist() == [False] * 3
