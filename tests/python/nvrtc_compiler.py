"""NVRTC through ctypes, for the tests that compile kernels using refs
without a GPU (NVRTC needs none) and without CuPy: the CUDA toolkit's
libnvrtc and its headers, found from CUDA_PATH, CUDA_HOME, nvcc on the PATH
or /usr/local/cuda."""

import ctypes
import glob
import os
import shutil


def _toolkit_roots():
    for variable in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(variable):
            yield os.environ[variable]
    nvcc = shutil.which("nvcc")
    if nvcc:
        yield os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    yield "/usr/local/cuda"


class Nvrtc:
    """libnvrtc and the toolkit's include folders (`include_dirs`)."""

    def __init__(self, library, include_dirs):
        self._lib = ctypes.CDLL(library)
        self.include_dirs = include_dirs
        self._lib.nvrtcGetErrorString.restype = ctypes.c_char_p

    @classmethod
    def find(cls):
        """The toolkit's NVRTC, or None with the reason it was not found."""
        for root in _toolkit_roots():
            libraries = sorted(glob.glob(os.path.join(root, "lib*", "libnvrtc.so*")))
            libraries = [path for path in libraries if "alt" not in os.path.basename(path)]
            include = os.path.join(root, "include")
            if libraries and os.path.isfile(os.path.join(include, "cooperative_groups.h")):
                cccl = os.path.join(include, "cccl")
                folders = [include] + ([cccl] if os.path.isdir(cccl) else [])
                return cls(libraries[0], folders), None
        return None, ("no CUDA toolkit with libnvrtc found (CUDA_PATH, CUDA_HOME, nvcc on the "
                      "PATH, /usr/local/cuda)")

    def compile(self, source, options):
        """Compiles `source` with `options` and the toolkit's include folders.
        Returns (ok, log)."""
        program = ctypes.c_void_p()
        self._check(self._lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(),
                                                 b"kernels.cu", 0, None, None))
        everything = list(options) + ["-I" + folder for folder in self.include_dirs]
        encoded = (ctypes.c_char_p * len(everything))(*[o.encode() for o in everything])
        result = self._lib.nvrtcCompileProgram(program, len(everything), encoded)
        size = ctypes.c_size_t()
        self._check(self._lib.nvrtcGetProgramLogSize(program, ctypes.byref(size)))
        log = ctypes.create_string_buffer(size.value)
        self._check(self._lib.nvrtcGetProgramLog(program, log))
        self._check(self._lib.nvrtcDestroyProgram(ctypes.byref(program)))
        return result == 0, log.value.decode(errors="replace")

    def _check(self, result):
        if result != 0:
            raise RuntimeError(f"NVRTC: {self._lib.nvrtcGetErrorString(result).decode()}")
