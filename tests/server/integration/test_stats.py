"""`stats` and its sub-commands as memcached 1.6.18 answers them: every
field memcached sends, in its order (memcached_fields.py holds the lists),
the values of flags shown in `stats settings`, item sizes counted as
memcached counts them, the per-class counters, and the sub-commands of
features gpuhash-server does not have answered as memcached answers them
when the feature is off. Run against memcached too (run_integration.py
--memcached): the lists and the expected values are memcached's.
"""

import re
import time
import unittest

import memcached_fields as fields
from server_process import (Connection, ServerProcess, ServerTestCase, gpuhash_only, is_memcached,
                            settings_of)


def names_of(c, argument=b""):
    """The names `stats <argument>` sends, in order (they are unique)."""
    return list(c.stats(argument))


def metadump(c):
    """`lru_crawler metadump all`'s lines, retried while memcached's crawler is busy."""
    for _ in range(50):
        c.send(b"lru_crawler metadump all\r\n")
        reply = c.read_until(b"END\r\n")
        if not reply.startswith(b"BUSY"):
            return reply.splitlines()[:-1]
        time.sleep(0.1)
    raise AssertionError("lru_crawler stayed busy")


class FieldListsTest(unittest.TestCase):
    """The checked-in lists agree with memcached 1.6.18's doc/protocol.txt,
    each difference accounted for."""

    SENT = {"stats": fields.GENERAL, "settings": fields.SETTINGS, "items": fields.ITEMS,
            "slabs": fields.SLABS + fields.SLABS_TOTALS, "conns": fields.CONNS_CLIENT}

    def test_every_difference_from_protocol_txt_is_explained(self):
        for section, sent in self.SENT.items():
            documented = fields.PROTOCOL_TXT[section]
            self.assertEqual(set(documented) - set(sent),
                             set(fields.DOCUMENTED_NOT_SENT.get(section, {})), section)
            self.assertEqual(set(sent) - set(documented),
                             fields.SENT_NOT_DOCUMENTED[section], section)

    def test_lists_hold_each_name_once(self):
        for name, sent in {**self.SENT, "gpuhash": fields.GPUHASH_GENERAL,
                           "gpuhash settings": fields.GPUHASH_SETTINGS}.items():
            self.assertEqual(len(sent), len(set(sent)), name)
        self.assertFalse(set(fields.GENERAL) & set(fields.GPUHASH_GENERAL))
        self.assertFalse(set(fields.SETTINGS) & set(fields.GPUHASH_SETTINGS))

    def test_conditional_fields_follow_the_settings(self):
        default = fields.stats_fields(fields.switches())
        self.assertIn("rejected_connections", default)
        self.assertNotIn("idle_kicks", default)
        self.assertNotIn("ssl_handshake_errors", default)
        trimmed = fields.stats_fields(fields.switches(["idle_timeout=5", "no_modern"], ssl=True))
        self.assertIn("idle_kicks", trimmed)
        self.assertIn("ssl_handshake_errors", trimmed)
        self.assertNotIn("ssl_new_sessions", trimmed)
        for gone in ("rejected_connections", "slabs_moved", "lru_crawler_starts",
                     "lru_maintainer_juggles", "moves_to_cold"):
            self.assertNotIn(gone, trimmed)
        self.assertNotIn("number_temp", fields.items_fields(fields.switches()))
        self.assertIn("number_temp", fields.items_fields(fields.switches(["temporary_ttl=9"])))
        self.assertEqual(fields.items_fields(fields.switches(["temporary_ttl=9",
                                                              "no_lru_maintainer"])),
                         [n for n in fields.ITEMS if n not in fields.CONDITIONAL_ITEMS])


def assert_fields(test, shown, expected, gpuhash_extras, what):
    """`shown` holds memcached's fields `expected` in their order, and beyond
    them only gpuhash-server's own (none from memcached itself)."""
    extras = [] if is_memcached() else gpuhash_extras
    test.assertEqual([n for n in shown if n not in extras], expected, what)


