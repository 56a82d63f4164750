"""memcached 1.6's segmented LRU and its evictions, as a client sees them:
new items enter HOT, which keeps a fifth of its class's bytes; an item read
twice moves to WARM and outlives the unread items in COLD when memory runs
out; evictions take COLD's tail, oldest first; `stats items`' number_hot,
number_warm and number_cold add up to the class's items, and its moves and
`stats`' totals count what happened; a delete, a read or a flush_all is
followed by memcached's juggle; the `lru` command changes the shares, the
mode and TEMP at run time. Run against memcached too
(run_integration.py --memcached): every number expected here is memcached's.
test_temp_lru.py tests the TEMP segment (-o temporary_ttl).

Both servers run with one worker thread (`-t 1`: gpuhash-server keeps one
shard, whose LRUs are the whole class's) and `-m 2`, the least memcached
takes with its 1 MB -I: one size class gets 2 pages. memcached's LRU
maintainer moves items on its own thread, a moment after a store or read
(its sleep backs off up to 1 s when idle), so each step waits for the
counters it needs before the next (`settled`), and an expected boundary
between evicted and surviving keys has a tolerance (SLACK, below).
gpuhash-server makes the same moves at once, and is asked once.
"""

import time
import unittest

from server_process import Connection, ServerProcess, is_memcached
from test_memory import general, items, value_for

