"""The server under load: eviction in a small memory, -M, many concurrent
clients. Run with GPUHASH_SERVER_BINARY set; see server_process.py.
"""

import os
import socket
import threading
import time
import unittest

from server_process import Connection, ServerError, ServerProcess, is_memcached, server_binary

MEMORY_MB = 2          # -m: the smallest memory the test asks for
VALUE_SIZE = 1000


def value_of(i, size=VALUE_SIZE):
    prefix = b"%d:" % i
    return prefix + b"v" * (size - len(prefix))


def fill(c, first, count, noreply=True, batch=200):
    """Stores keys fill<first>..fill<first+count-1> with 1000-byte values,
    pipelined in batches; returns the replies when noreply is False."""
    replies = []
    for start in range(first, first + count, batch):
        end = min(start + batch, first + count)
        c.send(b"".join(b"set fill%d 0 0 %d%s\r\n%s\r\n"
                        % (i, VALUE_SIZE, b" noreply" if noreply else b"", value_of(i))
                        for i in range(start, end)))
        if noreply:
            c.sync()
        else:
            replies += [c.read_line() for _ in range(start, end)]
    return replies


class EvictionTest(unittest.TestCase):

    def test_eviction_keeps_recent_keys(self):
        total = 20 * MEMORY_MB * 1024 * 1024 // VALUE_SIZE  # ~20x the memory
        with ServerProcess(["-m", str(MEMORY_MB)]) as server:
            c = Connection.to(server)
            fill(c, 0, total)
            stats = c.stats()
            self.assertGreater(int(stats["evictions"]), 0)
            self.assertLess(int(stats["curr_items"]), total)
            self.assertLessEqual(int(stats["bytes"]), int(stats["limit_maxbytes"]))
            self.assertEqual(int(stats["limit_maxbytes"]), MEMORY_MB * 1024 * 1024)
            # the most recent keys are all there, with their values
            recent = range(total - 100, total)
            values = c.get_values(b"get " + b" ".join(b"fill%d" % i for i in recent))
            self.assertEqual([(k, v) for k, _, v, _ in values],
                             [(b"fill%d" % i, value_of(i)) for i in recent])
            # the oldest are gone
            self.assertEqual(c.get_values(b"get fill0 fill1 fill2"), [])
            # and the server keeps answering and storing: values of the size
            # that filled the memory...
            c.request(b"set after 0 0 %d\r\n%s\r\n" % (VALUE_SIZE, value_of(1)), b"STORED\r\n")
            # ...and of other sizes (memcached gives each slab class its first
            # page even when -m is used up, so a full cache still takes them)
            for size in (2, 100, 5000, 100_000):
                c.request(b"set other%d 0 0 %d\r\n%s\r\n" % (size, size, b"o" * size), b"STORED\r\n",
                          msg=f"a {size}-byte value in a cache filled with {VALUE_SIZE}-byte values")
                values = c.get_values(b"get other%d" % size)
                self.assertEqual(len(values), 1, size)
            other = Connection.to(server)
            other.sync()
            other.close()
            c.close()


