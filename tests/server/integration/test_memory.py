"""memcached's memory accounting and reclaiming, as a client sees them: the
class an item goes to, `stats slabs` (each class's chunk size, chunks per
page, pages, chunks used and free), `stats`' total_malloced and
limit_maxbytes, and the dead items memcached reclaims when it allocates
(`reclaimed`, `expired_unfetched`), all as memcached 1.6.18 counts them.
Run against memcached too (run_integration.py --memcached): every number
expected here is memcached's.

Classes, chunks and pages do not depend on timing. Reclaiming depends on
memcached's LRU maintainer and crawler, which reclaim on their own time:
the tests of reclaiming and evicting start both servers without them
(`-o no_lru_maintainer,no_lru_crawler`: one LRU per class, memcached's
COLD one, pulled at each allocation) and with one worker thread (`-t 1`,
so gpuhash-server keeps one shard, whose LRU is the whole class's).
"""

import unittest

from server_process import Connection, ServerProcess

MB = 1 << 20
# memcached 1.6.18's classes with its default settings (`memcached -vv`)
DEFAULT_CHUNKS = [96, 120, 152, 192, 240, 304, 384, 480, 600, 752, 944, 1184, 1480, 1856, 2320,
                  2904, 3632, 4544, 5680, 7104, 8880, 11104, 13880, 17352, 21696, 27120, 33904,
                  42384, 52984, 66232, 82792, 103496, 129376, 161720, 202152, 252696, 315872,
                  394840, 524288]
DETERMINISTIC = ["-t", "1", "-o", "no_lru_maintainer,no_lru_crawler"]


def item_size(key, value_bytes, flags=0, cas=True):
    """An item's size as memcached counts it (ITEM_ntotal): its 48-byte
    header, the CAS, the key and a NUL, 4 bytes of flags unless 0, the value
    and its "\\r\\n"."""
    return 48 + (8 if cas else 0) + len(key) + 1 + (4 if flags else 0) + value_bytes + 2


def value_for(total, key, flags=0):
    """The value length that makes an item `total` bytes as memcached counts it."""
    return total - item_size(key, 0, flags)


def per_class(stats, prefix=""):
    """`stats items` or `stats slabs` as {class: {field: int}}, and the totals."""
    classes, totals = {}, {}
    for name, value in stats.items():
        if not name.startswith(prefix):
            continue
        parts = name[len(prefix):].split(":")
        if len(parts) == 2 and parts[0].isdigit():
            classes.setdefault(int(parts[0]), {})[parts[1]] = int(value)
        else:
            totals[name] = int(value)
    return classes, totals


def slabs(c):
    return per_class(c.stats(b"slabs"))


def items(c):
    return per_class(c.stats(b"items"), "items:")[0]


def general(c, *names):
    stats = c.stats()
    return {name: int(stats[name]) for name in names}


def store(c, key, value_bytes, flags=0, exptime=0, reply=b"STORED\r\n"):
    c.request(b"set %s %d %d %d\r\n%s\r\n" % (key, flags, exptime, value_bytes, b"v" * value_bytes),
              reply)


def store_many(c, keys, value_bytes, exptime=0):
    """Sets each key with noreply, a few hundred to a write."""
    value = b"v" * value_bytes
    for start in range(0, len(keys), 500):
        c.send(b"".join(b"set %s 0 %d %d noreply\r\n%s\r\n" % (key, exptime, value_bytes, value)
                        for key in keys[start:start + 500]))
        c.sync()


