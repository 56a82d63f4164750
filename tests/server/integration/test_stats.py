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
from server_process import Connection, ServerProcess, ServerTestCase, gpuhash_only, is_memcached


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

    def settings(self, args):
        with ServerProcess(args) as server:
            c = Connection.to(server)
            settings = c.stats(b"settings")
            c.close()
            return settings

    def test_fields(self):
        assert_fields(self, list(self.settings([])), fields.SETTINGS, fields.GPUHASH_SETTINGS,
                      "stats settings")

    def test_flags_show_their_values(self):
        extended = ("hashpower=20,idle_timeout=5,no_lru_crawler,slab_chunk_max=262144,"
                    "hot_lru_pct=30,temporary_ttl=10,ext_item_size=600,no_maxconns_fast,"
                    "hash_algorithm=xxh3,read_buf_mem_limit=8,watcher_logbuf_size=128,"
                    "slab_automove_ratio=0.5,ext_max_frag=0.25")
        settings = self.settings(["-b", "8675", "-B", "ascii", "-R", "7", "-D", "#", "-t", "2",
                                  "-c", "500", "-f", "1.5", "-n", "60", "-o", extended])
        expected = {
            "tcp_backlog": b"8675", "binding_protocol": b"ascii", "reqs_per_event": b"7",
            "stat_key_prefix": b"#", "num_threads": b"2", "num_threads_per_udp": b"2",
            "maxconns": b"500", "growth_factor": b"1.50", "chunk_size": b"60",
            "hashpower_init": b"20", "idle_timeout": b"5", "lru_crawler": b"no",
            "slab_chunk_max": b"262144", "hot_lru_pct": b"30", "temp_lru": b"yes",
            "temporary_ttl": b"10", "ext_item_size": b"600", "maxconns_fast": b"no",
            "hash_algorithm": b"xxh3", "read_buf_mem_limit": b"8388608",
            "watcher_logbuf_size": b"131072", "slab_automove_ratio": b"0.50",
            "ext_max_frag": b"0.25",
        }
        self.assertEqual({n: settings[n] for n in expected}, expected)

    def test_defaults_of_what_is_not_kept(self):
        settings = self.settings([])
        expected = {
            "oldest": b"0", "stat_key_prefix": b":", "detail_enabled": b"no",
            "reqs_per_event": b"20", "slab_reassign": b"yes", "lru_crawler": b"yes",
            "hash_algorithm": b"murmur3", "lru_maintainer_thread": b"yes", "temp_lru": b"no",
            "temporary_ttl": b"61", "track_sizes": b"no", "inline_ascii_response": b"no",
            "ssl_enabled": b"no", "ssl_chain_cert": b"(null)", "ssl_ciphers": b"NULL",
            "num_napi_ids": b"(null)", "memory_file": b"(null)", "growth_factor": b"1.25",
            "slab_automove_freeratio": b"0.010", "ext_wbuf_size": b"4194304",
        }
        self.assertEqual({n: settings[n] for n in expected}, expected)

    @gpuhash_only("memcached keeps per-prefix statistics: -D turns them on")
    def test_D_sets_the_prefix_only(self):
        settings = self.settings(["-D", "#"])
        self.assertEqual((settings["stat_key_prefix"], settings["detail_enabled"]), (b"#", b"no"))


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
