"""The extension module as the loader sees it."""

import subprocess

import gpuhash


def test_the_extension_keeps_libstdcxx_to_itself():
    # A toolchain that links libstdc++ statically (the GPU machines' GCC
    # does) would export its locale facets' ids, which the loader binds
    # process-wide: a module loaded later with the system's libstdc++
    # (ml_dtypes, imported by CuPy) then called the wrong facet and crashed.
    listed = subprocess.run(["nm", "-D", "--defined-only", "-C", gpuhash._gpuhash.__file__],
                            capture_output=True, text=True, check=True).stdout
    leaked = [line for line in listed.splitlines()
              if any(name in line for name in ("std::locale", "std::codecvt", "std::num_put",
                                               "std::ctype", "std::ios_base"))]
    assert not leaked, f"{len(leaked)} libstdc++ symbols exported, e.g. {leaked[:3]}"