class SettingsTest(unittest.TestCase):
    """`stats settings`: memcached's fields, and the values of the flags given."""

    def assert_shown(self, args, expected):
        settings = settings_of(args)
        self.assertEqual({n: settings[n] for n in expected}, expected)

    def test_fields(self):
        assert_fields(self, list(settings_of([])), fields.SETTINGS, fields.GPUHASH_SETTINGS,
                      "stats settings")

    def test_flags_show_their_values(self):
        extended = ("hashpower=20,idle_timeout=5,no_lru_crawler,slab_chunk_max=262144,"
                    "hot_lru_pct=30,temporary_ttl=10,ext_item_size=600,no_maxconns_fast,"
                    "hash_algorithm=xxh3,read_buf_mem_limit=8,watcher_logbuf_size=128,"
                    "slab_automove_ratio=0.5,ext_max_frag=0.25")
        args = ["-b", "8675", "-B", "ascii", "-R", "7", "-D", "#", "-t", "2", "-c", "500", "-f",
                "1.5", "-n", "60", "-o", extended]
        self.assert_shown(args, {
            "tcp_backlog": b"8675", "binding_protocol": b"ascii", "reqs_per_event": b"7",
            "stat_key_prefix": b"#", "num_threads": b"2", "num_threads_per_udp": b"2",
            "maxconns": b"500", "growth_factor": b"1.50", "chunk_size": b"60",
            "hashpower_init": b"20", "idle_timeout": b"5", "lru_crawler": b"no",
            "slab_chunk_max": b"262144", "hot_lru_pct": b"30", "temp_lru": b"yes",
            "temporary_ttl": b"10", "ext_item_size": b"600", "maxconns_fast": b"no",
            "hash_algorithm": b"xxh3", "read_buf_mem_limit": b"8388608",
            "watcher_logbuf_size": b"131072", "slab_automove_ratio": b"0.50",
            "ext_max_frag": b"0.25",
        })

    def test_defaults_of_what_is_not_kept(self):
        self.assert_shown([], {
            "oldest": b"0", "stat_key_prefix": b":", "detail_enabled": b"no",
            "reqs_per_event": b"20", "slab_reassign": b"yes", "lru_crawler": b"yes",
            "hash_algorithm": b"murmur3", "lru_maintainer_thread": b"yes", "temp_lru": b"no",
            "temporary_ttl": b"61", "track_sizes": b"no", "inline_ascii_response": b"no",
            "ssl_enabled": b"no", "ssl_chain_cert": b"(null)", "ssl_ciphers": b"NULL",
            "num_napi_ids": b"(null)", "memory_file": b"(null)", "growth_factor": b"1.25",
            "slab_automove_freeratio": b"0.010", "ext_wbuf_size": b"4194304",
        })

    @gpuhash_only("memcached keeps per-prefix statistics: -D turns them on")
    def test_D_sets_the_prefix_only(self):
        settings = settings_of(["-D", "#"])
        self.assertEqual((settings["stat_key_prefix"], settings["detail_enabled"]), (b"#", b"no"))


