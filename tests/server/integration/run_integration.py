#!/usr/bin/python3
"""Runs gpuhash-server's black-box tests (this directory) against a binary.

    /usr/bin/python3 run_integration.py --binary build/server/gpuhash-server
    /usr/bin/python3 run_integration.py --binary /usr/bin/memcached --memcached test_protocol

--memcached says the binary is memcached itself (to check the tests): the
tests of behaviours where gpuhash-server intentionally differs then skip.
With no module named, all of them run. Needs Debian's python3-pymemcache and
libmemcached-tools (memccapable); a missing one fails the run with a message
saying which package to install. Exit status 0 only when every test passed.
"""

import argparse
import importlib.util
import os
import shutil
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ["test_protocol", "test_pymemcache", "test_load", "test_memccapable", "test_security",
           "test_stats", "test_memory", "test_lru", "test_temp_lru", "test_startup", "test_proxy"]


def missing_prerequisites(modules):
    missing = []
    if ({"test_pymemcache", "test_security", "test_proxy"} & set(modules)
            and importlib.util.find_spec("pymemcache") is None):
        missing.append(f"{sys.executable} cannot import pymemcache: install Debian's "
                       "python3-pymemcache (apt-get install python3-pymemcache) and run the "
                       "tests with /usr/bin/python3")
    if "test_security" in modules and not shutil.which("openssl"):
        missing.append("openssl is not on PATH: install Debian's openssl (apt-get install openssl)")
    if "test_memccapable" in modules and not (shutil.which("memccapable") or shutil.which("memcapable")):
        missing.append("memccapable is not on PATH: install Debian's libmemcached-tools "
                       "(apt-get install libmemcached-tools)")
    if "test_proxy" in modules and not shutil.which("nutcracker"):
        missing.append("nutcracker is not on PATH: install Debian's nutcracker (twemproxy; "
                       "apt-get install nutcracker)")
    return missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", help="the server to test (default: $GPUHASH_SERVER_BINARY)")
    parser.add_argument("--memcached", action="store_true",
                        help="the binary is memcached: skip the gpuhash-server-only tests")
    parser.add_argument("modules", nargs="*", help=f"test modules (default: {' '.join(MODULES)})")
    args = parser.parse_args()
    modules = args.modules or MODULES

    if args.binary:
        os.environ["GPUHASH_SERVER_BINARY"] = os.path.abspath(args.binary)
    if args.memcached:
        os.environ["GPUHASH_SERVER_IS_MEMCACHED"] = "1"
    elif args.binary:
        os.environ.setdefault("GPUHASH_SERVER_IS_MEMCACHED", "0")
    if not os.environ.get("GPUHASH_SERVER_BINARY"):
        print("run_integration: no server to test: pass --binary PATH or set GPUHASH_SERVER_BINARY",
              file=sys.stderr)
        return 2
    missing = missing_prerequisites(modules)
    if missing:
        for line in missing:
            print(f"run_integration: {line}", file=sys.stderr)
        print(f"integration: 0 passed, {len(modules)} failed")
        return 1

    sys.path.insert(0, HERE)
    os.chdir(HERE)
    print(f"run_integration: {os.environ['GPUHASH_SERVER_BINARY']} "
          f"(memcached: {os.environ.get('GPUHASH_SERVER_IS_MEMCACHED', 'unset')}): {' '.join(modules)}",
          flush=True)
    suite = unittest.defaultTestLoader.loadTestsFromNames(modules)
    started = time.monotonic()
    result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"run_integration: {time.monotonic() - started:.1f} s")
    print(f"integration: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