class NoEvictionTest(unittest.TestCase):

    def test_M_answers_out_of_memory(self):
        with ServerProcess(["-m", str(MEMORY_MB), "-M"]) as server:
            c = Connection.to(server)
            self.assertEqual(c.stats(b"settings")["evictions"], b"off")
            total = 20 * MEMORY_MB * 1024 * 1024 // VALUE_SIZE
            replies = fill(c, 0, total, noreply=False)
            stored = replies.count(b"STORED\r\n")
            refused = replies.count(b"SERVER_ERROR out of memory storing object\r\n")
            self.assertEqual(stored + refused, total, set(replies))
            self.assertGreater(stored, 0)
            self.assertGreater(refused, 0)
            self.assertEqual(c.stats()["evictions"], b"0")
            # what was stored stays: nothing was evicted to make room
            first = replies.index(b"STORED\r\n")
            values = c.get_values(b"get fill%d" % first)
            self.assertEqual(values[0][2], value_of(first))
            stored_keys = [i for i, r in enumerate(replies) if r == b"STORED\r\n"]
            self.assertEqual(int(c.stats()["curr_items"]), len(stored_keys))
            # the connection stays usable; room made by a flush is used again
            c.request(b"flush_all\r\n", b"OK\r\n")
            c.request(b"set again 0 0 %d\r\n%s\r\n" % (VALUE_SIZE, value_of(0)), b"STORED\r\n",
                      msg="after flush_all the memory of the flushed items is used again")
            c.close()

    def test_M_with_noreply_answers_nothing(self):
        """A noreply set refused for memory gets no reply, as in memcached:
        the client reads none, so an error line would put it out of step
        (fill() checks after each pipelined batch that nothing came before
        `mn`'s MN)."""
        with ServerProcess(["-m", str(MEMORY_MB), "-M"]) as server:
            c = Connection.to(server)
            total = 20 * MEMORY_MB * 1024 * 1024 // VALUE_SIZE
            fill(c, 0, total, noreply=True)
            stats = c.stats()
            self.assertGreater(int(stats["curr_items"]), 0)
            self.assertLess(int(stats["curr_items"]), total, "nothing was refused")
            self.assertEqual(stats["evictions"], b"0")
            c.close()


class SlowClientTest(unittest.TestCase):
    """A client that stops reading holds up nobody else: the server stops
    writing to it when its socket is full and serves the other connections
    of the same worker thread (-t 1) meanwhile."""

    def test_a_client_that_stops_reading_holds_up_nobody(self):
        # values larger than the kernel's socket buffers can take (4 MB of
        # send buffer at most by default, and a receive buffer made small),
        # so the server's writes to the slow client must stop part way
        size = 12 * 1000 * 1000
        value = b"%d:" % size + b"s" * (size - len(b"%d:" % size))
        repeats = 3
        with ServerProcess(["-t", "1", "-I", "16m", "-m", "128"]) as server:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(60.0)
            sock.connect(server.address)
            # (its replies crawl through a 4 KB window: a loaded machine takes
            # seconds a value, which says nothing about the server)
            slow = Connection(sock, timeout=60.0)
            slow.request(b"set big 0 0 %d\r\n%s\r\n" % (size, value), b"STORED\r\n")
            slow.send(b"get " + b" ".join([b"big"] * repeats) + b"\r\n")
            # the slow client reads nothing now; another one is served
            other = Connection.to(server)
            for i in range(200):
                other.request(b"set other%d 0 0 2\r\nv%d\r\nget other%d\r\n" % (i, i % 10, i),
                              b"STORED\r\nVALUE other%d 0 2\r\nv%d\r\nEND\r\n" % (i, i % 10),
                              msg="while another client on the same thread read nothing")
            # and the slow client, reading at last, gets its whole reply
            values = slow.read_values()
            self.assertEqual(len(values), repeats)
            self.assertTrue(all(v == value for _, _, v, _ in values))
            slow.sync()
            other.close()
            slow.close()