class OldestTest(unittest.TestCase):
    """`stats settings`' oldest: memcached's settings.oldest_live, when the
    last flush_all takes effect on memcached's clock (its uptime plus 60 s),
    a second earlier with CAS on; 0 before any flush_all."""

    def check(self, args, cas_second):
        with ServerProcess(args) as server:
            c = Connection.to(server)
            c.request(b"set old 0 0 1\r\nx\r\n", b"STORED\r\n")
            time.sleep(1.5)
            self.assertEqual(c.stats(b"settings")["oldest"], b"0")

            def oldest_after(flush, delay):
                c.request(flush, b"OK\r\n")
                oldest = int(c.stats(b"settings")["oldest"])
                stats = c.stats()
                now, uptime = int(stats["time"]), int(stats["uptime"])
                expected = uptime + 60 + delay - cas_second
                # the clock may have ticked between the flush and the stats
                self.assertIn(oldest - expected, (-1, 0), (flush, oldest, uptime))
                return oldest, now, uptime

            oldest_after(b"flush_all\r\n", 0)
            oldest_after(b"flush_all 100\r\n", 100)
            oldest_after(b"flush_all 0\r\n", 0)
            # a delay past 30 days is Unix time, on the same clock
            _, now, uptime = oldest_after(b"flush_all 2\r\n", 2)
            at = now + 1000
            c.request(b"flush_all %d\r\n" % at, b"OK\r\n")
            started = now - uptime
            self.assertEqual(int(c.stats(b"settings")["oldest"]),
                             at - started + 60 - cas_second)
            c.close()

    def test_with_cas(self):
        self.check([], 1)

    def test_without_cas(self):
        self.check(["-C"], 0)


class FieldSetsTest(ServerTestCase):
    """`stats`, `stats items`, `stats slabs` and `stats conns` send
    memcached's fields in its order, with memcached's default settings."""

    def test_stats(self):
        assert_fields(self, names_of(self.connect()), fields.stats_fields(fields.switches()),
                      fields.GPUHASH_GENERAL, "stats")

    def test_items_and_slabs(self):
        c = self.connect()
        c.request(b"set fields 0 0 3\r\nabc\r\n", b"STORED\r\n")
        items = names_of(c, b"items")
        classes = sorted({int(n.split(":")[1]) for n in items})
        self.assertTrue(classes, items)
        for number in classes:
            shown = [n.split(":", 2)[2] for n in items if n.startswith(f"items:{number}:")]
            self.assertEqual(shown, fields.items_fields(fields.switches()), number)
        slabs = names_of(c, b"slabs")
        self.assertEqual([n for n in slabs if ":" not in n], fields.SLABS_TOTALS)
        for number in sorted({int(n.split(":")[0]) for n in slabs if ":" in n}):
            shown = [n.split(":", 1)[1] for n in slabs if n.startswith(f"{number}:")]
            self.assertEqual(shown, fields.SLABS, number)

    def test_conns(self):
        c = self.connect()
        own = b"tcp:127.0.0.1:%d" % c.sock.getsockname()[1]
        conns = c.stats(b"conns")
        by_descriptor = {}
        for name, value in conns.items():
            descriptor, field = name.split(":", 1)
            by_descriptor.setdefault(descriptor, {})[field] = value
        mine = [d for d in by_descriptor.values() if d.get("addr") == own]
        self.assertEqual(len(mine), 1, conns)
        self.assertEqual(list(mine[0]), fields.CONNS_CLIENT)
        self.assertEqual(mine[0]["listen_addr"], b"tcp:127.0.0.1:%d" % self.server.port)
        self.assertEqual(mine[0]["state"], b"conn_parse_cmd")
        listeners = [d for d in by_descriptor.values() if d.get("state") == b"conn_listening"]
        self.assertEqual([list(d) for d in listeners], [fields.CONNS_LISTENER])
        self.assertEqual(listeners[0]["addr"], b"tcp:127.0.0.1:%d" % self.server.port)

    def test_what_is_not_kept_reads_0(self):
        stats = self.connect().stats()
        for name in ("listen_disabled_num", "hash_is_expanding", "slab_reassign_running",
                     "slabs_moved", "lru_crawler_running", "malloc_fails", "log_watchers",
                     "slab_global_page_pool", "crawler_reclaimed", "lrutail_reflocked",
                     "moves_to_warm", "unexpected_napi_ids", "round_robin_fallback"):
            self.assertEqual(stats[name], b"0", name)
        self.assertEqual(stats["accepting_conns"], b"1")
        self.assertGreater(int(stats["hash_power_level"]), 0)
        self.assertGreater(int(stats["hash_bytes"]), 0)
        self.assertGreater(int(stats["reserved_fds"]), 0)
        self.assertGreaterEqual(int(stats["connection_structures"]), 2)


