"""memcached 1.6's TEMP segment (-o temporary_ttl, its temp_lru), as a client
sees it: an item stored with an expiry at most temporary_ttl seconds away
goes to its class's TEMP LRU instead of HOT (`stats items`' number_temp);
TEMP's items are never moved between segments and never evicted, so a
class whose other items are all gone refuses stores (`outofmemory`); a read
of one counts in hits_to_temp; the juggle reclaims TEMP's dead tail, up to
its first live item. Run against memcached too (run_integration.py
--memcached): every number expected here is memcached's.

As test_lru.py: one worker thread (`-t 1`: gpuhash-server keeps one shard)
and `-m 2`, where items of class 12 fill 2 pages; each step waits for
memcached's maintainer (`settled`), where gpuhash-server is asked once.
"""

import time
import unittest

from server_process import Connection, ServerProcess
from test_lru import CAPACITY, SIZE_CLASS, key_of, read_range, settled, store_range
from test_memory import general, items

SEGMENTS = ("number_hot", "number_warm", "number_cold", "number_temp")


def segments(numbers):
    return tuple(numbers.get(name, 0) for name in SEGMENTS)


class TempSegmentTest(unittest.TestCase):
    """Which items go to TEMP."""

    def test_items_expiring_within_temporary_ttl_enter_temp(self):
        with ServerProcess(["-t", "1", "-m", "2", "-o", "temporary_ttl=10"]) as server:
            c = Connection.to(server)
            settings = c.stats(b"settings")
            self.assertEqual((settings["temp_lru"], settings["temporary_ttl"]), (b"yes", b"10"))
            store_range(c, 0, 20, exptime=10)  # at temporary_ttl: TEMP
            store_range(c, 20, 20, exptime=11)
            store_range(c, 40, 20)  # never expires
            # HOT keeps a fifth of the 40 others, TEMP's bytes left out (with
            # them, 12), or none once they are a second old
            numbers = settled(c, lambda n: n.get("number_temp") == 20
                              and n.get("number_hot", 99) <= 8)
            self.assertEqual(numbers["number"], 60)
            self.assertEqual(numbers["number_temp"], 20)
            self.assertEqual(numbers["number_hot"] + numbers["number_cold"], 40)
            self.assertLessEqual(numbers["number_hot"], 8)
            self.assertEqual(numbers["moves_to_cold"], numbers["number_cold"])
            c.close()

    def test_the_expiry_a_store_is_given_decides(self):
        # small items (class 1): a set's and an ms's expiry decide; mg and ma
        # create an item without one (N's TTL comes after), so never in TEMP;
        # an append keeps the old expiry, and touch moves nothing
        with ServerProcess(["-t", "1", "-o", "temporary_ttl=10"]) as server:
            c = Connection.to(server)
            c.request(b"set short 0 5 1\r\nx\r\n", b"STORED\r\n")
            c.request(b"ms meta 1 T5\r\ny\r\n", b"HD\r\n")
            now = int(c.stats()["time"])
            c.request(b"set absolute 0 %d 1\r\nz\r\n" % (now + 5), b"STORED\r\n")
            c.request(b"set long 0 100 1\r\nx\r\n", b"STORED\r\n")
            c.request(b"append long 0 5 1\r\ny\r\n", b"STORED\r\n")
            c.request(b"set never 0 0 1\r\nx\r\n", b"STORED\r\n")
            c.request(b"touch never 5\r\n", b"TOUCHED\r\n")
            c.request(b"mg vivified N5\r\n", b"HD W\r\n")
            c.request(b"ma counted N5\r\n", b"HD\r\n")
            numbers = settled(c, lambda n: n.get("number_temp") == 3, size_class=1)
            self.assertEqual(numbers["number"], 7)
            self.assertEqual(numbers["number_temp"], 3)
            c.close()


class TempEvictionTest(unittest.TestCase):
    """TEMP's items are never evicted: stores evict the others, then fail."""

    def test_temp_items_survive_a_fill_and_then_refuse_room(self):
        with ServerProcess(["-t", "1", "-m", "2", "-o", "temporary_ttl=100"]) as server:
            c = Connection.to(server)
            store_range(c, 0, 500, exptime=60)
            store_range(c, 500, 1500)
            numbers = settled(c, lambda n: n.get("number_hot", 0) * 5 <= CAPACITY - 500)
            self.assertEqual(numbers["number"], CAPACITY)
            self.assertEqual(numbers["number_temp"], 500)
            self.assertEqual(numbers["evicted"], 2000 - CAPACITY)
            self.assertEqual(read_range(c, 0, 500), {key_of(i) for i in range(500)})
            # read twice, TEMP's items are marked active and stay where they are
            self.assertEqual(len(read_range(c, 0, 500)), 500)
            numbers = items(c)[SIZE_CLASS]
            self.assertEqual((numbers["number_temp"], numbers["hits_to_temp"]), (500, 1000))
            self.assertEqual((numbers["moves_to_warm"], numbers["number_warm"]), (0, 0))

            # TEMP items fill what evictions free; once only TEMP is left,
            # each store fails after memcached's 10 passes
            store_range(c, 2000, 1500, exptime=60)
            numbers = settled(c, lambda n: n.get("number_temp") == CAPACITY)
            self.assertEqual(segments(numbers), (0, 0, 0, CAPACITY))
            self.assertEqual(numbers["evicted"], 1500)
            refused = 1500 - (CAPACITY - 500)
            self.assertEqual(numbers["outofmemory"], refused)
            self.assertEqual(general(c, "curr_items", "evictions"),
                             {"curr_items": CAPACITY, "evictions": 1500})
            c.request(b"set one_more 0 0 1000\r\n" + b"v" * 1000 + b"\r\n",
                      b"SERVER_ERROR out of memory storing object\r\n")
            after = items(c)[SIZE_CLASS]
            self.assertEqual(after["outofmemory"], refused + 1)
            self.assertEqual(after["direct_reclaims"], numbers["direct_reclaims"] + 10)
            self.assertEqual(read_range(c, 0, 500), {key_of(i) for i in range(500)})
            c.close()


class TempReclaimTest(unittest.TestCase):
    """The juggle reclaims TEMP's dead tail, up to its first live item."""

    def test_dead_items_leave_temps_tail(self):
        # no LRU crawler: it would reclaim them too (crawler_reclaimed)
        with ServerProcess(["-t", "1", "-m", "2", "-o", "temporary_ttl=10,no_lru_crawler"]) \
                as server:
            c = Connection.to(server)
            store_range(c, 0, 1, exptime=1)  # TEMP's tail
            store_range(c, 1, 1, exptime=9)
            store_range(c, 2, 1, exptime=1)  # TEMP's head, dead behind a live item
            self.assertEqual(segments(items(c)[SIZE_CLASS]), (0, 0, 0, 3))
            deadline = time.monotonic() + 10
            numbers = {}
            while time.monotonic() < deadline:
                numbers = items(c)[SIZE_CLASS]
                if numbers["reclaimed"] >= 1:
                    break
                time.sleep(0.1)
            time.sleep(0.3)  # memcached: the maintainer's next juggles too
            numbers = items(c)[SIZE_CLASS]
            self.assertEqual((numbers["reclaimed"], numbers["expired_unfetched"]), (1, 1))
            self.assertEqual(segments(numbers), (0, 0, 0, 2))
            self.assertEqual(general(c, "curr_items")["curr_items"], 2)
            c.close()


if __name__ == "__main__":
    unittest.main()