class SlabClassesTest(unittest.TestCase):
    """Items go to the class of memcached's size; its chunk sizes follow -n,
    -f and slab_chunk_max."""

    def test_an_empty_cache_has_no_pages(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            classes, totals = slabs(c)
            self.assertEqual(classes, {})
            self.assertEqual(totals, {"active_slabs": 0, "total_malloced": 0})
            self.assertEqual(general(c, "limit_maxbytes"), {"limit_maxbytes": 64 * MB})
            c.close()

    def test_items_go_to_the_first_class_that_holds_them(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            chosen = [1, 2, 3, 10, 20, 37, 38]
            for n in chosen:
                chunk = DEFAULT_CHUNKS[n - 1]
                store(c, b"k", value_for(chunk, b"k"))  # fills the chunk
                store(c, b"k%d" % n, value_for(chunk + 1, b"k%d" % n))  # a byte more
            # each class chosen keeps its exact item, the next one the larger one
            numbers = {n: each["number"] for n, each in items(c).items()}
            expected = {}
            for n in chosen:
                expected[n + 1] = expected.get(n + 1, 0) + 1
            expected[chosen[-1]] = expected.get(chosen[-1], 0) + 1  # the last exact "k"
            self.assertEqual(numbers, expected)
            classes, totals = slabs(c)
            for n, each in classes.items():
                self.assertEqual(each["chunk_size"], DEFAULT_CHUNKS[n - 1], n)
                self.assertEqual(each["chunks_per_page"], MB // DEFAULT_CHUNKS[n - 1], n)
                self.assertEqual(each["total_pages"], 1, n)
            self.assertEqual(totals["total_malloced"], len(classes) * MB)
            c.close()

    def test_the_table_follows_f_n_and_slab_chunk_max(self):
        with ServerProcess(["-f", "2", "-n", "100"]) as server:
            c = Connection.to(server)
            store(c, b"a", value_for(152, b"a"))
            store(c, b"b", value_for(153, b"b"))
            store(c, b"c", value_for(155648 + 1, b"c"))
            classes, _ = slabs(c)
            self.assertEqual({n: (each["chunk_size"], each["chunks_per_page"])
                              for n, each in classes.items()},
                             {1: (152, 6898), 2: (304, 3449), 12: (524288, 2)})
            c.close()
        with ServerProcess(["-o", "slab_chunk_max=16384"]) as server:
            c = Connection.to(server)
            store(c, b"a", value_for(16384, b"a"))
            classes, _ = slabs(c)
            self.assertEqual({n: (each["chunk_size"], each["chunks_per_page"])
                              for n, each in classes.items()}, {23: (16384, 64)})
            c.close()

    def test_flags_take_four_bytes(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            store(c, b"a", 10)
            self.assertEqual(general(c, "bytes"), {"bytes": 70})
            store(c, b"b", 10, flags=5)
            self.assertEqual(general(c, "bytes"), {"bytes": 70 + 74})
            # a value filling class 1 without flags goes to class 2 with them
            store(c, b"c", value_for(96, b"c"), flags=1)
            numbers = {n: (each["number"], each["mem_requested"]) for n, each in items(c).items()}
            self.assertEqual(numbers, {1: (2, 144), 2: (1, 100)})
            c.close()

    def test_item_size_max_is_memcacheds_size_of_the_item(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            largest = value_for(MB, b"k")
            store(c, b"k", largest)
            store(c, b"k", largest + 1, reply=b"SERVER_ERROR object too large for cache\r\n")
            store(c, b"k", largest, flags=1, reply=b"SERVER_ERROR object too large for cache\r\n")
            c.close()


class PagesTest(unittest.TestCase):
    """Pages of 1 MB are assigned to a class as its chunks run out, within
    -m but for each class's first page; total_malloced grows page by page."""

    def test_pages_are_taken_as_a_class_fills(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            keys = [b"key%05d" % i for i in range(10922)]  # class 1's chunks per page
            store_many(c, keys, 10)
            classes, totals = slabs(c)
            self.assertEqual({name: classes[1][name] for name in
                              ("total_pages", "total_chunks", "used_chunks", "free_chunks")},
                             {"total_pages": 1, "total_chunks": 10922, "used_chunks": 10922,
                              "free_chunks": 0})
            self.assertEqual(totals["total_malloced"], MB)
            store(c, b"onemore", 10)
            classes, totals = slabs(c)
            self.assertEqual({name: classes[1][name] for name in
                              ("total_pages", "total_chunks", "used_chunks", "free_chunks")},
                             {"total_pages": 2, "total_chunks": 21844, "used_chunks": 10923,
                              "free_chunks": 10921})
            self.assertEqual(totals, {"active_slabs": 1, "total_malloced": 2 * MB})
            # deleted items free their chunks; the pages stay with the class
            c.send(b"".join(b"delete %s noreply\r\n" % key for key in keys))
            c.sync()
            classes, totals = slabs(c)
            self.assertEqual((classes[1]["total_pages"], classes[1]["used_chunks"]), (2, 1))
            self.assertEqual(totals["total_malloced"], 2 * MB)
            c.close()

    def test_an_item_over_slab_chunk_max_is_counted_in_chunks(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            # header chunk in class 2, two chunks of class 39, 34 bytes left in class 1
            store(c, b"k", 1048512, flags=1)
            classes, totals = slabs(c)
            self.assertEqual({n: each["used_chunks"] for n, each in classes.items()},
                             {1: 1, 2: 1, 39: 2})
            self.assertEqual(totals["total_malloced"], 3 * MB)
            self.assertEqual({n: (each["number"], each["mem_requested"])
                              for n, each in items(c).items()}, {39: (1, MB)})
            self.assertEqual(c.get_values(b"get k"), [(b"k", 1, b"v" * 1048512, None)])
            # one chunk of class 39 and the rest in class 31
            store(c, b"m", 600000)
            classes, _ = slabs(c)
            self.assertEqual({n: each["used_chunks"] for n, each in classes.items()},
                             {1: 1, 2: 2, 31: 1, 39: 3})
            c.request(b"delete k\r\ndelete m\r\n", b"DELETED\r\nDELETED\r\n")
            classes, totals = slabs(c)
            self.assertEqual({n: each["used_chunks"] for n, each in classes.items()},
                             {1: 0, 2: 0, 31: 0, 39: 0})
            self.assertEqual(totals["total_malloced"], 5 * MB)
            c.close()

    def test_without_slab_reassign_a_page_costs_its_chunks(self):
        # -o no_modern: no chunked items and no slab mover, so memcached
        # mallocs a page's chunks, not a whole megabyte
        with ServerProcess(["-o", "no_modern"]) as server:
            c = Connection.to(server)
            store(c, b"a", 10)
            self.assertEqual(slabs(c)[1]["total_malloced"], 96 * 10922)
            c.close()

    def test_the_limit_holds_but_for_a_first_page(self):
        with ServerProcess(["-m", "2"] + DETERMINISTIC) as server:
            c = Connection.to(server)
            for i in range(4):  # two class-39 chunks a page: the 2 MB
                store(c, b"big%d" % i, 500000, exptime=1000)
            self.assertEqual(slabs(c)[1]["total_malloced"], 2 * MB)
            store(c, b"big4", 500000)
            stats = general(c, "evictions", "evicted_unfetched", "limit_maxbytes")
            self.assertEqual(stats, {"evictions": 1, "evicted_unfetched": 1,
                                     "limit_maxbytes": 2 * MB})
            self.assertEqual(c.get_values(b"get big0"), [], "the least recently stored goes")
            big = items(c)[39]
            self.assertEqual((big["evicted"], big["evicted_nonzero"], big["evicted_unfetched"]),
                             (1, 1, 1))
            store(c, b"big5", 500000)
            self.assertEqual(items(c)[39]["evicted_nonzero"], 2)
            # a class's first page comes past the limit
            store(c, b"small", 10)
            classes, totals = slabs(c)
            self.assertEqual({n: each["total_pages"] for n, each in classes.items()},
                             {1: 1, 39: 2})
            self.assertEqual(totals["total_malloced"], 3 * MB)
            self.assertEqual(general(c, "evictions"), {"evictions": 2})
            c.close()

    def test_without_eviction_a_full_class_refuses(self):
        with ServerProcess(["-m", "2", "-M"] + DETERMINISTIC) as server:
            c = Connection.to(server)
            for i in range(4):
                store(c, b"big%d" % i, 500000)
            store(c, b"big4", 500000, reply=b"SERVER_ERROR out of memory storing object\r\n")
            self.assertEqual(items(c)[39]["outofmemory"], 1)
            self.assertEqual(general(c, "evictions", "curr_items"),
                             {"evictions": 0, "curr_items": 4})
            c.close()

    def test_a_chunked_item_without_data_chunks_fails_while_read(self):
        with ServerProcess(["-m", "2", "-M"] + DETERMINISTIC) as server:
            c = Connection.to(server)
            for i in range(4):
                store(c, b"big%d" % i, 500000)
            # its header chunk comes (class 2's first page), its data chunks do not
            store(c, b"big0", 600000, reply=b"SERVER_ERROR Out of memory during read\r\n")
            self.assertEqual(len(c.get_values(b"get big0")[0][2]), 500000, "the old value stays")
            classes, totals = slabs(c)
            self.assertEqual({n: each["used_chunks"] for n, each in classes.items()},
                             {2: 0, 39: 4})
            self.assertEqual(totals["total_malloced"], 3 * MB)
            self.assertEqual(items(c)[39]["outofmemory"], 0, "the item itself was allocated")
            c.close()

    def test_a_store_takes_its_item_before_it_looks_at_the_key(self):
        # memcached allocates a request's item before it finds the key's: an
        # add that is refused, or an append's own data, takes a chunk too
        with ServerProcess() as server:
            c = Connection.to(server)
            store(c, b"k", 10)  # class 1
            add = value_for(120, b"k")  # class 2
            c.request(b"add k 0 0 %d\r\n%s\r\n" % (add, b"a" * add), b"NOT_STORED\r\n")
            grow = value_for(152, b"k")  # class 3, and the joined item class 4
            c.request(b"append k 0 0 %d\r\n%s\r\n" % (grow, b"b" * grow), b"STORED\r\n")
            classes, totals = slabs(c)
            self.assertEqual({n: each["used_chunks"] for n, each in classes.items()},
                             {1: 0, 2: 0, 3: 0, 4: 1})
            self.assertEqual(totals["total_malloced"], 4 * MB)
            # an append whose joined item would be over -I is not stored
            store(c, b"a", 600000)
            c.request(b"append a 0 0 500000\r\n%s\r\n" % (b"b" * 500000), b"NOT_STORED\r\n")
            self.assertEqual(len(c.get_values(b"get a")[0][2]), 600000)
            c.close()

    def test_cache_memlimit_lets_classes_take_more_pages(self):
        with ServerProcess(["-m", "2"] + DETERMINISTIC) as server:
            c = Connection.to(server)
            for i in range(4):
                store(c, b"big%d" % i, 500000)
            c.request(b"cache_memlimit 8\r\n", b"OK\r\n")
            self.assertEqual(general(c, "limit_maxbytes"), {"limit_maxbytes": 8 * MB})
            self.assertEqual(c.stats(b"settings")["maxbytes"], b"%d" % (8 * MB))
            store(c, b"big4", 500000)
            classes, totals = slabs(c)
            self.assertEqual((classes[39]["total_pages"], totals["total_malloced"]), (3, 3 * MB))
            self.assertEqual(general(c, "evictions"), {"evictions": 0})
            c.close()


class ReclaimTest(unittest.TestCase):
    """memcached without its LRU maintainer pulls the tail of a class's LRU
    before each allocation in the class: the dead items there (expired or
    flushed, at most 5, up to the first live one) are reclaimed, counted in
    `reclaimed`, and in `expired_unfetched` when never read. A get that
    finds a dead item counts it as get_expired or get_flushed only."""

    def test_a_store_reclaims_the_dead_items_at_its_class_tail(self):
        with ServerProcess(DETERMINISTIC) as server:
            c = Connection.to(server)
            for i in range(7):  # a negative exptime: dead once stored
                store(c, b"dead%d" % i, 10, exptime=-1)
            self.assertEqual(general(c, "reclaimed", "expired_unfetched", "curr_items"),
                             {"reclaimed": 6, "expired_unfetched": 6, "curr_items": 1})
            store(c, b"live", 10)
            self.assertEqual(general(c, "reclaimed", "expired_unfetched", "curr_items"),
                             {"reclaimed": 7, "expired_unfetched": 7, "curr_items": 1})
            store(c, b"other", value_for(120, b"other"))  # class 2: nothing to reclaim there
            self.assertEqual(general(c, "reclaimed"), {"reclaimed": 7})
            one = items(c)[1]
            self.assertEqual((one["number"], one["reclaimed"], one["expired_unfetched"]), (1, 7, 7))
            classes, _ = slabs(c)
            self.assertEqual((classes[1]["used_chunks"], classes[2]["used_chunks"]), (1, 1))
            c.close()

    def test_five_at_most_and_none_past_a_live_item(self):
        with ServerProcess(DETERMINISTIC) as server:
            c = Connection.to(server)
            for i in range(8):
                store(c, b"f%d" % i, 10)
            self.assertEqual(len(c.get_values(b"get f7")), 1)  # the newest, read once
            c.request(b"flush_all\r\n", b"OK\r\n")
            store(c, b"n1", 10)
            self.assertEqual(general(c, "reclaimed", "expired_unfetched", "curr_items"),
                             {"reclaimed": 5, "expired_unfetched": 5, "curr_items": 4})
            # f5, f6 and f7 (which was read), then n1, alive, ends the walk
            store(c, b"n2", 10)
            self.assertEqual(general(c, "reclaimed", "expired_unfetched", "curr_items"),
                             {"reclaimed": 8, "expired_unfetched": 7, "curr_items": 2})
            c.close()

    def test_a_get_of_a_dead_item_is_no_reclaim(self):
        with ServerProcess(DETERMINISTIC) as server:
            c = Connection.to(server)
            store(c, b"x", 10, exptime=-1)
            self.assertEqual(c.get_values(b"get x"), [])
            store(c, b"y", 10)
            c.request(b"flush_all\r\n", b"OK\r\n")
            self.assertEqual(c.get_values(b"get y"), [])
            self.assertEqual(general(c, "get_expired", "get_flushed", "reclaimed",
                                     "expired_unfetched", "curr_items"),
                             {"get_expired": 1, "get_flushed": 1, "reclaimed": 0,
                              "expired_unfetched": 0, "curr_items": 0})
            c.close()

    def test_dead_items_make_room_even_without_eviction(self):
        with ServerProcess(["-m", "2", "-M"] + DETERMINISTIC) as server:
            c = Connection.to(server)
            for i in range(4):
                store(c, b"big%d" % i, 500000)
            c.request(b"flush_all\r\n", b"OK\r\n")
            store(c, b"big4", 500000)
            self.assertEqual(general(c, "reclaimed", "evictions", "curr_items"),
                             {"reclaimed": 4, "evictions": 0, "curr_items": 1})
            self.assertEqual(items(c)[39]["outofmemory"], 0)
            self.assertEqual(slabs(c)[0][39]["used_chunks"], 1)
            c.close()


if __name__ == "__main__":
    unittest.main()
