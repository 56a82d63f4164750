"""A fleet of servers behind a standard proxy: twemproxy (Debian's
nutcracker 0.5) with ketama distribution in front of three servers, and
pymemcache talking to the proxy. Keys spread over the servers; when one
server stops, the proxy ejects it and goes on with the others, and nothing
it returns is wrong (a key of the stopped server is a miss, never another
key's value). Run with GPUHASH_SERVER_BINARY set; see server_process.py.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from pymemcache.client.base import Client
from pymemcache.exceptions import MemcacheError

from server_process import HOST, Connection, ServerProcess, free_port

KEYS = 10_000


def value_of(key):
    return f"value of {key}".encode() * 3


class Proxy:
    """nutcracker in front of `servers`, ejecting a server after one failure."""

    def __init__(self, servers, folder):
        self.port = free_port()
        config = os.path.join(folder, "nutcracker.yml")
        lines = ["fleet:", f"  listen: {HOST}:{self.port}", "  hash: fnv1a_64",
                 "  distribution: ketama", "  timeout: 5000", "  auto_eject_hosts: true",
                 "  server_retry_timeout: 600000", "  server_failure_limit: 1", "  servers:"]
        lines += [f"    - {HOST}:{server.port}:1 server{i}" for i, server in enumerate(servers)]
        with open(config, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.log = os.path.join(folder, "nutcracker.log")
        command = [shutil.which("nutcracker"), "-c", config, "-o", self.log, "-p",
                   os.path.join(folder, "nutcracker.pid"), "-s", str(free_port()), "-a", HOST]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection((HOST, self.port), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise AssertionError(f"nutcracker did not start: {self.log_text()}")
                time.sleep(0.05)

    def log_text(self):
        try:
            with open(self.log) as f:
                return f.read()[-2000:]
        except OSError:
            return "(no log)"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class TwemproxyTest(unittest.TestCase):

    def test_a_fleet_behind_twemproxy(self):
        self.assertIsNotNone(shutil.which("nutcracker"),
                             "nutcracker is not on PATH: install Debian's nutcracker")
        folder = tempfile.mkdtemp(prefix="gpuhash-proxy-")
        servers = [ServerProcess(["-m", "64"]) for _ in range(3)]
        proxy = None
        try:
            for server in servers:
                server.start()
            proxy = Proxy(servers, folder)
            client = Client((HOST, proxy.port), connect_timeout=5, timeout=10, no_delay=True)
            keys = [f"fleet:{i}" for i in range(KEYS)]
            for start in range(0, KEYS, 500):
                failed = client.set_many({k: value_of(k) for k in keys[start:start + 500]})
                self.assertEqual(failed, [], "sets through the proxy failed")
            for start in range(0, KEYS, 500):
                batch = keys[start:start + 500]
                self.assertEqual(client.get_many(batch), {k: value_of(k) for k in batch})

            # ketama spread the keys: every server holds some, and together all
            held = []
            for server in servers:
                direct = Connection.to(server)
                held.append(int(direct.stats()["curr_items"]))
                direct.close()
            self.assertTrue(all(count > 0 for count in held), f"keys per server: {held}")
            self.assertEqual(sum(held), KEYS, f"keys per server: {held}")

            # One server stops: its keys fail once, then the proxy ejects it
            # and answers them from the others (misses). Nothing is wrong.
            servers[1].stop()
            errors = 0
            for key in keys:
                try:
                    got = client.get(key)
                except (MemcacheError, OSError):
                    errors += 1
                    client.close()  # the proxy may have closed the connection
                    continue
                self.assertIn(got, (value_of(key), None), f"{key} came back wrong")
            self.assertLessEqual(errors, 10, "the proxy did not eject the stopped server")
            missed = 0
            for key in keys:
                got = client.get(key)  # no errors once the server is ejected
                self.assertIn(got, (value_of(key), None), f"{key} came back wrong")
                missed += got is None
            self.assertEqual(missed, held[1], "only the stopped server's keys may be missed")
            # and the fleet still takes writes, for every key
            self.assertEqual(client.set_many({k: b"again" for k in keys[:1000]}), [])
            self.assertEqual(set(client.get_many(keys[:1000]).values()), {b"again"})
            client.close()
        finally:
            if proxy is not None:
                proxy.stop()
            for server in servers:
                server.stop()
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
