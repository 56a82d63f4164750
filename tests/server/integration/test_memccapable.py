"""libmemcached's protocol checker `memccapable` (Debian: libmemcached-tools),
its ASCII tests only (-a), against the server. Every test must pass.
Run with GPUHASH_SERVER_BINARY set; see server_process.py.
"""

import re
import shutil
import subprocess
import unittest

from server_process import ServerProcess

# The ASCII tests of memccapable 1.1.4 (libmemcached-tools 1.1.4): a test
# missing from the output fails as surely as a test reported failed.
ASCII_TESTS = [
    "ascii version", "ascii quit", "ascii verbosity", "ascii set", "ascii set noreply",
    "ascii get", "ascii gets", "ascii mget", "ascii flush", "ascii flush noreply",
    "ascii add", "ascii add noreply", "ascii replace", "ascii replace noreply", "ascii cas",
    "ascii cas noreply", "ascii delete", "ascii delete noreply", "ascii incr",
    "ascii incr noreply", "ascii decr", "ascii decr noreply", "ascii append",
    "ascii append noreply", "ascii prepend", "ascii prepend noreply", "ascii stat",
]


def memccapable():
    path = shutil.which("memccapable") or shutil.which("memcapable")
    if path is None:
        raise AssertionError("memccapable is not installed: install Debian's libmemcached-tools "
                             "(apt-get install libmemcached-tools)")
    return path


class MemccapableTest(unittest.TestCase):

    def test_ascii_protocol(self):
        tool = memccapable()
        with ServerProcess() as server:
            command = [tool, "-h", "127.0.0.1", "-p", str(server.port), "-a", "-v", "-t", "10"]
            try:
                run = subprocess.run(command, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired as expired:
                self.fail(f"{' '.join(command)} did not finish in 120 s; output so far:\n"
                          f"{expired.stdout}\n{server.output()}")
            output = run.stdout + run.stderr
            report = f"{' '.join(command)} exited {run.returncode}:\n{output}\n{server.output()}"
            # "ascii set      [pass]" per test on stdout; a failure prints its
            # assertion (-v) and "[FAIL]" on stderr, so the name of a failed
            # test is followed by the next test's name instead of "[pass]".
            passed = {m.group(1) for m in
                      re.finditer(r"(ascii [a-z]+(?: noreply)?)\s*(\[pass\])?", run.stdout)
                      if m.group(2)}
            not_passed = [name for name in ASCII_TESTS if name not in passed]
            self.assertEqual(not_passed, [], f"memccapable tests not passed\n{report}")
            self.assertNotIn("[FAIL]", output, report)
            self.assertIn("All tests passed", run.stdout, report)
            self.assertEqual(run.returncode, 0, report)


if __name__ == "__main__":
    unittest.main()