class ConcurrencyTest(unittest.TestCase):

    THREADS = 8
    KEYS = 400

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def run_threads(self, work):
        errors = []

        def guarded(index):
            try:
                work(index)
            except BaseException as error:  # reported by the main thread
                errors.append(f"thread {index}: {error!r}")

        threads = [threading.Thread(target=guarded, args=(i,)) for i in range(self.THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertFalse(any(t.is_alive() for t in threads), "a client thread hung")
        self.assertEqual(errors, [])

    def test_no_lost_writes(self):
        def writer(t):
            c = Connection.to(self.server)
            # round 1: one request per round trip; round 2: overwrite, pipelined
            for k in range(self.KEYS):
                c.request(b"set t%d-k%d 0 0 4\r\nold!\r\n" % (t, k), b"STORED\r\n")
            for start in range(0, self.KEYS, 50):
                ks = range(start, min(start + 50, self.KEYS))
                c.send(b"".join(b"set t%d-k%d %d 0 %d\r\n%s\r\n" % (t, k, k, len(b"%d/%d" % (t, k)),
                                                                   b"%d/%d" % (t, k)) for k in ks))
                c.expect(b"STORED\r\n" * len(ks))
            c.close()

        self.run_threads(writer)
        c = Connection.to(self.server)
        for t in range(self.THREADS):
            keys = [b"t%d-k%d" % (t, k) for k in range(self.KEYS)]
            values = c.get_values(b"get " + b" ".join(keys))
            self.assertEqual(values, [(b"t%d-k%d" % (t, k), k, b"%d/%d" % (t, k), None)
                                      for k in range(self.KEYS)])
        self.assertGreaterEqual(int(c.stats()["curr_items"]), self.THREADS * self.KEYS)
        c.close()

    def test_shared_counter(self):
        increments = 250
        c = Connection.to(self.server)
        c.request(b"set counter 0 0 1\r\n0\r\n", b"STORED\r\n")
        results = [[] for _ in range(self.THREADS)]

        def incrementer(t):
            conn = Connection.to(self.server)
            for _ in range(increments):
                if t % 2:
                    conn.send(b"incr counter 1\r\n")
                    results[t].append(int(conn.read_line()))
                else:
                    conn.send(b"ma counter v\r\n")
                    size = int(conn.read_line().split()[1])
                    results[t].append(int(conn.read_exact(size + 2)))
            conn.close()

        self.run_threads(incrementer)
        total = self.THREADS * increments
        values = c.get_values(b"get counter")
        self.assertEqual(int(values[0][2]), total)
        # each increment saw its own value: no two were applied on the same one
        self.assertEqual(sorted(v for r in results for v in r), list(range(1, total + 1)))
        c.close()

    def test_many_connections_at_once(self):
        conns = [Connection.to(self.server) for _ in range(200)]
        try:
            for i, c in enumerate(conns):
                c.send(b"set many-conn%d 0 0 %d\r\n%d\r\n" % (i, len(b"%d" % i), i))
            for c in conns:
                c.expect(b"STORED\r\n")
            for i, c in enumerate(reversed(conns)):
                c.request(b"get many-conn%d\r\n" % i, b"VALUE many-conn%d 0 %d\r\n%d\r\nEND\r\n"
                          % (i, len(b"%d" % i), i))
        finally:
            for c in conns:
                c.close()


if __name__ == "__main__":
    unittest.main()


@unittest.skipIf(is_memcached(), "gpuhash-server's index failover (memcached has no GPU index)")
class IndexFailoverTest(unittest.TestCase):
    """The index fails while serving (gpuhash-server-failing-index, a test
    build of the server built next to it, makes the first shard's 10th batch
    fail, as a GPU that fails would; that shard gets about a quarter of the
    requests at the default 4): the server says so loudly, rebuilds that
    shard's index on the CPU from its items and loses nothing."""

    def failing_index_binary(self):
        path = os.path.join(os.path.dirname(server_binary()), "gpuhash-server-failing-index")
        if not os.access(path, os.X_OK):
            raise ServerError(f"{path} is missing: build the target gpuhash-server-failing-index "
                              "(tests/server/integration), which building gpuhash-server builds")
        return path

    def test_a_failed_index_moves_to_the_cpu_and_loses_nothing(self):
        with ServerProcess(["--fail-index-at=10"], binary=self.failing_index_binary()) as server:
            self.check_failover(server)
        self.assertIn("rebuilding the index on the CPU", server.output())

    def check_failover(self, server):
        c = Connection.to(server)
        for i in range(100):  # one batch each, at least: the failure comes midway
            c.request(b"set fo%d 0 0 %d\r\n%s\r\n" % (i, len(value_of(i, 20)), value_of(i, 20)),
                      b"STORED\r\n")
            if i % 10 == 9:
                c.request(b"delete fo%d\r\n" % (i - 5), b"DELETED\r\n")
        deleted = {i - 5 for i in range(100) if i % 10 == 9}
        values = c.get_values(b"get " + b" ".join(b"fo%d" % i for i in range(100)))
        self.assertEqual([(k, v) for k, _, v, _ in values],
                         [(b"fo%d" % i, value_of(i, 20)) for i in range(100) if i not in deleted])
        stats = c.stats()
        self.assertEqual(stats["index_failovers"], b"1")
        self.assertEqual(stats["index"], b"cpu")
        self.assertEqual(int(stats["curr_items"]), 100 - len(deleted))
        c.close()


@unittest.skipIf(is_memcached(), "gpuhash-server's --index=auto (memcached has no GPU index)")
class IndexAutoTest(unittest.TestCase):
    """--index=auto: each shard's index starts on the GPU when there is one,
    else on the CPU, and moves between them as the load calls for; `stats`
    and `stats settings` say so. Where there is a GPU, lone requests move it
    to the CPU within seconds, and -v tells why."""

    AUTO_FIELDS = ["index_moves_to_cpu", "index_moves_to_gpu", "index_auto_windows",
                   "index_auto_cpu_us_per_s", "index_auto_gpu_us_per_s",
                   "index_auto_keys_per_batch", "index_auto_cpu_ns_per_key",
                   "index_auto_gpu_ns_per_batch"]

    def test_stats_show_the_mode_and_where_the_index_is(self):
        with ServerProcess(["--index=auto", "-t", "2", "-v"]) as server:
            c = Connection.to(server)
            stats = c.stats()
            settings = c.stats(b"settings")
            c.close()
        self.assertEqual(settings["index"], b"auto")
        self.assertEqual(stats["index_mode"], b"auto")
        for name in self.AUTO_FIELDS:
            self.assertIn(name, stats)
        self.assertEqual(stats["index_moves_to_cpu"], b"0")
        self.assertEqual(stats["index_moves_to_gpu"], b"0")
        on_gpu = stats["index"].startswith(b"gpu")
        self.assertEqual(stats["index_in_use"], b"gpu" if on_gpu else b"cpu")
        self.assertEqual(stats["index_gpu_shards"], b"2" if on_gpu else b"0")  # -t 2: two shards
        told = ("(--index=auto: moved between the GPU and the CPU as the load calls for)"
                if on_gpu else "(--index=auto: no GPU to move it to)")
        self.assertIn(told, server.output())

    def test_the_index_named_stays_where_it_is_named(self):
        with ServerProcess(["--index=cpu"]) as server:
            c = Connection.to(server)
            stats = c.stats()
            c.close()
        self.assertEqual(stats["index_mode"], b"cpu")
        self.assertEqual(stats["index_in_use"], b"cpu")
        self.assertEqual(stats["index_auto_windows"], b"0")

    def test_on_the_cpu_without_a_gpu_it_stays_there_under_load(self):
        with ServerProcess(["--index=auto", "-t", "2"]) as server:
            c = Connection.to(server)
            if c.stats()["index"].startswith(b"gpu"):
                c.close()
                self.skipTest("a GPU is present: test_lone_requests_move_the_index_to_the_cpu")
            for i in range(200):
                c.request(b"set ia%d 0 0 %d\r\n%s\r\n" % (i, len(value_of(i, 20)),
                                                            value_of(i, 20)), b"STORED\r\n")
            deadline = time.monotonic() + 2.5  # past two of the rule's windows
            while time.monotonic() < deadline:
                for i in range(0, 200, 7):
                    self.assertEqual(c.get_values(b"get ia%d" % i)[0][2], value_of(i, 20))
            stats = c.stats()
            c.close()
        self.assertEqual(stats["index_in_use"], b"cpu")
        self.assertEqual(stats["index_moves_to_cpu"], b"0")
        self.assertEqual(stats["index_moves_to_gpu"], b"0")

    def test_lone_requests_move_the_index_to_the_cpu(self):
        # one shard, one client, one request at a time: each batch costs the
        # GPU index a round trip, polled, for a key or two
        with ServerProcess(["--index=auto", "--shards=1", "-v"]) as server:
            c = Connection.to(server)
            if not c.stats()["index"].startswith(b"gpu"):
                c.close()
                self.skipTest("no GPU: the index starts on the CPU and has nowhere to go")
            for i in range(100):
                c.request(b"set ia%d 0 0 %d\r\n%s\r\n" % (i, len(value_of(i, 20)),
                                                            value_of(i, 20)), b"STORED\r\n")
            deadline = time.monotonic() + 20
            while c.stats()["index_moves_to_cpu"] == b"0" and time.monotonic() < deadline:
                for i in range(100):
                    self.assertEqual(c.get_values(b"get ia%d" % i)[0][2], value_of(i, 20))
            stats = c.stats()
            values = c.get_values(b"get " + b" ".join(b"ia%d" % i for i in range(100)))
            c.close()
        self.assertEqual(stats["index_moves_to_cpu"], b"1")
        self.assertEqual(stats["index_in_use"], b"cpu")
        self.assertEqual(stats["index"], b"cpu")
        self.assertEqual(stats["index_failovers"], b"0")
        self.assertEqual([v for _, _, v, _ in values], [value_of(i, 20) for i in range(100)])
        self.assertIn("--index=auto: shard 0's index moves to the CPU: the GPU index polls",
                      server.output())


def peak_memory_kb(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc/%d/status" % pid)


class LargeReplyTest(unittest.TestCase):
    """A small request can ask for a huge reply: a multi-get of one 1 MB value
    200 times is 200 MB of reply. The server answers it in parts as the client
    reads, so what it holds stays far below that."""

    def test_a_multiget_of_large_values_is_answered_in_parts(self):
        size = 1000 * 1000
        value = b"%d:" % size + b"b" * (size - len(b"%d:" % size))
        with ServerProcess() as server:
            c = Connection.to(server)
            c.request(b"set big 0 0 %d\r\n%s\r\n" % (size, value), b"STORED\r\n")
            before = peak_memory_kb(server.process.pid)
            repeats = 200
            values = c.get_values(b"get " + b" ".join([b"big"] * repeats))
            self.assertEqual(len(values), repeats)
            self.assertTrue(all(v == value for _, _, v, _ in values))
            grown_mb = (peak_memory_kb(server.process.pid) - before) / 1024
            self.assertLess(grown_mb, 64, "the server held %.0f MB for a 200 MB reply" % grown_mb)
            c.request(b"get big\r\n", b"VALUE big 0 %d\r\n%s\r\nEND\r\n" % (size, value))
            c.close()


@unittest.skipUnless(os.environ.get("GPUHASH_LOAD_BINARY"),
                     "GPUHASH_LOAD_BINARY (gpuhash-load, which CTest passes) is not set")
class LoadGeneratorTest(unittest.TestCase):
    """gpuhash-load, the generator of scripts/bench-server, against the
    server: every reply it checks is right, and an open-loop run sends what
    its schedule says, polling (--poll) or sleeping."""

    def run_generator(self, server, *flags):
        import json
        import subprocess
        args = [os.environ["GPUHASH_LOAD_BINARY"], "--port", str(server.port),
                "--connections", "4", "--threads", "2", "--duration", "1",
                "--warmup", "0.2", "--keys", "1000", "--json", *flags]
        run = subprocess.run(args, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, f"{args}: {run.stderr}")
        result = json.loads(run.stdout)
        self.assertEqual(result["errors"], 0, run.stdout)
        self.assertEqual(result["wrong_values"], 0, run.stdout)
        self.assertEqual(result["hit_ratio"], 1.0, run.stdout)
        return result

    def test_every_mix_closed_and_open_loop(self):
        with ServerProcess([]) as server:
            for mix in ("get90", "set50", "multiget100"):
                with self.subTest(mix=mix):
                    closed = self.run_generator(server, "--mix", mix)
                    self.assertFalse(closed["poll"])
                    self.assertGreater(closed["requests"], 0)
            for poll in ([], ["--poll"]):
                with self.subTest(poll=poll):
                    # 2,000 requests/s for 1 s: each of the 4 connections has
                    # 500 slots in the window; all are sent (a request unsent
                    # at the end would be counted, not dropped)
                    opened = self.run_generator(server, "--mix", "set50", "--rate", "2000", *poll)
                    self.assertEqual(opened["poll"], bool(poll))
                    self.assertEqual(opened["requests"] + opened["unsent"], 2000, opened)