class FieldSetsWithSettingsTest(unittest.TestCase):
    """The fields memcached shows only under some settings follow them."""

    def test_optional_fields(self):
        extended = ["idle_timeout=5", "no_lru_crawler", "no_maxconns_fast", "no_slab_reassign",
                    "temporary_ttl=10"]
        on = fields.switches(extended)
        with ServerProcess(["-o", ",".join(extended)]) as server:
            c = Connection.to(server)
            c.request(b"set fields 0 0 3\r\nabc\r\n", b"STORED\r\n")
            assert_fields(self, names_of(c), fields.stats_fields(on), fields.GPUHASH_GENERAL,
                          "stats")
            items = names_of(c, b"items")
            number = items[0].split(":")[1]
            self.assertEqual([n.split(":", 2)[2] for n in items if n.split(":")[1] == number],
                             fields.items_fields(on))
            c.close()

    def test_without_the_lru_maintainer(self):
        on = fields.switches(["no_lru_maintainer"])
        with ServerProcess(["-o", "no_lru_maintainer"]) as server:
            c = Connection.to(server)
            c.request(b"set fields 0 0 3\r\nabc\r\n", b"STORED\r\n")
            assert_fields(self, names_of(c), fields.stats_fields(on), fields.GPUHASH_GENERAL,
                          "stats")
            items = names_of(c, b"items")
            self.assertEqual([n.split(":", 2)[2] for n in items], fields.items_fields(on))
            c.close()


class SubcommandsTest(ServerTestCase):
    """The sub-statistics of features gpuhash-server does not have, answered
    as memcached 1.6.18 answers them with the feature off."""

    def test_sizes(self):
        c = self.connect()
        c.request(b"stats sizes\r\n", b"STAT sizes_status disabled\r\nEND\r\n")
        c.request(b"stats sizes_disable\r\n", b"STAT sizes_status disabled\r\n")  # no END

    @gpuhash_only("memcached keeps a size histogram once enabled")
    def test_sizes_cannot_be_enabled(self):
        c = self.connect()
        c.request(b"stats sizes_enable\r\n",
                  b"STAT sizes_status error\r\nSTAT sizes_error not_supported\r\n")
        c.request(b"stats sizes\r\n", b"STAT sizes_status disabled\r\nEND\r\n")

    def test_detail(self):
        c = self.connect()
        c.request(b"stats detail dump\r\n", b"END\r\n")
        c.request(b"stats detail off\r\n", b"OK\r\n")
        usage = b"CLIENT_ERROR usage: stats detail on|off|dump\r\n"
        c.request(b"stats detail\r\nstats detail foo\r\n", usage * 2)
        # on and at once off again: memcached collects nothing meanwhile either
        c.request(b"stats detail on\r\nstats detail off\r\nstats detail dump\r\n",
                  b"OK\r\nOK\r\nEND\r\n")

    def test_extstore(self):
        self.connect().request(b"stats extstore\r\n", b"END\r\n")

    def test_unknown(self):
        self.connect().request(b"stats nosuch\r\nstats cachedumpx\r\n", b"ERROR\r\n" * 2)


