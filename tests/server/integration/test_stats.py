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
from server_process import Connection, ServerProcess, ServerTestCase, is_memcached


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
