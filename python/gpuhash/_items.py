"""The keys and values of a gpuhash.Map: which dtypes it takes, the width in
bytes the extension stores them at (a table is chosen by width, so float32
and uint32 values share one), and the arrays that hold n of them in NumPy,
CuPy and PyTorch. Arrays are never copied: the extension gets a view of
their bits.

A Map's key or value dtype is one of:
- a scalar of 4 or 8 bytes (uint32, int64, float32, float64, complex64, V8,
  ...): one-dimensional arrays of that dtype;
- a scalar of 16 bytes (V16, a structured dtype of 16 bytes, complex128):
  one-dimensional arrays of that dtype where the library has it (NumPy; for
  complex128 also CuPy and PyTorch), or, in any library, two-dimensional
  arrays (n, 2) of 8-byte integers or (n, 4) of 4-byte ones, one item per
  row; CuPy and PyTorch outputs of V16 and structured dtypes are (n, 2)
  uint64;
- a row, (base, k) such as ("float32", 32) or numpy.dtype((numpy.float32,
  32)): two-dimensional arrays (n, k) of base, one item per row.
"""

import functools
import sys

import numpy as np

from . import _arrays, _gpuhash

KEY_WIDTHS = (4, 8, 16)


def describe(dtype):
    """A dtype as a user writes it: 'uint64', "('float32', 32)", 'V16', or a
    structured dtype's fields."""
    if dtype.subdtype is not None:
        shape = dtype.shape[0] if len(dtype.shape) == 1 else dtype.shape
        return f"({dtype.base.name!r}, {shape})"
    if dtype.fields is not None:
        return str(dtype)
    if dtype.kind in "SV":
        return dtype.str[1:]
    return dtype.name


def length(array):
    """The number of items in an array of keys or values (one per element or
    per row); 0 for a scalar (the extension then reports the shape)."""
    return array.shape[0] if len(array.shape) >= 1 else 0


@functools.lru_cache(maxsize=None)
def value_widths():
    """The value widths in bytes that some design takes."""
    return tuple(sorted({value for _, _, value in _gpuhash.map_shapes()}))


