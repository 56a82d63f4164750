#!/usr/bin/env python3
"""What the Python layer costs, and how Map.find on the CPU compares with
Python's own tools (the targets and the results: docs/results/python.md).

  1. Batches: Map.insert and Map.find of 2^n keys from NumPy (cpu), CuPy and
     PyTorch (cuda) against the bare C++ call (basic_map's synchronous
     pointer form) on the same table, arrays and stream
     (MapTable.time_bulk_call), runs interleaved; medians. The Python call is
     timed as it is and with `out=` (outputs allocated once, by the caller).
  2. One key: the latency of Map.find and Map.insert with a one-key array,
     and of the bare C++ call.
  3. CPU only: Map.find on 2^22 uint64 keys against a Python dict lookup
     loop and, where pandas imports, pandas.Index.get_indexer.

The last timed run of each batch is checked after the timing (statuses,
found flags, values); calls are timed without a wait after them (they
return once their results are written).
Prints a table and writes JSON lines (--out).

  PYTHONPATH=build/python python3 bench/python/overhead.py --device=cpu
  PYTHONPATH=<site> python3 bench/python/overhead.py --device=cuda --out=python.jsonl
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

import gpuhash


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="cpu, or cuda / cuda:N")
    parser.add_argument("--libraries", default=None,
                        help="comma-separated; default numpy on cpu, cupy,torch on cuda")
    parser.add_argument("--design", default="bucketed_cuckoo")
    parser.add_argument("--key-bits", default="32,64")
    parser.add_argument("--n-log2", type=int, default=24, help="keys per batch: 2^N")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per measurement")
    parser.add_argument("--single-calls", type=int, default=2000,
                        help="calls per one-key latency measurement")
    parser.add_argument("--compare-n-log2", type=int, default=22,
                        help="keys of the CPU comparison with dict and pandas (0: skip it)")
    parser.add_argument("--out", default=None, help="append JSON lines here")
    return parser.parse_args()


def distinct_keys(n, bits, offset=0):
    """n distinct keys spread over the lower half of the dtype's range (an
    odd multiplier is a bijection modulo a power of two), none reserved."""
    i = np.arange(1 + offset, n + 1 + offset, dtype=np.uint64)
    mask = np.uint64(2 ** (bits - 1) - 1)
    return ((i * np.uint64(0x9E3779B97F4A7C15)) & mask).astype(f"uint{bits}")


class Library:
    """Arrays and synchronization of one array library."""

    def __init__(self, name, device):
        self.name = name
        self.device = device
        self.module = __import__(name)

    def array(self, host, dtype):
        if self.name == "numpy":
            return host.astype(dtype)
        if self.name == "cupy":
            return self.module.asarray(host.astype(dtype))
        return self.module.from_numpy(host.astype(dtype)).to(self.device)

    def numpy(self, array):
        if self.name == "numpy":
            return array
        if self.name == "cupy":
            return self.module.asnumpy(array)
        return array.cpu().numpy()

    def stream(self):
        if self.name == "cupy":
            return self.module.cuda.get_current_stream().ptr
        if self.name == "torch":
            return self.module.cuda.current_stream().cuda_stream
        return 0

    def synchronize(self):
        if self.name == "cupy":
            self.module.cuda.get_current_stream().synchronize()
        elif self.name == "torch":
            self.module.cuda.synchronize()

    def key_dtype(self, bits):
        # PyTorch's unsigned types support few operations: its tables use the
        # signed dtype of the same width (stored as the same bits).
        return f"int{bits}" if self.name == "torch" else f"uint{bits}"


def timed(call, sync):
    """Seconds of one call, and its result. Every gpuhash call returns once
    its results are written, so nothing is waited for inside the timing;
    the caller's queued work is drained before it (not timed), as the bare
    C++ call does before it starts its clock."""
    sync()
    start = time.perf_counter()
    result = call()
    seconds = time.perf_counter() - start
    sync()
    return seconds, result


def batch_rows(args, library, bits):
    n = 1 << args.n_log2
    dtype = library.key_dtype(bits)
    keys = library.array(distinct_keys(n, bits), dtype)
    values = library.array(distinct_keys(n, bits, offset=n), dtype)
    m = gpuhash.Map(key_dtype=dtype, value_dtype=dtype, design=args.design, device=args.device)
    m.reserve(n)
    # the C++ call's outputs, allocated once (an allocation between runs
    # slowed the run after it)
    cpp_values = library.array(np.zeros(n, dtype=np.uint64), dtype)
    cpp_statuses = library.array(np.zeros(n, dtype=np.uint8), "uint8")
    rows = []
    # the Python call's own outputs, for its `out=` form
    out_values = library.array(np.zeros(n, dtype=np.uint64), dtype)
    out_found = library.array(np.zeros(n, dtype=bool), "bool")
    out_statuses = library.array(np.zeros(n, dtype=np.uint8), "uint8")
    for call in ("insert", "find"):
        python_runs, out_runs, cpp_runs = [], [], []
        if call == "find":
            m.clear()
            m.insert(keys, values)
        # Runs interleaved, each C++ run beside a Python run in the same state
        # of the GPU; the results are checked after the timing (a check
        # between runs leaves the GPU idle for a while, which slowed the next
        # run by as much as the Python layer costs).
        # The C++ run goes first in even rounds and last in odd ones, so that
        # neither side always follows the other.
        for round_number in range(args.repeats + 1):  # the first round warms up
            if round_number % 2 == 0:
                cpp_runs += m._table.time_bulk_call(call, keys, values, cpp_values,
                                                    cpp_statuses, 1, library.stream())
            if call == "insert":
                m.clear()
                seconds, result = timed(lambda: m.insert(keys, values), library.synchronize)
                m.clear()
                out_seconds, out_result = timed(
                    lambda: m.insert(keys, values, out=out_statuses), library.synchronize)
            else:
                seconds, result = timed(lambda: m.find(keys), library.synchronize)
                out_seconds, out_result = timed(
                    lambda: m.find(keys, out=(out_values, out_found)), library.synchronize)
            if round_number % 2 == 1:
                cpp_runs += m._table.time_bulk_call(call, keys, values, cpp_values,
                                                    cpp_statuses, 1, library.stream())
            python_runs.append(seconds)
            out_runs.append(out_seconds)
        for checked in (result, out_result):
            if call == "insert":
                assert np.all(library.numpy(checked) == gpuhash.Status.inserted)
            else:
                got, found = checked
                assert library.numpy(found).all()
                assert np.array_equal(library.numpy(got), library.numpy(values))
        cpp = statistics.median(cpp_runs[1:])
        python = statistics.median(python_runs[1:])
        python_out = statistics.median(out_runs[1:])
        # each round's Python run less its own C++ run: the machine's drift
        # between rounds cancels
        paired_out = statistics.median(o - c for o, c in zip(out_runs[1:], cpp_runs[1:]))
        rows.append({"part": "batch", "library": library.name, "op": call, "key_bits": bits,
                     "n": n, "cpp_s": cpp, "python_s": python,
                     "overhead_pct": 100.0 * (python - cpp) / cpp,
                     "python_out_s": python_out,
                     "overhead_out_pct": 100.0 * (python_out - cpp) / cpp,
                     "overhead_out_paired_pct": 100.0 * paired_out / cpp,
                     "python_gops": n / python / 1e9})
    return rows


def single_key_rows(args, library, bits):
    dtype = library.key_dtype(bits)
    m = gpuhash.Map(key_dtype=dtype, value_dtype=dtype, design=args.design, device=args.device)
    m.insert(library.array(distinct_keys(1000, bits), dtype),
             library.array(distinct_keys(1000, bits), dtype))
    one = library.array(distinct_keys(1, bits), dtype)
    rows = []
    for call in ("find", "insert"):
        run = (lambda: m.find(one)) if call == "find" else (lambda: m.insert(one, one))
        for _ in range(100):
            run()
        # Ten groups of calls; the median group (the machine may be shared).
        groups = []
        for _ in range(10):
            library.synchronize()
            start = time.perf_counter()
            for _ in range(max(1, args.single_calls // 10)):
                result = run()
            library.synchronize()
            groups.append((time.perf_counter() - start) / max(1, args.single_calls // 10))
        python = statistics.median(groups)
        if call == "find":
            assert library.numpy(result[1]).tolist() == [True]
        else:
            assert library.numpy(result).tolist() == [gpuhash.Status.exists]
        # The bare call's insert starts from an empty map each time (one key: inserted).
        found = library.array(np.zeros(1, dtype=np.uint64), dtype)
        statuses = library.array(np.zeros(1, dtype=np.uint8), "uint8")
        cpp = statistics.median(m._table.time_bulk_call(call, one, one, found, statuses,
                                                        args.single_calls, library.stream())[100:])
        rows.append({"part": "single_key", "library": library.name, "op": call, "key_bits": bits,
                     "python_us": 1e6 * python, "cpp_us": 1e6 * cpp})
    return rows


def cpu_comparison_rows(args):
    n = 1 << args.compare_n_log2
    keys = distinct_keys(n, 64)
    values = distinct_keys(n, 64, offset=n)
    queries = np.random.default_rng(1).permutation(keys)
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64", design=args.design, device="cpu")
    m.reserve(n)
    m.insert(keys, values)
    expected = dict(zip(keys.tolist(), values.tolist()))
    rows = []

    runs = []
    for _ in range(args.repeats + 1):
        seconds, (got, found) = timed(lambda: m.find(queries), lambda: None)
        runs.append(seconds)
    assert found.all() and got[:1000].tolist() == [expected[q] for q in queries[:1000].tolist()]
    gpuhash_s = statistics.median(runs[1:])
    rows.append({"part": "cpu_compare", "method": "gpuhash.Map.find", "n": n, "seconds": gpuhash_s})

    query_list = queries.tolist()
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        looked_up = [expected.get(q) for q in query_list]
        runs.append(time.perf_counter() - start)
    assert looked_up[:1000] == got[:1000].tolist()
    rows.append({"part": "cpu_compare", "method": "dict lookup loop", "n": n,
                 "seconds": statistics.median(runs)})
    try:
        import pandas
    except ImportError:
        print("pandas does not import here: no pandas.Index.get_indexer comparison", file=sys.stderr)
    else:
        index = pandas.Index(keys)
        index.get_indexer(queries[:1000])  # builds its hash table, outside the timing
        runs = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            positions = index.get_indexer(queries)
            runs.append(time.perf_counter() - start)
        assert np.array_equal(values[positions][:1000], got[:1000])
        rows.append({"part": "cpu_compare", "method": f"pandas {pandas.__version__} "
                     "Index.get_indexer", "n": n, "seconds": statistics.median(runs)})
    for row in rows:
        row["gpuhash_speedup"] = row["seconds"] / gpuhash_s
    return rows


def environment(args):
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=os.path.dirname(__file__)).stdout.strip()
    except OSError:
        commit = ""
    device = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            device = next(line.split(":", 1)[1].strip() for line in cpuinfo
                          if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    cores = os.cpu_count()
    if args.device != "cpu":
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(int(args.device.partition(":")[2] or 0))
        device = props["name"].decode()
    return {"device": device, "cpu_cores": cores, "commit": os.environ.get("GPUHASH_COMMIT", commit),
            "date": datetime.date.today().isoformat(), "python": platform.python_version(),
            "load_average_1min": os.getloadavg()[0],
            "design": args.design}


def main():
    args = parse_args()
    names = (args.libraries or ("numpy" if args.device == "cpu" else "cupy,torch")).split(",")
    libraries = [Library(name, args.device if args.device != "cuda" else "cuda:0")
                 for name in names]
    env = environment(args)
    rows = []
    for library in libraries:
        for bits in (int(b) for b in args.key_bits.split(",")):
            rows += batch_rows(args, library, bits)
            rows += single_key_rows(args, library, bits)
    if args.device == "cpu" and args.compare_n_log2 > 0:
        rows += cpu_comparison_rows(args)

    print(f"# {env['device']} ({env['cpu_cores']} CPU cores), commit {env['commit']}, "
          f"{env['date']}, design {args.design}, load average {os.getloadavg()[0]:.1f} "
          f"(at the start: {env['load_average_1min']:.1f})")
    for row in rows:
        if row["part"] == "batch":
            print(f"{row['library']:6} {row['op']:7} {row['key_bits']}-bit n=2^{args.n_log2}: "
                  f"C++ {1e3 * row['cpp_s']:9.3f} ms  Python {1e3 * row['python_s']:9.3f} ms  "
                  f"overhead {row['overhead_pct']:+6.2f}%  ({row['python_gops']:.3f} G keys/s); "
                  f"with out= {1e3 * row['python_out_s']:.3f} ms ({row['overhead_out_pct']:+.2f}%; "
                  f"paired by round {row['overhead_out_paired_pct']:+.2f}%)")
        elif row["part"] == "single_key":
            print(f"{row['library']:6} {row['op']:7} {row['key_bits']}-bit one key: "
                  f"Python {row['python_us']:.2f} us  (C++ {row['cpp_us']:.2f} us)")
        else:
            ratio = "" if row["method"].startswith("gpuhash") else \
                f"  (gpuhash is {row['gpuhash_speedup']:.1f}x faster)"
            print(f"cpu find of 2^{args.compare_n_log2} uint64 keys: {row['method']:36} "
                  f"{1e3 * row['seconds']:10.1f} ms{ratio}")
    if args.out:
        with open(args.out, "a") as out:
            for row in rows:
                out.write(json.dumps({"experiment": "python.overhead", **env, **row}) + "\n")


if __name__ == "__main__":
    main()