class CachedumpTest(unittest.TestCase):
    """`stats cachedump <class> <limit>`: an ITEM line an item of the class
    (its value's bytes, its expiry in Unix seconds or 0 for none), the most
    recently stored first, at most limit of them (0: no limit), then END."""

    def dump(self, c, size_class, limit):
        """The dump's (key, bytes, exptime), in order; END required."""
        c.send(b"stats cachedump %d %d\r\n" % (size_class, limit))
        lines = c.read_until(b"END\r\n").split(b"\r\n")[:-2]
        found = [re.fullmatch(rb"ITEM (\S+) \[(\d+) b; (\d+) s\]", line) for line in lines]
        self.assertTrue(all(found), lines)
        return [(m.group(1), int(m.group(2)), int(m.group(3))) for m in found]

    def settled_dump(self, c, size_class, count):
        """The whole dump once it holds `count` items: memcached lists its
        COLD LRU, where its LRU maintainer moves new items a moment later."""
        for _ in range(50):
            dumped = self.dump(c, size_class, 0)
            if len(dumped) >= count:
                return dumped
            time.sleep(0.1)
        self.fail(f"the dump of class {size_class} holds {dumped}, not {count} items")

    @staticmethod
    def classes(c):
        """{class: items} of `stats items`."""
        return {int(n.split(":")[1]): int(v) for n, v in c.stats(b"items").items()
                if n.endswith(":number")}

    def test_items_latest_first_within_the_limit(self):
        with ServerProcess(["-t", "1"]) as server:  # one LRU: the order is memcached's
            c = Connection.to(server)
            at = int(time.time()) + 1000
            c.request(b"set a 0 0 1\r\nx\r\nset bb 0 100 2\r\nxy\r\nset ccc 0 %d 3\r\nxyz\r\n"
                      % at, b"STORED\r\n" * 3)
            small = self.classes(c)
            c.request(b"set big 0 0 600\r\n%s\r\n" % (b"v" * 600), b"STORED\r\n")
            large = [n for n in self.classes(c) if n not in small]
            self.assertEqual((list(small.values()), len(large)), ([3], 1))
            (size_class,) = small
            dumped = self.settled_dump(c, size_class, 3)
            now = time.time()
            self.assertEqual([d[:2] for d in dumped], [(b"ccc", 3), (b"bb", 2), (b"a", 1)])
            self.assertEqual((dumped[0][2], dumped[2][2]), (at, 0))
            self.assertTrue(now + 97 <= dumped[1][2] <= now + 101, (dumped, now))
            self.assertEqual(self.dump(c, size_class, 2), dumped[:2])
            self.assertEqual(self.dump(c, size_class, 1), dumped[:1])
            self.assertEqual(self.dump(c, size_class, 100), dumped)
            self.assertEqual([d[:2] for d in self.settled_dump(c, large[0], 1)], [(b"big", 600)])
            c.close()

    def test_every_shards_items(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            keys = [b"key%d" % i for i in range(40)]
            c.request(b"".join(b"set %s 0 0 1\r\nx\r\n" % k for k in keys), b"STORED\r\n" * 40)
            (size_class,) = self.classes(c)
            self.assertEqual(sorted(d[0] for d in self.settled_dump(c, size_class, 40)),
                             sorted(keys))
            some = self.dump(c, size_class, 7)
            self.assertEqual(len(some), 7)
            self.assertTrue({d[0] for d in some} <= set(keys))
            c.close()

    def test_classes_and_arguments_refused(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            c.request(b"set k 0 0 1\r\nx\r\n", b"STORED\r\n")
            # no such class here: nothing; past memcached's 63 classes: refused
            c.request(b"stats cachedump 0 0\r\nstats cachedump 63 0\r\n", b"END\r\n" * 2)
            c.request(b"stats cachedump 64 0\r\n", b"CLIENT_ERROR Illegal slab id\r\n")
            c.request(b"stats cachedump 1\r\nstats cachedump\r\n",
                      b"CLIENT_ERROR bad command line\r\n" * 2)
            c.request(b"stats cachedump x 0\r\nstats cachedump 1 -1\r\n",
                      b"CLIENT_ERROR bad command line format\r\n" * 2)
            c.close()

    def test_refused_with_X(self):
        with ServerProcess(["-X"]) as server:
            c = Connection.to(server)
            c.request(b"stats cachedump 1 0\r\nstats cachedump 99 0\r\nstats cachedump\r\n",
                      b"CLIENT_ERROR stats cachedump not allowed\r\n" * 3)
            c.close()


class ClassCountersTest(unittest.TestCase):
    """The per-class counters of `stats slabs` and `stats items`, counted at
    the class of the item a command hit or stored."""

    @staticmethod
    def class_stats(c, argument, prefix):
        """The one class's counters of `stats <argument>` ({field: int})."""
        shown = {n[len(prefix):]: int(v) for n, v in c.stats(argument).items()
                 if n.startswith(prefix)}
        return shown

    def test_commands_count_in_their_items_class(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            c.send(b"set n 0 0 1\r\n5\r\nget n\r\ngets n\r\nincr n 1\r\ndecr n 1\r\n"
                   b"touch n 0\r\ncas n 0 0 1 999999\r\n7\r\nget nope\r\n")
            for line in (b"STORED", b"VALUE n 0 1", b"5", b"END", None, b"5", b"END", b"6", b"5",
                         b"TOUCHED", b"EXISTS", b"END"):
                got = c.read_line()
                if line is not None:
                    self.assertEqual(got, line + b"\r\n")
            number = [n for n in c.stats(b"items") if n.endswith(":number")][0].split(":")[1]
            items = self.class_stats(c, b"items", f"items:{number}:")
            self.assertEqual(items["number"], 1)
            self.assertEqual(items["number_hot"] + items["number_warm"] + items["number_cold"], 1)
            self.assertEqual(items["hits_to_hot"] + items["hits_to_warm"] + items["hits_to_cold"]
                             + items["hits_to_temp"], 2)
            cas = c.get_values(b"gets n")[0][3]
            c.request(b"cas n 0 0 1 %d\r\n8\r\ndelete n\r\n" % cas, b"STORED\r\nDELETED\r\n")
            slabs = self.class_stats(c, b"slabs", f"{number}:")
            self.assertEqual({n: slabs[n] for n in fields.SLABS[7:]},
                             {"get_hits": 3, "cmd_set": 3, "delete_hits": 1, "incr_hits": 1,
                              "decr_hits": 1, "cas_hits": 1, "cas_badval": 1, "touch_hits": 1})
            self.assertEqual(slabs["free_chunks_end"], 0)
            c.close()

    def test_meta_get_counts_a_vivified_item_as_a_hit_and_a_T_as_a_touch(self):
        # memcached's process_mget_command: an item found or created (N) is a
        # hit, counted in get_hits and its class's (hits_to_hot: it was
        # linked in HOT), or with T as a touch; a miss is a get miss
        with ServerProcess(["-t", "1"]) as server:
            c = Connection.to(server)
            general = ("cmd_get", "get_hits", "get_misses", "cmd_touch", "touch_hits",
                       "touch_misses")

            def counts():
                stats = c.stats()
                items = self.class_stats(c, b"items", "items:1:")
                slabs = self.class_stats(c, b"slabs", "1:")
                return ({n: int(stats[n]) for n in general},
                        {n: items.get(n, 0) for n in ("hits_to_hot", "hits_to_cold")},
                        {n: slabs.get(n, 0) for n in ("get_hits", "touch_hits")})

            c.request(b"mg absent v\r\n", b"EN\r\n")
            c.request(b"mg viv N30 v\r\n", b"VA 0 W\r\n\r\n")
            self.assertEqual(counts(), (
                {"cmd_get": 2, "get_hits": 1, "get_misses": 1, "cmd_touch": 0, "touch_hits": 0,
                 "touch_misses": 0},
                {"hits_to_hot": 1, "hits_to_cold": 0}, {"get_hits": 1, "touch_hits": 0}))
            c.request(b"mg viv2 N30 T40 q\r\n", b"HD W\r\n")
            c.request(b"mg viv T50\r\n", b"HD Z\r\n")
            c.request(b"mg absent T50\r\n", b"EN\r\n")  # a miss is a get's, T or not
            self.assertEqual(counts(), (
                {"cmd_get": 3, "get_hits": 1, "get_misses": 2, "cmd_touch": 2, "touch_hits": 2,
                 "touch_misses": 0},
                {"hits_to_hot": 1, "hits_to_cold": 0}, {"get_hits": 1, "touch_hits": 2}))
            c.close()

    def test_a_vivify_that_finds_no_memory_is_a_miss(self):
        with ServerProcess(["-t", "1", "-M", "-m", "1", "-I", "512k"]) as server:
            c = Connection.to(server)
            stored = 0
            while c.command(b"set k%06d 0 0 0\r\n" % stored) == b"STORED\r\n":
                stored += 1
            c.request(b"mg z%06d N30 v\r\n" % stored, b"EN\r\n")
            stats = c.stats()
            self.assertEqual((stats["cmd_get"], stats["get_hits"], stats["get_misses"]),
                             (b"1", b"0", b"1"))
            c.close()

    def fill(self, c, count, size=100 * 1024):
        """Stores `count` values of `size` bytes, a few at a time (a pipeline
        of all of them at once would be as large as the connections' memory
        budget at -m 4)."""
        value = b"v" * size
        for i in range(count):
            c.send(b"set fill%d 0 1000 %d noreply\r\n%s\r\n" % (i, size, value))
            if i % 8 == 7:
                c.sync()
        c.sync()

    def test_evictions(self):
        with ServerProcess(["-m", "4"]) as server:
            c = Connection.to(server)
            self.fill(c, 80)
            stats = c.stats()
            items = c.stats(b"items")
            evicted = {n: int(v) for n, v in items.items() if n.endswith(":evicted")}
            self.assertGreater(sum(evicted.values()), 0, items)
            self.assertEqual(sum(evicted.values()), int(stats["evictions"]))
            for name, count in evicted.items():
                prefix = name[:-len("evicted")]
                # every item had an expiry time and was never read
                self.assertEqual(int(items[prefix + "evicted_nonzero"]), count)
                self.assertEqual(int(items[prefix + "evicted_unfetched"]), count)
                self.assertGreaterEqual(int(items[prefix + "evicted_time"]), 0)
                self.assertEqual(int(items[prefix + "outofmemory"]), 0)
            self.assertEqual(int(stats["evicted_unfetched"]), sum(evicted.values()))
            c.close()

    def test_out_of_memory_with_M(self):
        with ServerProcess(["-m", "4", "-M"]) as server:
            c = Connection.to(server)
            self.fill(c, 80)
            stats = c.stats()
            outofmemory = sum(int(v) for n, v in c.stats(b"items").items()
                              if n.endswith(":outofmemory"))
            self.assertGreater(int(stats["store_no_memory"]), 0)
            self.assertGreater(outofmemory, 0)
            self.assertEqual(stats["evictions"], b"0")
            c.close()


class ItemSizesTest(unittest.TestCase):
    """An item's size as memcached reports it (`stats` bytes, `stats items`
    mem_requested, metadump's size): its 48-byte header, an 8-byte CAS
    unless -C, the key and a NUL, the value and its "\\r\\n"."""

    def sizes(self, args):
        with ServerProcess(args) as server:
            c = Connection.to(server)
            c.request(b"set sz 0 0 10\r\n0123456789\r\n", b"STORED\r\n")
            lines = [line for line in metadump(c) if line.startswith(b"key=sz ")]
            self.assertEqual(len(lines), 1, lines)
            dumped = int(re.search(rb" size=(\d+)", lines[0]).group(1))
            requested = sum(int(v) for n, v in c.stats(b"items").items()
                            if n.endswith(":mem_requested"))
            result = (dumped, int(c.stats()["bytes"]), requested)
            c.close()
            return result

    def test_with_cas(self):
        self.assertEqual(self.sizes([]), (48 + 8 + 2 + 1 + 10 + 2,) * 3)

    def test_without_cas(self):
        self.assertEqual(self.sizes(["-C"]), (48 + 2 + 1 + 10 + 2,) * 3)


if __name__ == "__main__":
    unittest.main()