def _numpy_dtype(spec, role):
    """The NumPy dtype a user names: a dtype, its name, a torch dtype, or a
    (base, k) pair for rows of k elements of base."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], int):
        return np.dtype((_arrays.dtype_name(spec[0]), (spec[1],)))
    if str(spec).startswith("torch."):
        spec = _arrays.dtype_name(spec)
    try:
        return np.dtype(spec)
    except TypeError as error:
        raise TypeError(f"gpuhash: {role} {spec!r} is not a dtype") from error


def _refusal(dtype):
    """Why a Map cannot store items of `dtype` as their bytes, or None."""
    if dtype.hasobject:
        return "object dtypes hold references to Python objects, not values"
    if dtype.subdtype is not None:
        base, shape = dtype.subdtype
        if len(shape) != 1:
            return "a row has one dimension: (base, k)"
        if base.kind not in "uifc":
            return "a row's elements are integers or floating-point or complex numbers"
        return None
    if dtype.kind in "SU":
        return ("fixed-width strings are for gpuhash.StringMap (byte strings of any length); "
                "or view them as void: .view('V8')")
    if dtype.kind in "Mm":
        return "view datetime64 and timedelta64 arrays as int64 (.view('int64'))"
    if dtype.kind == "f" and dtype.itemsize > 8:
        return ("long double has padding bytes that are not part of its value; store float64, "
                "or the bytes as V16")
    if dtype.kind not in "uifcV":
        return "a key or value is an integer, a floating-point or complex number, or void bytes"
    return None


class ItemType:
    """The dtype of a Map's keys or of its values, and its arrays."""

    __slots__ = ("dtype", "nbytes", "row", "_forms")

    def __init__(self, spec, role):
        dtype = _numpy_dtype(spec, role)
        why = _refusal(dtype)
        if why is not None:
            raise TypeError(f"gpuhash: {role} {describe(dtype)}: {why}")
        widths = KEY_WIDTHS if role == "key_dtype" else value_widths()
        if dtype.itemsize not in widths:
            raise TypeError(f"gpuhash: {role} {describe(dtype)} has {dtype.itemsize} bytes; a Map "
                            f"takes {_widths_text(role, widths)}")
        self.dtype = dtype
        self.nbytes = dtype.itemsize
        self.row = dtype.shape[0] if dtype.subdtype is not None else None
        self._forms = {}

    def __str__(self):
        return describe(self.dtype)

    def layout(self, library):
        """(dtype, row length or None) of `library`'s arrays of these items:
        the dtype as a NumPy dtype for NumPy, by name for CuPy and PyTorch."""
        return self._form(library)[:2]

    def _form(self, library):
        """layout(library) and its dtype as `library`'s object, made once."""
        found = self._forms.get(library)
        if found is None:
            dtype = self.dtype
            if library == "numpy":
                layout = (dtype.base, self.row) if self.row is not None else (dtype, None)
            elif self.row is not None:
                layout = (dtype.base.name, self.row)
            elif dtype.kind == "V":  # CuPy and PyTorch have no void dtypes: their bits
                layout = ("uint64", 2) if self.nbytes == 16 else (f"uint{8 * self.nbytes}", None)
            else:
                layout = (dtype.name, None)
            found = (*layout, _arrays.dtype_object(library, layout[0]))
            self._forms[library] = found
        return found

    def sequence_dtype(self, device):
        """The dtype that Python sequences of items are converted to."""
        return self.layout("numpy" if device.kind == "cpu" else "cupy")[0]

    def empty(self, library, n, like=None, device=None):
        """A new array of n items (rows for row dtypes) of `library`, and the
        array the extension writes (the same memory)."""
        dtype, row, _ = self._forms.get(library) or self._form(library)
        array = _arrays.empty(library, (n,) if row is None else (n, row), dtype, like, device)
        return array, self._bits(array, library, row, "values", "")

    def zeros(self, library, n, like):
        dtype, row = self.layout(library)
        return _arrays.zeros(library, (n,) if row is None else (n, row), dtype, like)

    def checked(self, array, library, role, call, given=False):
        """`array` as the extension takes it, integers of the items' bits
        (one item per element or per row), after checking its dtype and row
        length; the extension checks its layout, device and length. `given`:
        an array the caller passed as `out`."""
        _, row, dtype_object = self._forms.get(library) or self._form(library)
        if array.dtype == dtype_object:
            if row is None or (len(array.shape) == 2 and array.shape[1] == row):
                return self._bits(array, library, row, role, call)
            if self.row is not None:
                raise ValueError(
                    f"gpuhash: {call}: {'out ' if given else ''}{role} have shape "
                    f"{tuple(array.shape)} but this table's {role} are rows of {row} "
                    f"{self.dtype.base.name}: pass an array of shape (n, {row})")
        if self._takes_integer_rows(array, library):
            return _arrays.bits_view(array, library)
        name = (describe(array.dtype) if isinstance(array.dtype, np.dtype) else
                _arrays.dtype_name(array.dtype))
        wanted = str(self)
        if given:
            raise TypeError(f"gpuhash: {call}: out {role} has dtype {name}; it must be {wanted}")
        if self.row is None and self.nbytes != 16:
            hint = (f"convert them ({role}.astype('{wanted}') in NumPy or CuPy, "
                    f"{role}.to(torch.{wanted}) in PyTorch) or create the table with that dtype")
        elif self.row is None:
            hint = (f"pass an array of {wanted} (NumPy), or rows of two 8-byte or four 4-byte "
                    "integers (shape (n, 2) or (n, 4)) in any library")
        else:
            hint = f"pass an array of shape (n, {self.row}) and dtype {self.dtype.base.name}"
        raise TypeError(f"gpuhash: {call}: {role} have dtype {name} but this table takes "
                        f"{wanted}: {hint}")

    def _bits(self, array, library, row, role, call):
        """An array of `library`'s layout (of row length `row`) as the
        integers of its bits."""
        if self.nbytes == 16 and row is None:
            return _pairs_of_words(array, library, role, call)
        return _arrays.bits_view(array, library)

    def _takes_integer_rows(self, array, library):
        """Whether `array` holds 16-byte items of a scalar dtype as rows of
        integers, the form CuPy and PyTorch have for them."""
        if self.nbytes != 16 or self.row is not None or len(array.shape) != 2:
            return False
        size = _integer_size(array.dtype, library)
        return size in (4, 8) and array.shape[1] * size == 16


def _integer_size(dtype, library):
    """The bytes of an integer dtype of `library`; None for other dtypes."""
    if library == "torch":
        torch = sys.modules["torch"]
        if dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
            return None
        return torch.empty((), dtype=dtype).element_size()
    return dtype.itemsize if dtype.kind in "iu" else None


def _pairs_of_words(array, library, role, call):
    """A one-dimensional array of 16-byte items (V16, structured, complex128)
    as rows of two 64-bit integers, the same memory."""
    contiguous = (array.is_contiguous() if library == "torch" else
                  array.shape[0] <= 1 or array.strides[0] == 16)
    if len(array.shape) != 1 or not contiguous:
        shape = f"{len(array.shape)} dimensions" if len(array.shape) != 1 else "a stride"
        raise ValueError(f"gpuhash: {call}: {role} must be one-dimensional and contiguous, got "
                         f"{shape}: pass a contiguous copy (numpy.ascontiguousarray({role}), "
                         f"cupy.ascontiguousarray({role}) or {role}.contiguous() in PyTorch)")
    if library == "torch":  # complex128 (PyTorch has no void dtypes): its parts' bits
        torch = sys.modules["torch"]
        return torch.view_as_real(array).view(torch.int64)
    return array.view(np.uint64).reshape(-1, 2)


def _widths_text(role, widths):
    if role == "key_dtype":
        return ("keys of 4, 8 or 16 bytes: a dtype of 4 or 8 bytes, or of 16 (V16, a structured "
                "dtype of 16 bytes, complex128, or a row such as ('uint64', 2))")
    scalars = [str(w) for w in widths if w <= 16]
    rows = [w for w in widths if w > 16]
    text = f"values of {', '.join(scalars)} bytes"
    if rows:
        examples = ", ".join(f"('float32', {w // 4})" for w in rows)
        text += f", or rows of {', '.join(str(w) for w in rows)} bytes ({examples})"
    return text
