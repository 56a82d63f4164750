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
    with pytest.raises(ValueError, match=r"the design 'bucketed_cuckoo' takes no 8-byte keys with "
                                         r"32-byte values .*designs that take them: linear_probing"):
        gpuhash.Map(key_dtype="uint64", value_dtype=("float32", 8))
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


# ---- Key types: dtypes a Map cannot store, and arrays of the wrong form ----


@pytest.mark.parametrize("key_dtype, value_dtype, message", [
    ("float16", "uint32", r"key_dtype float16 has 2 bytes; a Map takes keys of 4, 8 or 16 bytes"),
    (("float32", 8), "uint32", r"key_dtype \('float32', 8\) has 32 bytes; a Map takes keys of 4"),
    ("uint64", ("float32", 10), r"value_dtype \('float32', 10\) has 40 bytes; a Map takes values "
                                r"of 4, 8, 16 bytes, or rows of 32, 64, 128 bytes"),
    ("uint64", "int8", r"value_dtype int8 has 1 bytes"),
    ("object", "uint64", r"key_dtype object: object dtypes hold references"),
    ("S8", "uint64", r"key_dtype S8: fixed-width strings are for gpuhash.StringMap"),
    ("datetime64[ns]", "uint64", r"view datetime64 and timedelta64 arrays as int64"),
    ("longdouble", "uint64", r"long double has padding bytes"),
    ("uint64", np.dtype((np.float32, (2, 4))), r"value_dtype \('float32', \(2, 4\)\): a row has "
                                               r"one dimension"),
    (object(), "uint64", r"key_dtype <object object at .*> is not a dtype"),
])
def test_dtypes_a_map_cannot_store_are_a_type_error(key_dtype, value_dtype, message):
    with pytest.raises(TypeError, match=message):
        gpuhash.Map(key_dtype=key_dtype, value_dtype=value_dtype, design="linear_probing")


def test_a_design_without_the_widths_names_those_with_them():
    with pytest.raises(ValueError, match=r"the design 'dachash' takes no 8-byte keys with 128-byte "
                                         r"values \(it takes key/value bytes 4/4, 8/8\); the "
                                         r"designs that take them: linear_probing, hashgraph"):
        gpuhash.Map(key_dtype="int64", value_dtype=("float32", 32), design="dachash")
    with pytest.raises(ValueError, match=r"takes no 16-byte keys with 32-byte values .*no design "
                                         r"takes them"):
        gpuhash.Map(key_dtype="V16", value_dtype=("float32", 8), design="linear_probing")


def test_rows_of_the_wrong_shape_or_dtype(place):
    m = gpuhash.Map(key_dtype="int64", value_dtype=("float32", 32), design="linear_probing",
                    device=place.device)
    keys = place.array(np.arange(4, dtype=np.int64))
    with pytest.raises(ValueError, match=r"Map.insert: values have shape \(4, 31\) but this "
                                         r"table's values are rows of 32 float32: pass an array "
                                         r"of shape \(n, 32\)"):
        m.insert(keys, place.array(np.zeros((4, 31), np.float32)))
    with pytest.raises(ValueError, match=r"values have shape \(128,\) but this table's values are "
                                         r"rows of 32 float32"):
        m.insert(keys, place.array(np.zeros(128, np.float32)))
    with pytest.raises(TypeError, match=r"values have dtype float64 but this table takes "
                                        r"\('float32', 32\): pass an array of shape \(n, 32\) "
                                        r"and dtype float32"):
        m.insert(keys, place.array(np.zeros((4, 32), np.float64)))
    with pytest.raises(ValueError, match=r"values have 3 elements but keys have 4"):
        m.insert(keys, place.array(np.zeros((3, 32), np.float32)))
    with pytest.raises(TypeError, match=r"out values has dtype float64; it must be "
                                        r"\('float32', 32\)"):
        m.find(keys, out=(place.array(np.zeros((4, 32), np.float64)),
                          place.array(np.zeros(4, bool))))


def test_non_contiguous_rows_are_a_value_error(place):
    m = gpuhash.Map(key_dtype="uint64", value_dtype=("float32", 8), design="hashgraph",
                    device=place.device)
    keys = place.array(np.arange(4, dtype=np.uint64))
    wide = place.array(np.zeros((4, 16), np.float32))
    for values in (wide[:, ::2], wide[:, :8], place.array(np.zeros((8, 8), np.float32))[::2]):
        with pytest.raises(ValueError, match=r"Map.insert: values are not contiguous rows .*"
                                             r"ascontiguousarray"):
            m.insert(keys, values)


def test_sixteen_byte_keys_of_the_wrong_form(place):
    m = gpuhash.Map(key_dtype="V16", value_dtype="uint64", design="linear_probing",
                    device=place.device)
    with pytest.raises(TypeError, match=r"keys have dtype uint64 but this table takes V16: pass "
                                        r"an array of V16 \(NumPy\), or rows of two 8-byte or "
                                        r"four 4-byte integers"):
        m.find(place.array(np.zeros((4, 3), np.uint64)))
    with pytest.raises(TypeError, match=r"keys have dtype float64 but this table takes V16"):
        m.find(place.array(np.zeros((4, 2), np.float64)))
    with pytest.raises(TypeError, match=r"keys have dtype uint64 but this table takes V16"):
        m.find(place.array(np.zeros(4, np.uint64)))
    # Rows that start 4 or 8 bytes into an allocation: the table reads a
    # 16-byte key as one 16-byte word.
    for misaligned in (place.array(np.zeros(9, np.uint32))[1:].reshape(2, 4),
                       place.array(np.zeros(5, np.uint64))[1:].reshape(2, 2)):
        with pytest.raises(ValueError, match=r"keys start at an address that is not a multiple of "
                                             r"16 bytes: pass a copy"):
            m.find(misaligned)


def test_non_contiguous_void_keys_are_a_value_error():
    m = gpuhash.Map(key_dtype="V16", value_dtype="uint64", design="linear_probing")
    keys = np.zeros(8, "V16")[::2]
    with pytest.raises(ValueError, match=r"Map.contains: keys must be one-dimensional and "
                                         r"contiguous, got a stride: pass a contiguous copy"):
        m.contains(keys)
