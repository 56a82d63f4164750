"""The server through pymemcache (Debian's python3-pymemcache 3.5): every
command its Client offers, and its HashClient over three servers.
Run with GPUHASH_SERVER_BINARY set; see server_process.py.
"""

import random
import time
import unittest

from pymemcache.client.base import Client
from pymemcache.client.hash import HashClient
from pymemcache.exceptions import MemcacheClientError, MemcacheServerError

from server_process import ServerProcess, ServerTestCase


def client_for(server, **kwargs):
    kwargs.setdefault("default_noreply", False)
    return Client(server.address, connect_timeout=5, timeout=10, no_delay=True, **kwargs)


class ClientTest(ServerTestCase):
    """pymemcache's Client, one command after another."""

    def setUp(self):
        super().setUp()
        self.client = client_for(self.server)
        self.quiet = client_for(self.server, default_noreply=True)

    def tearDown(self):
        self.client.close()
        self.quiet.close()
        super().tearDown()

    def test_set_and_get(self):
        c = self.client
        self.assertTrue(c.set("sg", b"value"))
        self.assertEqual(c.get("sg"), b"value")
        self.assertIsNone(c.get("sg-missing"))
        self.assertEqual(c.get("sg-missing", default=b"dflt"), b"dflt")
        self.assertTrue(c.set("sg-int", 42))
        self.assertEqual(c.get("sg-int"), b"42")

    def test_set_with_noreply(self):
        # a connection's requests are answered in order: reading back on the
        # connection that wrote shows the writes without replies
        self.assertTrue(self.quiet.set("nr", b"1"))
        self.assertEqual(self.quiet.get("nr"), b"1")
        self.assertTrue(self.client.set("nr2", b"2", noreply=True))
        self.assertEqual(self.client.get_many(["nr", "nr2"]), {"nr": b"1", "nr2": b"2"})

    def test_flags(self):
        self.assertTrue(self.client.set("fl", b"x", flags=0xDEADBEEF))
        with_flags = client_for(self.server, deserializer=lambda key, value, flags: (value, flags))
        try:
            self.assertEqual(with_flags.get("fl"), (b"x", 0xDEADBEEF))
        finally:
            with_flags.close()

    def test_set_many_and_get_many(self):
        values = {f"many{i}": b"v%d" % i for i in range(50)}
        self.assertEqual(self.client.set_many(values), [])
        keys = list(values) + ["many-missing"]
        self.assertEqual(self.client.get_many(keys), values)
        self.assertEqual(self.quiet.set_many({"many0": b"new"}), [])
        self.assertEqual(self.quiet.get("many0"), b"new")
        self.assertEqual(self.client.get_many([]), {})

    def test_gets_and_cas(self):
        c = self.client
        self.assertEqual(c.gets("cas-missing"), (None, None))
        self.assertIsNone(c.cas("cas-missing", b"x", b"1"))
        c.set("casv", b"one")
        value, cas = c.gets("casv")
        self.assertEqual(value, b"one")
        self.assertTrue(c.cas("casv", b"two", cas))
        self.assertFalse(c.cas("casv", b"three", cas))
        self.assertEqual(c.get("casv"), b"two")
        _, cas2 = c.gets("casv")
        self.assertNotEqual(cas, cas2)
        self.assertTrue(c.cas("casv", b"four", cas2, noreply=True))
        self.assertEqual(c.get("casv"), b"four")

    def test_gets_many(self):
        c = self.client
        c.set_many({"gm1": b"a", "gm2": b"b"})
        result = c.gets_many(["gm1", "gm2", "gm-missing"])
        self.assertEqual(sorted(result), ["gm1", "gm2"])
        self.assertEqual(result["gm1"][0], b"a")
        self.assertEqual(result["gm2"][0], b"b")
        self.assertNotEqual(result["gm1"][1], result["gm2"][1])

    def test_add_and_replace(self):
        c = self.client
        self.assertTrue(c.add("ar", b"1"))
        self.assertFalse(c.add("ar", b"2"))
        self.assertTrue(c.replace("ar", b"3"))
        self.assertFalse(c.replace("ar-missing", b"3"))
        self.assertEqual(c.get("ar"), b"3")
        self.assertIsNone(c.get("ar-missing"))
        self.assertTrue(self.quiet.add("ar", b"4"))       # noreply: always True
        self.assertTrue(self.quiet.replace("ar-missing", b"4"))
        self.assertEqual(self.quiet.get_many(["ar", "ar-missing"]), {"ar": b"3"})

    def test_append_and_prepend(self):
        c = self.client
        self.assertFalse(c.append("ap-missing", b"x"))
        self.assertFalse(c.prepend("ap-missing", b"x"))
        c.set("ap", b"mid")
        self.assertTrue(c.append("ap", b"end"))
        self.assertTrue(c.prepend("ap", b"start"))
        self.assertTrue(self.quiet.append("ap", b"!"))
        self.assertEqual(self.quiet.get("ap"), b"startmidend!")

    def test_delete_and_delete_many(self):
        c = self.client
        c.set_many({"d1": b"1", "d2": b"2", "d3": b"3"})
        self.assertTrue(c.delete("d1"))
        self.assertFalse(c.delete("d1"))
        self.assertTrue(c.delete_many(["d2", "d3", "d-missing"]))
        self.assertEqual(c.get_many(["d1", "d2", "d3"]), {})
        c.set("d4", b"4")
        self.assertTrue(self.quiet.delete("d4"))
        self.assertIsNone(self.quiet.get("d4"))

    def test_incr_and_decr(self):
        c = self.client
        self.assertIsNone(c.incr("n-missing", 1))
        self.assertIsNone(c.decr("n-missing", 1))
        c.set("n", b"10")
        self.assertEqual(c.incr("n", 5), 15)
        self.assertEqual(c.decr("n", 3), 12)
        self.assertEqual(c.decr("n", 100), 0)
        c.set("n", b"%d" % (2**64 - 1))
        self.assertEqual(c.incr("n", 2), 1)
        self.assertIsNone(c.incr("n", 1, noreply=True))
        self.assertIsNone(c.decr("n", 1, noreply=True))
        self.assertEqual(int(c.get("n")), 1)
        c.set("n-text", b"abc")
        with self.assertRaises(MemcacheClientError):
            c.incr("n-text", 1)

    def test_touch(self):
        c = self.client
        self.assertFalse(c.touch("t-missing", 10))
        c.set("t", b"x")
        self.assertTrue(c.touch("t", 100))
        self.assertTrue(self.quiet.touch("t", 100))
        self.assertEqual(self.quiet.get("t"), b"x")  # the touch is done
        self.assertTrue(c.touch("t", -1))
        self.assertIsNone(c.get("t"))

    def test_expire(self):
        c = self.client
        self.assertTrue(c.set("exp-past", b"x", expire=-1))
        self.assertIsNone(c.get("exp-past"))
        self.assertTrue(c.set("exp-abs", b"x", expire=int(time.time()) - 100))
        self.assertIsNone(c.get("exp-abs"))
        self.assertTrue(c.set("exp-far", b"x", expire=3600))
        self.assertEqual(c.get("exp-far"), b"x")

    def test_stats(self):
        c = self.client
        c.set("st", b"x")
        stats = c.stats()
        self.assertGreaterEqual(stats[b"curr_items"], 1)
        self.assertEqual(stats[b"pid"], self.server.process.pid)
        self.assertIsInstance(stats[b"uptime"], int)
        settings = c.stats("settings")
        self.assertEqual(settings[b"tcpport"], self.server.port)
        self.assertEqual(settings[b"maxbytes"], 64 * 1024 * 1024)
        self.assertTrue(c.stats("items"))
        self.assertTrue(c.stats("slabs"))

    def test_version(self):
        version = self.client.version()
        self.assertIsInstance(version, bytes)
        self.assertTrue(version)

    def test_cache_memlimit(self):
        self.assertTrue(self.client.cache_memlimit(100))
        self.assertEqual(self.client.stats()[b"limit_maxbytes"], 100 * 1024 * 1024)
        self.assertTrue(self.client.cache_memlimit(64))

    def test_quit_then_reconnect(self):
        c = self.client
        c.set("q", b"1")
        c.quit()
        self.assertEqual(c.get("q"), b"1")  # the client connects again

    def test_large_values(self):
        c = self.client
        rng = random.Random(7)
        for size in (0, 1, 1000, 100_000, 500_000, 1_000_000):
            value = rng.randbytes(size)
            self.assertTrue(c.set(f"large{size}", value), size)
            self.assertTrue(c.get(f"large{size}") == value, size)
        with self.assertRaises(MemcacheServerError) as raised:
            c.set("too-large", b"x" * (1024 * 1024 + 1))
        self.assertIn("object too large for cache", str(raised.exception))
        c.set("after-large", b"ok")
        self.assertEqual(c.get("after-large"), b"ok")

    def test_binary_safe_values(self):
        c = self.client
        values = {
            "bs-crlf": b"line1\r\nline2\r\n",
            "bs-end": b"\r\nEND\r\n",
            "bs-value": b"VALUE x 0 1\r\nx\r\nEND\r\n",
            "bs-all": bytes(range(256)) * 4,
            "bs-nul": b"\x00" * 100,
        }
        self.assertEqual(c.set_many(values), [])
        self.assertEqual(c.get_many(list(values)), values)
        for key, value in values.items():
            self.assertEqual(c.get(key), value)

    def test_flush_all(self):
        c = self.client
        c.set("fa", b"1")
        self.assertTrue(c.flush_all())
        self.assertIsNone(c.get("fa"))
        c.set("fa", b"2")
        self.assertTrue(self.quiet.flush_all())
        self.assertIsNone(self.quiet.get("fa"))
        c.set("fa", b"3")
        self.assertTrue(c.flush_all(delay=100))
        self.assertEqual(c.get("fa"), b"3")
        self.assertTrue(c.flush_all(delay=0))  # cancels nothing, flushes now
        self.assertIsNone(c.get("fa"))