MB = 1 << 20
# Items of memcached's class 12 (1184-byte chunks, 885 a page): 2 pages under -m 2.
SIZE_CLASS = 12
ITEM_BYTES = 1100
CAPACITY = 2 * (MB // 1184)
FIRST_FILL = 1000
SECOND_FILL = 1500
READ_TWICE = 100  # the oldest items of the first fill
# Where the eviction order may differ from the exact one, in items. The
# eviction count is exact on both servers, but memcached's lru_pull_tail
# passes over an item whose lock its maintainer (or crawler) holds at that
# moment and evicts the one before it, so a key near the boundary may swap
# places with a neighbour.
SLACK = 16


def key_of(i):
    return b"key%05d" % i


def store_range(c, first, count, exptime=0):
    """Sets key_of(first) .. key_of(first + count - 1), ITEM_BYTES each as
    memcached counts them, a few hundred to a write (noreply)."""
    value = b"v" * value_for(ITEM_BYTES, key_of(0))
    for start in range(first, first + count, 200):
        end = min(first + count, start + 200)
        c.send(b"".join(b"set %s 0 %d %d noreply\r\n%s\r\n"
                        % (key_of(i), exptime, len(value), value) for i in range(start, end)))
        c.sync()


def read_range(c, first, count):
    """Gets the keys of the range, in multi-gets of 100; returns the keys found."""
    found = set()
    for start in range(first, first + count, 100):
        keys = [key_of(i) for i in range(start, min(first + count, start + 100))]
        found.update(key for key, _, _, _ in c.get_values(b"get " + b" ".join(keys)))
    return found


def settled(c, ready, timeout=10.0, size_class=SIZE_CLASS):
    """Polls `stats items`' class until ready(its fields) holds; returns them.
    memcached is ready once its maintainer has run; gpuhash-server juggles
    as it goes, so it is asked once (a juggle it left out fails the test)."""
    deadline = time.monotonic() + (timeout if is_memcached() else 0)
    while True:
        numbers = items(c).get(size_class, {})
        if ready(numbers) or time.monotonic() > deadline:
            return numbers
        time.sleep(0.05)


def within_hot_share(numbers, percent=20):
    """HOT holds at most its share of the class's bytes, all items the same size."""
    return numbers.get("number_hot", 0) * 100 <= percent * numbers.get("number", 0)


class SegmentsTest(unittest.TestCase):
    """Items enter HOT, which keeps its share; the segments add up."""

    def test_new_items_enter_hot_and_go_on_to_cold(self):
        with ServerProcess(["-t", "1", "-m", "2"]) as server:
            c = Connection.to(server)
            store_range(c, 0, FIRST_FILL)
            numbers = settled(c, within_hot_share)
            self.assertEqual(numbers["number"], FIRST_FILL)
            self.assertEqual(numbers["number_hot"] + numbers["number_warm"]
                             + numbers["number_cold"], numbers["number"])
            self.assertTrue(within_hot_share(numbers), numbers)
            self.assertEqual(numbers["number_warm"], 0, "nothing was read")
            self.assertEqual(numbers["moves_to_cold"], numbers["number_cold"])
            self.assertEqual((numbers["moves_to_warm"], numbers["evicted"]), (0, 0))
            totals = general(c, "curr_items", "moves_to_cold", "moves_to_warm", "evicted_active",
                             "lru_bumps_dropped", "lru_maintainer_juggles")
            self.assertEqual(totals["curr_items"], FIRST_FILL)
            self.assertEqual(totals["moves_to_cold"], numbers["moves_to_cold"])
            self.assertEqual((totals["moves_to_warm"], totals["evicted_active"],
                              totals["lru_bumps_dropped"]), (0, 0, 0))
            self.assertGreater(totals["lru_maintainer_juggles"], 0)
            c.close()

    def test_a_smaller_hot_share(self):
        with ServerProcess(["-t", "1", "-m", "2", "-o", "hot_lru_pct=5"]) as server:
            c = Connection.to(server)
            store_range(c, 0, FIRST_FILL)
            numbers = settled(c, lambda n: within_hot_share(n, 5))
            self.assertTrue(within_hot_share(numbers, 5), numbers)
            settings = c.stats(b"settings")
            self.assertEqual((settings["lru_segmented"], settings["hot_lru_pct"],
                              settings["warm_lru_pct"], settings["hot_max_factor"],
                              settings["warm_max_factor"], settings["temp_lru"]),
                             (b"yes", b"5", b"40", b"0.20", b"2.00", b"no"))
            c.close()


class EvictionTest(unittest.TestCase):
    """Under -m 2, a fill past memory evicts COLD's tail, oldest first; items
    read twice have moved to WARM and survive."""

    def test_items_read_twice_survive_and_the_oldest_unread_go(self):
        with ServerProcess(["-t", "1", "-m", "2"]) as server:
            c = Connection.to(server)
            store_range(c, 0, FIRST_FILL)
            settled(c, within_hot_share)
            # the first read marks an item fetched, the second active: in
            # COLD, that moves it to WARM (memcached: through its maintainer)
            for _ in range(2):
                self.assertEqual(len(read_range(c, 0, READ_TWICE)), READ_TWICE)
            numbers = settled(c, lambda n: n.get("moves_to_warm", 0) >= READ_TWICE)
            self.assertEqual((numbers["moves_to_warm"], numbers["number_warm"]),
                             (READ_TWICE, READ_TWICE))
            self.assertEqual(numbers["hits_to_cold"], 2 * READ_TWICE)

            store_range(c, FIRST_FILL, SECOND_FILL)
            numbers = settled(c, within_hot_share)
            stored = FIRST_FILL + SECOND_FILL
            self.assertEqual(numbers["number"], CAPACITY, "every chunk of the 2 pages holds one")
            self.assertEqual(numbers["evicted"], stored - CAPACITY)
            self.assertEqual(numbers["evicted_unfetched"], stored - CAPACITY)
            self.assertEqual(numbers["evicted_active"], 0)
            self.assertEqual(numbers["number_hot"] + numbers["number_warm"]
                             + numbers["number_cold"], CAPACITY)
            self.assertEqual(numbers["number_warm"], READ_TWICE)
            self.assertEqual(general(c, "evictions", "curr_items"),
                             {"evictions": stored - CAPACITY, "curr_items": CAPACITY})
            self.assertEqual(c.stats(b"slabs")["%d:total_chunks" % SIZE_CLASS], b"%d" % CAPACITY)

            # who survived: the items read twice, the newest unread of the
            # first fill, the whole second fill
            self.assertEqual(read_range(c, 0, READ_TWICE), {key_of(i) for i in range(READ_TWICE)})
            boundary = READ_TWICE + (stored - CAPACITY)  # the first unread survivor
            first_survivors = read_range(c, READ_TWICE, FIRST_FILL - READ_TWICE)
            self.assertFalse(first_survivors & {key_of(i) for i in range(READ_TWICE,
                                                                          boundary - SLACK)})
            self.assertEqual(first_survivors & {key_of(i) for i in range(boundary + SLACK,
                                                                          FIRST_FILL)},
                             {key_of(i) for i in range(boundary + SLACK, FIRST_FILL)})
            self.assertEqual(len(first_survivors), FIRST_FILL - boundary)
            self.assertEqual(len(read_range(c, FIRST_FILL, SECOND_FILL)), SECOND_FILL)
            c.close()

    def test_without_the_maintainer_a_read_within_a_minute_moves_nothing(self):
        # -o no_lru_maintainer: one LRU per class (COLD), where a read moves an
        # item only when its last move is over 60 s old (ITEM_UPDATE_INTERVAL):
        # the items just read are evicted in the order they were stored
        with ServerProcess(["-t", "1", "-m", "2", "-o", "no_lru_maintainer"]) as server:
            c = Connection.to(server)
            self.assertEqual(c.stats(b"settings")["lru_segmented"], b"no")
            store_range(c, 0, FIRST_FILL)
            for _ in range(2):
                read_range(c, 0, READ_TWICE)
            store_range(c, FIRST_FILL, SECOND_FILL)
            stored = FIRST_FILL + SECOND_FILL
            self.assertEqual(general(c, "evictions", "curr_items"),
                             {"evictions": stored - CAPACITY, "curr_items": CAPACITY})
            numbers = items(c)[SIZE_CLASS]
            self.assertNotIn("number_hot", numbers)
            self.assertEqual(numbers["evicted_unfetched"], stored - CAPACITY - READ_TWICE)
            self.assertEqual(read_range(c, 0, FIRST_FILL),
                             {key_of(i) for i in range(stored - CAPACITY, FIRST_FILL)})
            c.close()


class JuggleTest(unittest.TestCase):
    """memcached's maintainer juggles a class a moment after any change, a
    delete, a read or a flush_all included; gpuhash-server juggles at once."""

    def test_a_delete_moves_hots_tail_on_when_the_class_shrinks(self):
        with ServerProcess(["-t", "1", "-m", "2"]) as server:
            c = Connection.to(server)
            store_range(c, 0, 10)
            numbers = settled(c, within_hot_share)
            # HOT holds 2 of the 10 (unless a new second has aged them into COLD)
            self.assertEqual(numbers["number_hot"] + numbers["number_cold"], 10)
            for i in range(6):  # the oldest, in COLD
                c.request(b"delete %s\r\n" % key_of(i), b"DELETED\r\n")
            # 4 items left: even one in HOT is over a fifth, so HOT empties
            numbers = settled(c, lambda n: n.get("number_hot") == 0)
            self.assertEqual((numbers["number"], numbers["number_hot"], numbers["number_cold"],
                              numbers["moves_to_cold"]), (4, 0, 4, 10))
            c.close()

    def test_a_read_that_makes_hots_tail_active_moves_it_to_warm(self):
        # get, touch and gat are reads (do_item_bump): the second marks the
        # item active, and the juggle moves HOT's active tail to WARM
        for read in (b"get %s\r\n", b"touch %s 0\r\n", b"gat 0 %s\r\n"):
            with self.subTest(read=read), ServerProcess(["-t", "1", "-m", "2"]) as server:
                c = Connection.to(server)
                store_range(c, 0, 10)
                settled(c, within_hot_share)
                for _ in range(2):
                    c.send(read % key_of(8))  # HOT's tail (or, a second later, COLD's head)
                    c.read_until(b"END\r\n" if not read.startswith(b"touch") else b"\r\n")
                numbers = settled(c, lambda n: n.get("number_warm") == 1)
                self.assertEqual((numbers["number_warm"], numbers["moves_to_warm"]), (1, 1))
                self.assertEqual(numbers["number_hot"] + numbers["number_cold"], 9)
                self.assertEqual(read_range(c, 0, 10), {key_of(i) for i in range(10)})
                c.close()

    def test_flush_all_is_followed_by_the_reclaiming_of_every_item(self):
        # the flushed items are dead: the juggles reclaim them from the tails
        # (no LRU crawler, which would count them as crawler_reclaimed)
        with ServerProcess(["-t", "1", "-m", "2", "-o", "no_lru_crawler"]) as server:
            c = Connection.to(server)
            store_range(c, 0, FIRST_FILL)
            settled(c, within_hot_share)
            self.assertEqual(read_range(c, 0, 100), {key_of(i) for i in range(100)})
            c.request(b"flush_all\r\n", b"OK\r\n")
            settled(c, lambda n: not n)  # the class is gone from `stats items`
            self.assertEqual(general(c, "curr_items", "reclaimed", "expired_unfetched"),
                             {"curr_items": 0, "reclaimed": FIRST_FILL,
                              "expired_unfetched": FIRST_FILL - 100})
            self.assertNotIn(SIZE_CLASS, items(c))
            c.close()


if __name__ == "__main__":
    unittest.main()


class LruCommandTest(unittest.TestCase):
    """`lru tune|mode|temp_ttl`: memcached's replies, its checks of the
    arguments, and the changes `stats settings` and the LRU show."""

    LRU_SETTINGS = ("lru_segmented", "hot_lru_pct", "warm_lru_pct", "hot_max_factor",
                    "warm_max_factor", "temp_lru", "temporary_ttl")

    def lru_settings(self, c):
        settings = c.stats(b"settings")
        return tuple(settings[name] for name in self.LRU_SETTINGS)

    def test_replies_and_what_stats_settings_shows(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            self.assertEqual(self.lru_settings(c),
                             (b"yes", b"20", b"40", b"0.20", b"2.00", b"no", b"61"))
            self.assertEqual(c.command(b"lru tune 10 30 0.1 1.5"), b"OK\r\n")
            self.assertEqual(self.lru_settings(c),
                             (b"yes", b"10", b"30", b"0.10", b"1.50", b"no", b"61"))
            for line, reply in ((b"lru tune 41 40 0.1 1",
                                 b"ERROR hot and warm pcts must not exceed 80\r\n"),
                                (b"lru tune 10 10 0 1",
                                 b"ERROR hot/warm age factors must be greater than 0\r\n"),
                                (b"lru tune 10 x 0.1 1", b"ERROR\r\n"),
                                (b"lru tune 10 10 0.1", b"ERROR\r\n"),
                                (b"lru mode hot", b"ERROR\r\n"),
                                (b"lru temp_ttl ten", b"ERROR\r\n"),
                                (b"lru warm 1", b"ERROR\r\n"),
                                (b"lru", b"ERROR\r\n")):
                self.assertEqual(c.command(line), reply, line)
            self.assertEqual(self.lru_settings(c),
                             (b"yes", b"10", b"30", b"0.10", b"1.50", b"no", b"61"),
                             "a refused change changes nothing")
            self.assertEqual(c.command(b"lru mode flat"), b"OK\r\n")
            self.assertEqual(c.command(b"lru temp_ttl 30"), b"OK\r\n")
            self.assertEqual(self.lru_settings(c),
                             (b"no", b"10", b"30", b"0.10", b"1.50", b"yes", b"30"))
            # a negative ttl turns TEMP off and keeps the last ttl
            self.assertEqual(c.command(b"lru temp_ttl -1"), b"OK\r\n")
            self.assertEqual(c.command(b"lru mode segmented"), b"OK\r\n")
            self.assertEqual(self.lru_settings(c),
                             (b"yes", b"10", b"30", b"0.10", b"1.50", b"no", b"30"))
            # noreply silences OK and the errors alike
            c.request(b"lru tune 10 10 0.1 -1 noreply\r\nlru mode noreply\r\n"
                      b"lru mode flat noreply\r\nlru tune 5 5 1 1 noreply\r\n", b"")
            self.assertEqual(self.lru_settings(c),
                             (b"no", b"5", b"5", b"1.00", b"1.00", b"no", b"30"))
            c.close()

    def test_without_the_maintainer_only_tune_is_taken(self):
        with ServerProcess(["-o", "no_lru_maintainer"]) as server:
            c = Connection.to(server)
            self.assertEqual(c.command(b"lru mode segmented"), b"ERROR\r\n")
            self.assertEqual(c.command(b"lru temp_ttl 30"), b"ERROR\r\n")
            self.assertEqual(c.command(b"lru tune 10 10 0.1 1"), b"OK\r\n")
            self.assertEqual(self.lru_settings(c),
                             (b"no", b"10", b"10", b"0.10", b"1.00", b"no", b"61"))
            c.close()

    def test_flat_mode_drains_hot_into_cold_and_stores_there(self):
        with ServerProcess(["-t", "1", "-m", "2"]) as server:
            c = Connection.to(server)
            store_range(c, 0, 10)
            numbers = settled(c, within_hot_share)
            self.assertGreater(numbers["number_cold"], 0)
            self.assertEqual(c.command(b"lru mode flat"), b"OK\r\n")
            store_range(c, 10, 1)
            numbers = settled(c, lambda n: n.get("number_cold") == 11)
            self.assertEqual((numbers["number_hot"], numbers["number_warm"],
                              numbers["number_cold"]), (0, 0, 11))
            c.close()

    def test_temp_ttl_sends_short_lived_items_to_temp_and_shows_number_temp(self):
        with ServerProcess(["-t", "1", "-m", "2"]) as server:
            c = Connection.to(server)
            store_range(c, 0, 1, exptime=20)
            self.assertNotIn("number_temp", items(c)[SIZE_CLASS])
            self.assertEqual(c.command(b"lru temp_ttl 30"), b"OK\r\n")
            store_range(c, 1, 2, exptime=20)
            store_range(c, 3, 1, exptime=100)
            numbers = items(c)[SIZE_CLASS]
            self.assertEqual((numbers["number"], numbers["number_temp"]), (4, 2))
            self.assertEqual(c.command(b"lru temp_ttl -1"), b"OK\r\n")
            self.assertNotIn("number_temp", items(c)[SIZE_CLASS])
            c.close()