class ShutdownTest(unittest.TestCase):

    def test_shutdown(self):
        with ServerProcess(["-A"]) as server:
            c = client_for(server)
            c.set("k", b"v")
            c.shutdown()
            self.assertEqual(server.wait_exit(5), 0, server.output())
            c.close()


class HashClientTest(unittest.TestCase):
    """pymemcache's HashClient spreading keys over three servers."""

    @classmethod
    def setUpClass(cls):
        cls.servers = []
        try:
            for _ in range(3):
                cls.servers.append(ServerProcess().start())
        except BaseException:
            for s in cls.servers:
                s.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        errors = []
        for s in cls.servers:
            try:
                s.stop()
            except AssertionError as error:
                errors.append(str(error))
        if errors:
            raise AssertionError("\n".join(errors))

    def test_keys_spread_over_all_servers(self):
        self.assertEqual(len({s.port for s in self.servers}), 3)
        hashed = HashClient([s.address for s in self.servers], connect_timeout=5, timeout=10,
                            default_noreply=False, use_pooling=False)
        singles = [client_for(s) for s in self.servers]
        try:
            values = {f"hash-key-{i}": b"value-%d" % i for i in range(300)}
            for key, value in list(values.items())[:150]:
                self.assertTrue(hashed.set(key, value))
            self.assertEqual(hashed.set_many(dict(list(values.items())[150:])), [])
            # every key is found through the HashClient, one by one and at once
            for key, value in values.items():
                self.assertEqual(hashed.get(key), value, key)
            self.assertEqual(hashed.get_many(list(values)), values)
            # each key lives on exactly one server, and every server holds some
            found = {}
            for client in singles:
                part = client.get_many(list(values))
                self.assertTrue(part, "a server got no keys")
                self.assertFalse(set(part) & set(found), "a key is on two servers")
                found.update(part)
            self.assertEqual(found, values)
            for client in singles:
                self.assertGreater(client.stats()[b"curr_items"], 0)
            # the other commands through the HashClient
            self.assertEqual(hashed.incr("hash-counter", 1), None)
            hashed.set("hash-counter", b"1")
            self.assertEqual(hashed.incr("hash-counter", 4), 5)
            self.assertEqual(hashed.decr("hash-counter", 2), 3)
            self.assertTrue(hashed.add("hash-added", b"a"))
            self.assertFalse(hashed.add("hash-added", b"b"))
            self.assertTrue(hashed.append("hash-added", b"z"))
            self.assertTrue(hashed.prepend("hash-added", b"y"))
            self.assertEqual(hashed.get("hash-added"), b"yaz")
            value, cas = hashed.gets("hash-added")
            self.assertTrue(hashed.cas("hash-added", b"c", cas))
            self.assertTrue(hashed.replace("hash-added", b"d"))
            self.assertTrue(hashed.touch("hash-added", 100))
            self.assertTrue(hashed.delete("hash-added"))
            self.assertTrue(hashed.delete_many(list(values)[:100]))
            self.assertEqual(len(hashed.get_many(list(values))), 200)
            hashed.flush_all()  # HashClient's flush_all returns nothing
            self.assertEqual(hashed.get_many(list(values)), {})
        finally:
            hashed.close()
            for client in singles:
                client.close()


if __name__ == "__main__":
    unittest.main()
