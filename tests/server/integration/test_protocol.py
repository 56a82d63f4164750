"""The server's text and meta protocol over raw sockets, byte for byte.

Every expected reply here is what memcached 1.6.18 sends (the suite is run
against /usr/bin/memcached to check that). Run with GPUHASH_SERVER_BINARY set;
see server_process.py.
"""

import os
import random
import re
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import unittest

from server_process import (HOST, Connection, ServerError, ServerProcess, ServerTestCase,
                            free_port, gpuhash_only, is_memcached, server_binary)

MAX_U64 = 2**64 - 1


def assert_numeric_value(test, c, key, number):
    """The value of `key` is `number`. memcached writes a shorter result of
    incr/decr in place, padded with spaces to the old length ("99 " after
    100 - 1, "8 " after 10 - 2): both forms are accepted."""
    values = c.get_values(b"get " + key)
    test.assertEqual(len(values), 1, values)
    test.assertEqual(values[0][2].rstrip(b" "), number, values)


class StorageCommandsTest(ServerTestCase):
    """set, add, replace, append, prepend, cas and the retrieval commands."""

    def test_set_then_get(self):
        c = self.connect()
        c.request(b"set k1 0 0 5\r\nhello\r\n", b"STORED\r\n")
        c.request(b"get k1\r\n", b"VALUE k1 0 5\r\nhello\r\nEND\r\n")
        c.request(b"set k1 7 0 3\r\nbye\r\n", b"STORED\r\n")
        c.request(b"get k1\r\n", b"VALUE k1 7 3\r\nbye\r\nEND\r\n")

    def test_flags_are_32_bit(self):
        c = self.connect()
        c.request(b"set flags 4294967295 0 1\r\nx\r\n", b"STORED\r\n")
        c.request(b"get flags\r\n", b"VALUE flags 4294967295 1\r\nx\r\nEND\r\n")

    def test_wider_flags_keep_their_low_32_bits(self):
        """memcached 1.6.18 reads flags as 64 bits and keeps the low 32; more
        than 64 bits, or a sign, is a bad command line."""
        c = self.connect()
        for sent, kept in ((2**32, 0), (2**32 + 1, 1), (2**64 - 1, 2**32 - 1)):
            c.request(b"set wide 0 0 1\r\nx\r\nset wide %d 0 1\r\ny\r\nget wide\r\n" % sent,
                      b"STORED\r\nSTORED\r\nVALUE wide %d 1\r\ny\r\nEND\r\n" % kept, msg=sent)
        c.request(b"ms wide 1 F%d\r\nz\r\nmg wide f v\r\n" % (2**32 + 7), b"HD\r\nVA 1 f7\r\nz\r\n")
        c.request(b"set wide %d 0 1\r\nx\r\n" % 2**64,
                  b"CLIENT_ERROR bad command line format\r\nERROR\r\n")

    def test_empty_value(self):
        c = self.connect()
        c.request(b"set empty 3 0 0\r\n\r\n", b"STORED\r\n")
        c.request(b"get empty\r\n", b"VALUE empty 3 0\r\n\r\nEND\r\n")

    def test_binary_safe_value(self):
        value = b"a\r\nb\x00\xff\r\nEND\r\n\x80"
        c = self.connect()
        c.request(b"set bin 0 0 %d\r\n%s\r\n" % (len(value), value), b"STORED\r\n")
        c.request(b"get bin\r\n", b"VALUE bin 0 %d\r\n%s\r\nEND\r\n" % (len(value), value))

    def test_get_missing(self):
        c = self.connect()
        c.request(b"get missing\r\n", b"END\r\n")
        c.request(b"gets missing\r\n", b"END\r\n")

    def test_get_many_keys_in_order_with_duplicates(self):
        c = self.connect()
        c.request(b"set ga 1 0 1\r\na\r\nset gb 2 0 2\r\nbb\r\n", b"STORED\r\nSTORED\r\n")
        c.request(b"get gb missing ga gb\r\n",
                  b"VALUE gb 2 2\r\nbb\r\nVALUE ga 1 1\r\na\r\nVALUE gb 2 2\r\nbb\r\nEND\r\n")

    def test_get_with_a_very_long_key_list(self):
        # Clients batch hundreds of keys in one `get` (a line of ~100 KB).
        c = self.connect()
        keys = [b"long-get-" + b"k" * 190 + b"%03d" % i for i in range(500)]
        c.request(b"set %s 0 0 1\r\nx\r\n" % keys[7], b"STORED\r\n")
        c.request(b"set %s 0 0 1\r\ny\r\n" % keys[499], b"STORED\r\n")
        c.request(b"get " + b" ".join(keys) + b"\r\n",
                  b"VALUE %s 0 1\r\nx\r\nVALUE %s 0 1\r\ny\r\nEND\r\n" % (keys[7], keys[499]))

    def test_gets_returns_cas_that_changes_on_every_store(self):
        c = self.connect()
        c.request(b"set ca 0 0 1\r\na\r\nset cb 0 0 1\r\nb\r\n", b"STORED\r\nSTORED\r\n")
        values = c.get_values(b"gets ca cb")
        self.assertEqual([(k, v) for k, _, v, _ in values], [(b"ca", b"a"), (b"cb", b"b")])
        cas_a, cas_b = values[0][3], values[1][3]
        self.assertIsNotNone(cas_a)
        self.assertNotEqual(cas_a, cas_b)
        c.request(b"set ca 0 0 1\r\nA\r\n", b"STORED\r\n")
        self.assertNotEqual(c.get_values(b"gets ca")[0][3], cas_a)

    def test_add(self):
        c = self.connect()
        c.request(b"add addk 5 0 1\r\n1\r\n", b"STORED\r\n")
        c.request(b"add addk 6 0 1\r\n2\r\n", b"NOT_STORED\r\n")
        c.request(b"get addk\r\n", b"VALUE addk 5 1\r\n1\r\nEND\r\n")

    def test_replace(self):
        c = self.connect()
        c.request(b"replace repk 0 0 1\r\n1\r\n", b"NOT_STORED\r\n")
        c.request(b"get repk\r\n", b"END\r\n")
        c.request(b"set repk 0 0 1\r\n1\r\n", b"STORED\r\n")
        c.request(b"replace repk 9 0 2\r\n22\r\n", b"STORED\r\n")
        c.request(b"get repk\r\n", b"VALUE repk 9 2\r\n22\r\nEND\r\n")

    def test_append_and_prepend(self):
        c = self.connect()
        c.request(b"append apk 0 0 1\r\nx\r\n", b"NOT_STORED\r\n")
        c.request(b"prepend apk 0 0 1\r\nx\r\n", b"NOT_STORED\r\n")
        c.request(b"set apk 3 0 2\r\nmm\r\n", b"STORED\r\n")
        # flags and exptime of append/prepend are ignored: the item keeps its own
        c.request(b"append apk 5 5 2\r\nzz\r\n", b"STORED\r\n")
        c.request(b"prepend apk 6 6 2\r\naa\r\n", b"STORED\r\n")
        c.request(b"get apk\r\n", b"VALUE apk 3 6\r\naammzz\r\nEND\r\n")
        c.request(b"mg apk t\r\n", b"HD t-1\r\n")

    def test_append_changes_cas(self):
        c = self.connect()
        c.request(b"set apc 0 0 1\r\na\r\n", b"STORED\r\n")
        cas = c.get_values(b"gets apc")[0][3]
        c.request(b"append apc 0 0 1\r\nb\r\n", b"STORED\r\n")
        self.assertNotEqual(c.get_values(b"gets apc")[0][3], cas)

    def test_cas(self):
        c = self.connect()
        c.request(b"cas casmiss 0 0 1 1\r\nx\r\n", b"NOT_FOUND\r\n")
        c.request(b"set cask 0 0 1\r\na\r\n", b"STORED\r\n")
        cas = c.get_values(b"gets cask")[0][3]
        c.request(b"cas cask 0 0 1 %d\r\nb\r\n" % (cas + 1000), b"EXISTS\r\n")
        c.request(b"cas cask 4 0 1 %d\r\nb\r\n" % cas, b"STORED\r\n")
        c.request(b"cas cask 0 0 1 %d\r\nc\r\n" % cas, b"EXISTS\r\n")
        c.request(b"get cask\r\n", b"VALUE cask 4 1\r\nb\r\nEND\r\n")
        new_cas = c.get_values(b"gets cask")[0][3]
        self.assertNotEqual(new_cas, cas)
        c.request(b"cas cask 0 0 1 %d noreply\r\nd\r\n" % new_cas, b"")
        c.request(b"get cask\r\n", b"VALUE cask 0 1\r\nd\r\nEND\r\n")

    def test_noreply_storage_commands(self):
        c = self.connect()
        c.request(b"set nr 0 0 1 noreply\r\n1\r\n"
                  b"add nr 0 0 1 noreply\r\n9\r\n"          # NOT_STORED, silent
                  b"replace nr 0 0 1 noreply\r\n2\r\n"
                  b"append nr 0 0 1 noreply\r\n3\r\n"
                  b"prepend nr 0 0 1 noreply\r\n0\r\n"
                  b"cas nr 0 0 1 1 noreply\r\n9\r\n"        # EXISTS, silent
                  b"replace nr-missing 0 0 1 noreply\r\n9\r\n", b"")
        c.request(b"get nr nr-missing\r\n", b"VALUE nr 0 3\r\n023\r\nEND\r\n")

    def test_gat_and_gats(self):
        c = self.connect()
        c.request(b"set gat1 2 0 1\r\na\r\n", b"STORED\r\n")
        c.request(b"gat 100 gat1 gat-missing\r\n", b"VALUE gat1 2 1\r\na\r\nEND\r\n")
        c.send(b"mg gat1 t\r\n")
        self.assertRegex(c.read_line(), rb"^HD t(99|100)\r\n$")
        cas = c.get_values(b"gets gat1")[0][3]
        c.request(b"gats 0 gat1\r\n", b"VALUE gat1 2 1 %d\r\na\r\nEND\r\n" % cas)
        c.request(b"mg gat1 t\r\n", b"HD t-1\r\n")
        c.request(b"gat 10 gat-missing\r\n", b"END\r\n")

    def test_gat_errors(self):
        c = self.connect()
        c.request(b"gat abc k\r\n", b"CLIENT_ERROR invalid exptime argument\r\n")
        c.request(b"gats\r\n", b"ERROR\r\n")

    def test_touch(self):
        c = self.connect()
        c.request(b"touch touch-missing 10\r\n", b"NOT_FOUND\r\n")
        c.request(b"set touchk 0 0 1\r\nx\r\n", b"STORED\r\n")
        c.request(b"touch touchk 100\r\n", b"TOUCHED\r\n")
        c.send(b"mg touchk t\r\n")
        self.assertRegex(c.read_line(), rb"^HD t(99|100)\r\n$")
        c.request(b"touch touchk 0 noreply\r\n", b"")
        c.request(b"mg touchk t\r\n", b"HD t-1\r\n")
        c.request(b"touch touchk abc\r\n", b"CLIENT_ERROR invalid exptime argument\r\n")
        c.request(b"touch touchk\r\n", b"ERROR\r\n")

    def test_delete(self):
        c = self.connect()
        c.request(b"set del 0 0 1\r\nx\r\n", b"STORED\r\n")
        c.request(b"delete del\r\n", b"DELETED\r\n")
        c.request(b"delete del\r\n", b"NOT_FOUND\r\n")
        c.request(b"get del\r\n", b"END\r\n")
        c.request(b"set del 0 0 1\r\nx\r\n", b"STORED\r\n")
        c.request(b"delete del noreply\r\ndelete del noreply\r\n", b"")
        c.request(b"get del\r\n", b"END\r\n")
        # "delete <key> 0" is still accepted (an old client's form); other times are not
        c.request(b"set del 0 0 1\r\nx\r\n", b"STORED\r\n")
        c.request(b"delete del 0\r\n", b"DELETED\r\n")
        c.request(b"delete del 5\r\n",
                  b"CLIENT_ERROR bad command line format.  Usage: delete <key> [noreply]\r\n")


class ArithmeticTest(ServerTestCase):
    """incr and decr."""

    def test_incr_and_decr(self):
        c = self.connect()
        c.request(b"set n 0 0 1\r\n5\r\n", b"STORED\r\n")
        c.request(b"incr n 10\r\n", b"15\r\n")
        c.request(b"decr n 3\r\n", b"12\r\n")
        c.request(b"incr n 0\r\n", b"12\r\n")
        c.request(b"get n\r\n", b"VALUE n 0 2\r\n12\r\nEND\r\n")

    def test_missing_key(self):
        c = self.connect()
        c.request(b"incr nope 1\r\ndecr nope 1\r\n", b"NOT_FOUND\r\nNOT_FOUND\r\n")
        c.request(b"get nope\r\n", b"END\r\n")

    def test_incr_grows_the_value(self):
        c = self.connect()
        c.request(b"set grow 0 0 2\r\n99\r\n", b"STORED\r\n")
        c.request(b"incr grow 1\r\n", b"100\r\n")
        c.request(b"get grow\r\n", b"VALUE grow 0 3\r\n100\r\nEND\r\n")

    def test_incr_wraps_at_64_bits(self):
        c = self.connect()
        c.request(b"set wrap 0 0 20\r\n%d\r\n" % MAX_U64, b"STORED\r\n")
        c.request(b"incr wrap 1\r\n", b"0\r\n")
        assert_numeric_value(self, c, b"wrap", b"0")
        c.request(b"set wrap 0 0 1\r\n5\r\n", b"STORED\r\n")
        c.request(b"incr wrap %d\r\n" % MAX_U64, b"4\r\n")

    def test_decr_stops_at_zero(self):
        c = self.connect()
        c.request(b"set floor 0 0 3\r\n100\r\n", b"STORED\r\n")
        c.request(b"decr floor 1\r\n", b"99\r\n")
        assert_numeric_value(self, c, b"floor", b"99")
        c.request(b"decr floor 200\r\n", b"0\r\n")
        c.request(b"decr floor 1\r\n", b"0\r\n")
        assert_numeric_value(self, c, b"floor", b"0")

    def test_non_numeric_value(self):
        c = self.connect()
        c.request(b"set text 0 0 3\r\nabc\r\n", b"STORED\r\n")
        c.request(b"incr text 1\r\n", b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n")
        c.request(b"decr text 1\r\n", b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n")
        c.request(b"get text\r\n", b"VALUE text 0 3\r\nabc\r\nEND\r\n")

    def test_value_read_as_memcached_reads_it(self):
        """Blanks and '+' before the digits and a blank after them are
        allowed, as memcached's strtoull reads the value."""
        c = self.connect()
        for value, result, kept in ((b" 12", b"13", b"13 "), (b"+12", b"13", b"13 "),
                                    (b"12 34", b"13", b"13   ")):
            c.request(b"set lead 0 0 %d\r\n%s\r\nincr lead 1\r\nget lead\r\n" % (len(value), value),
                      b"STORED\r\n%s\r\nVALUE lead 0 %d\r\n%s\r\nEND\r\n" % (result, len(kept), kept),
                      msg=value)
        c.request(b"set lead 0 0 3\r\n-12\r\nincr lead 1\r\n",
                  b"STORED\r\nCLIENT_ERROR cannot increment or decrement non-numeric value\r\n")

    def test_invalid_delta(self):
        c = self.connect()
        c.request(b"set delta 0 0 1\r\n1\r\n", b"STORED\r\n")
        for delta in (b"abc", b"-1", b"%d" % (MAX_U64 + 1)):
            c.request(b"incr delta " + delta + b"\r\n",
                      b"CLIENT_ERROR invalid numeric delta argument\r\n", msg=delta)
        c.request(b"decr delta x\r\n", b"CLIENT_ERROR invalid numeric delta argument\r\n")
        c.request(b"incr delta\r\n", b"ERROR\r\n")

    def test_noreply(self):
        c = self.connect()
        c.request(b"set quiet 0 0 1\r\n5\r\n", b"STORED\r\n")
        c.request(b"incr quiet 5 noreply\r\ndecr quiet 2 noreply\r\nincr nope 1 noreply\r\n", b"")
        assert_numeric_value(self, c, b"quiet", b"8")

    def test_incr_keeps_flags(self):
        c = self.connect()
        c.request(b"set flagged 42 0 1\r\n1\r\n", b"STORED\r\n")
        c.request(b"incr flagged 1\r\n", b"2\r\n")
        c.request(b"get flagged\r\n", b"VALUE flagged 42 1\r\n2\r\nEND\r\n")


class OtherCommandsTest(ServerTestCase):
    """version, verbosity, quit, stats, lru_crawler metadump."""

    def test_version(self):
        c = self.connect()
        c.send(b"version\r\n")
        self.assertRegex(c.read_line(), rb"^VERSION [!-~]+\r\n$")
        c.sync()

    def test_verbosity(self):
        c = self.connect()
        c.request(b"verbosity 1\r\n", b"OK\r\n")
        c.request(b"verbosity 0 noreply\r\n", b"")
        c.request(b"verbosity\r\n", b"ERROR\r\n")
        c.request(b"verbosity 0\r\n", b"OK\r\n")

    def test_quit_closes_the_connection(self):
        c = self.connect()
        c.send(b"quit\r\n")
        self.assertEqual(c.expect_closed(), b"")
        self.connect().sync()

    def test_quit_after_pipelined_commands(self):
        c = self.connect()
        c.send(b"set quitk 0 0 1\r\nq\r\nget quitk\r\nquit\r\nget quitk\r\n")
        self.assertEqual(c.expect_closed(), b"STORED\r\nVALUE quitk 0 1\r\nq\r\nEND\r\n")

    STAT_NAMES = ("pid", "uptime", "time", "version", "pointer_size", "curr_connections",
                  "total_connections", "cmd_get", "cmd_set", "cmd_flush", "cmd_touch",
                  "get_hits", "get_misses", "delete_hits", "delete_misses", "incr_hits",
                  "incr_misses", "decr_hits", "decr_misses", "cas_hits", "cas_misses",
                  "cas_badval", "touch_hits", "touch_misses", "bytes_read", "bytes_written",
                  "limit_maxbytes", "threads", "bytes", "curr_items", "total_items",
                  "evictions")

    def test_stats(self):
        c = self.connect()
        stats = c.stats()
        for name in self.STAT_NAMES:
            self.assertIn(name, stats)
        self.assertEqual(int(stats["pid"]), self.server.process.pid)
        self.assertEqual(int(stats["limit_maxbytes"]), 64 * 1024 * 1024)
        self.assertLess(abs(int(stats["time"]) - time.time()), 5)
        self.assertGreaterEqual(int(stats["curr_connections"]), 1)
        for name in self.STAT_NAMES:
            if name != "version":
                self.assertRegex(stats[name], rb"^\d+(\.\d+)?$", name)

    def test_stats_counters(self):
        c = self.connect()
        before = c.stats()
        c.request(b"set counted 0 0 1\r\n1\r\nget counted\r\nget counted-miss\r\n"
                  b"incr counted 1\r\ndelete counted\r\ndelete counted\r\n",
                  b"STORED\r\nVALUE counted 0 1\r\n1\r\nEND\r\nEND\r\n2\r\nDELETED\r\nNOT_FOUND\r\n")
        after = c.stats()
        delta = {n: int(after[n]) - int(before[n])
                 for n in ("cmd_set", "cmd_get", "get_hits", "get_misses", "incr_hits",
                           "delete_hits", "delete_misses", "total_items")}
        self.assertEqual(delta, {"cmd_set": 1, "cmd_get": 2, "get_hits": 1, "get_misses": 1,
                                 "incr_hits": 1, "delete_hits": 1, "delete_misses": 1,
                                 "total_items": 1})

    def test_stats_curr_items_and_bytes(self):
        c = self.connect()
        before = c.stats()
        c.request(b"set items1 0 0 10\r\n0123456789\r\nset items2 0 0 1\r\nx\r\n", b"STORED\r\nSTORED\r\n")
        after = c.stats()
        self.assertEqual(int(after["curr_items"]) - int(before["curr_items"]), 2)
        self.assertGreater(int(after["bytes"]), int(before["bytes"]))
        c.request(b"delete items1\r\ndelete items2\r\n", b"DELETED\r\nDELETED\r\n")
        self.assertEqual(int(c.stats()["curr_items"]), int(before["curr_items"]))

    def test_stats_settings(self):
        c = self.connect()
        settings = c.stats(b"settings")
        self.assertEqual(settings["maxbytes"], b"67108864")
        self.assertEqual(settings["maxconns"], b"1024")
        self.assertEqual(settings["tcpport"], b"%d" % self.server.port)
        self.assertEqual(settings["udpport"], b"0")
        self.assertEqual(settings["item_size_max"], b"1048576")
        self.assertEqual(settings["evictions"], b"on")
        self.assertEqual(settings["cas_enabled"], b"yes")
        self.assertEqual(settings["shutdown_command"], b"no")

    def test_stats_items(self):
        c = self.connect()
        c.request(b"set sitems 0 0 3\r\nabc\r\n", b"STORED\r\n")
        items = c.stats(b"items")
        self.assertTrue(items)
        for name, value in items.items():
            self.assertRegex(name, r"^items:\d+:\w+$")
            self.assertRegex(value, rb"^\d+$", name)
        numbers = [int(v) for n, v in items.items() if n.endswith(":number")]
        self.assertGreaterEqual(sum(numbers), 1)

    def test_stats_slabs(self):
        c = self.connect()
        c.request(b"set sslabs 0 0 3\r\nabc\r\n", b"STORED\r\n")
        slabs = c.stats(b"slabs")
        self.assertIn("active_slabs", slabs)
        self.assertIn("total_malloced", slabs)
        self.assertGreaterEqual(int(slabs["active_slabs"]), 1)
        chunk_sizes = [n for n in slabs if re.fullmatch(r"\d+:chunk_size", n)]
        self.assertTrue(chunk_sizes, slabs)

    def test_stats_conns(self):
        c = self.connect()
        local_port = c.sock.getsockname()[1]
        conns = c.stats(b"conns")
        for name in conns:
            self.assertRegex(name, r"^\d+:\w+$")
        addrs = [v for n, v in conns.items() if n.endswith(":addr")]
        self.assertIn(b"tcp:127.0.0.1:%d" % local_port, addrs)

    def test_stats_reset(self):
        c = self.connect()
        c.request(b"set reset1 0 0 1\r\n1\r\nget reset1\r\n", b"STORED\r\nVALUE reset1 0 1\r\n1\r\nEND\r\n")
        self.assertGreaterEqual(int(c.stats()["get_hits"]), 1)
        c.request(b"stats reset\r\n", b"RESET\r\n")
        stats = c.stats()
        self.assertEqual(stats["get_hits"], b"0")
        self.assertEqual(stats["cmd_get"], b"0")
        self.assertGreaterEqual(int(stats["curr_items"]), 1)  # items stay
        c.request(b"get reset1\r\n", b"VALUE reset1 0 1\r\n1\r\nEND\r\n")

    def test_stats_unknown(self):
        c = self.connect()
        c.request(b"stats no-such-group\r\n", b"ERROR\r\n")

    def metadump(self, c):
        """`lru_crawler metadump all` (sent alone: memcached refuses it
        pipelined behind other commands), retried while the crawler is busy."""
        for _ in range(50):
            c.send(b"lru_crawler metadump all\r\n")
            first = c.read_until(b"\n")
            if first.startswith(b"BUSY"):
                time.sleep(0.1)
                continue
            if first == b"END\r\n":
                return []
            return [first] + c.read_until(b"END\r\n").splitlines(keepends=True)[:-1]
        self.fail("lru_crawler stayed busy")

    def test_lru_crawler_metadump(self):
        c = self.connect()
        exptime = int(time.time()) + 1000
        c.request(b"set md-plain 0 0 1\r\nx\r\nset md%%odd\xc3\xa9 0 %d 3\r\nabc\r\nget md-plain\r\n" % exptime,
                  b"STORED\r\nSTORED\r\nVALUE md-plain 0 1\r\nx\r\nEND\r\n")
        lines = self.metadump(c)
        pattern = re.compile(rb"key=(\S+) exp=(-1|\d+) la=(\d+) cas=(\d+) fetch=(yes|no) cls=(\d+) size=(\d+)\n")
        found = {}
        for line in lines:
            m = pattern.fullmatch(line)
            self.assertIsNotNone(m, f"metadump line {line!r}")
            found[m.group(1)] = m
        self.assertIn(b"md-plain", found)
        self.assertIn(b"md%25odd%C3%A9", found, "keys are URL-encoded")
        plain, odd = found[b"md-plain"], found[b"md%25odd%C3%A9"]
        self.assertEqual(plain.group(2), b"-1")
        self.assertEqual(plain.group(5), b"yes")
        self.assertEqual(odd.group(5), b"no")
        self.assertLessEqual(abs(int(odd.group(2)) - exptime), 2)
        self.assertLessEqual(abs(int(plain.group(3)) - time.time()), 5)
        c.sync()


class MetaCommandsTest(ServerTestCase):
    """mg, ms, md, ma, mn and their common flags."""

    def test_mn(self):
        c = self.connect()
        c.request(b"", b"")
        c.request(b"mn\r\n", b"MN\r\n")

    def test_ms_and_mg(self):
        c = self.connect()
        c.request(b"ms mk 3\r\nabc\r\n", b"HD\r\n")
        c.request(b"mg mk v\r\n", b"VA 3\r\nabc\r\n")
        c.request(b"mg mk\r\n", b"HD\r\n")
        c.request(b"mg mk-missing v\r\n", b"EN\r\n")
        c.request(b"get mk\r\n", b"VALUE mk 0 3\r\nabc\r\nEND\r\n")

    def test_mg_return_flags_in_request_order(self):
        c = self.connect()
        c.request(b"ms mgf 3 F7\r\nabc\r\n", b"HD\r\n")
        c.send(b"mg mgf k v f t c s O123\r\n")
        header = c.read_line()
        m = re.fullmatch(rb"VA 3 kmgf f7 t-1 c(\d+) s3 O123\r\n", header)
        self.assertIsNotNone(m, header)
        c.expect(b"abc\r\n")
        cas = c.get_values(b"gets mgf")[0][3]
        self.assertEqual(int(m.group(1)), cas)
        c.request(b"mg mgf O9 k\r\n", b"HD O9 kmgf\r\n")

    def test_mg_quiet_mode(self):
        c = self.connect()
        c.request(b"ms mq 2\r\nhi\r\n", b"HD\r\n")
        # q hides EN (a miss) but not a hit
        c.request(b"mg mq-missing v q\r\nmg mq v q\r\nmg mq q\r\nmg mq-missing q\r\n",
                  b"VA 2\r\nhi\r\nHD\r\n")

    def test_ms_flags_ttl_and_cas(self):
        c = self.connect()
        c.send(b"ms msf 3 F9 T100 c\r\nabc\r\n")
        m = re.fullmatch(rb"HD c(\d+)\r\n", c.read_line())
        self.assertIsNotNone(m)
        c.send(b"mg msf f t v c\r\n")
        self.assertRegex(c.read_line(), rb"^VA 3 f9 t(99|100) c%s\r\n$" % m.group(1))
        c.expect(b"abc\r\n")
        c.request(b"get msf\r\n", b"VALUE msf 9 3\r\nabc\r\nEND\r\n")

    def test_ms_compare_and_swap(self):
        c = self.connect()
        c.send(b"ms mcas 1 c\r\n1\r\n")
        cas = int(re.fullmatch(rb"HD c(\d+)\r\n", c.read_line()).group(1))
        c.request(b"ms mcas 1 C%d\r\n2\r\n" % (cas + 1000), b"EX\r\n")
        c.request(b"ms mcas 1 C%d q\r\n2\r\n" % (cas + 1000), b"EX\r\n")  # q does not hide EX
        c.request(b"ms mcas 1 C%d\r\n3\r\n" % cas, b"HD\r\n")
        c.request(b"mg mcas v\r\n", b"VA 1\r\n3\r\n")
        c.request(b"ms mcas-missing 1 C%d\r\n3\r\n" % cas, b"NF\r\n")

    def test_ms_compare_and_swap_counts_as_cas(self):
        """C makes ms's set and replace modes a cas, counted in cas_hits,
        cas_badval and cas_misses; append and prepend compare without
        counting, add ignores C."""
        c = self.connect()

        def cas_of(key):
            c.send(b"mg %s c\r\n" % key)
            return int(re.fullmatch(rb"HD c(\d+)\r\n", c.read_line()).group(1))

        def cas_counts():
            stats = c.stats()
            return [int(stats[n]) for n in ("cas_hits", "cas_badval", "cas_misses")]

        c.request(b"ms mcc 1\r\n1\r\n", b"HD\r\n")
        before = cas_counts()
        c.request(b"ms mcc 1 C%d\r\n2\r\n" % cas_of(b"mcc"), b"HD\r\n")
        c.request(b"ms mcc 1 C%d\r\n3\r\n" % (cas_of(b"mcc") + 1000), b"EX\r\n")
        c.request(b"ms mcc-missing 1 C1\r\n3\r\n", b"NF\r\n")
        c.request(b"ms mcc 1 MR C%d\r\n4\r\n" % cas_of(b"mcc"), b"HD\r\n")
        c.request(b"ms mcc 1 MR C%d\r\n5\r\n" % (cas_of(b"mcc") + 1000), b"EX\r\n")
        c.request(b"ms mcc-missing 1 MR C1\r\n5\r\n", b"NF\r\n")
        self.assertEqual([a - b for a, b in zip(cas_counts(), before)], [2, 2, 2])
        before = cas_counts()
        c.request(b"ms mcc 1 MA C%d\r\na\r\n" % cas_of(b"mcc"), b"HD\r\n")
        c.request(b"ms mcc 1 MP C%d\r\np\r\n" % (cas_of(b"mcc") + 1000), b"EX\r\n")
        c.request(b"ms mcc 1 ME C%d\r\ne\r\n" % cas_of(b"mcc"), b"NS\r\n")
        c.request(b"mg mcc v\r\n", b"VA 2\r\n4a\r\n")
        self.assertEqual(cas_counts(), before)

    def test_ms_quiet_mode(self):
        c = self.connect()
        c.request(b"ms msq 3 q\r\nabc\r\nms msq-missing 1 MR q\r\nx\r\n", b"NS\r\n")
        c.request(b"mg msq v\r\n", b"VA 3\r\nabc\r\n")

    def test_ms_modes(self):
        c = self.connect()
        c.request(b"ms mode 1 MS\r\nb\r\n", b"HD\r\n")
        c.request(b"ms mode 1 MA\r\nc\r\n", b"HD\r\n")
        c.request(b"ms mode 1 MP\r\na\r\n", b"HD\r\n")
        c.request(b"mg mode v\r\n", b"VA 3\r\nabc\r\n")
        c.request(b"ms mode 1 ME\r\nx\r\n", b"NS\r\n")
        c.request(b"ms mode-new 1 ME\r\nx\r\n", b"HD\r\n")
        c.request(b"ms mode 1 MR\r\nr\r\n", b"HD\r\n")
        c.request(b"ms mode-none 1 MR\r\nr\r\n", b"NS\r\n")
        c.request(b"ms mode-none 1 MA\r\nr\r\n", b"NS\r\n")
        c.request(b"ms mode-none 1 MP\r\nr\r\n", b"NS\r\n")
        c.request(b"mg mode v\r\nmg mode-new v\r\nmg mode-none v\r\n",
                  b"VA 1\r\nr\r\nVA 1\r\nx\r\nEN\r\n")
        c.request(b"ms mode 1 MX\r\ns\r\n", b"CLIENT_ERROR invalid mode for ms M token\r\n")

    def test_md(self):
        c = self.connect()
        c.request(b"ms mdk 1\r\nx\r\n", b"HD\r\n")
        c.request(b"md mdk\r\n", b"HD\r\n")
        c.request(b"md mdk\r\n", b"NF\r\n")
        c.request(b"mg mdk v\r\n", b"EN\r\n")
        c.request(b"ms mdk 1\r\nx\r\n", b"HD\r\n")
        c.request(b"md mdk q\r\n", b"")  # q hides HD
        c.request(b"mg mdk\r\n", b"EN\r\n")

    def test_md_compare_and_swap(self):
        c = self.connect()
        c.send(b"ms mdc 1 c\r\nx\r\n")
        cas = int(re.fullmatch(rb"HD c(\d+)\r\n", c.read_line()).group(1))
        c.request(b"md mdc C%d\r\n" % (cas + 1000), b"EX\r\n")
        c.request(b"md mdc C%d\r\n" % cas, b"HD\r\n")
        c.request(b"mg mdc\r\n", b"EN\r\n")

    def test_md_invalidate_marks_stale(self):
        c = self.connect()
        c.request(b"ms mdi 1\r\nx\r\n", b"HD\r\n")
        c.request(b"md mdi I\r\n", b"HD\r\n")
        # the first fetch of a stale item wins the right to recache it (W);
        # later ones are told a winner was chosen (Z)
        c.send(b"mg mdi v c\r\n")
        self.assertRegex(c.read_line(), rb"^VA 1 c\d+ X W\r\n$")
        c.expect(b"x\r\n")
        c.request(b"mg mdi\r\n", b"HD Z X\r\n")

    def test_mg_vivify_on_miss(self):
        c = self.connect()
        c.send(b"mg viv N30 v c t\r\n")
        self.assertRegex(c.read_line(), rb"^VA 0 c\d+ t(29|30) W\r\n$")
        c.expect(b"\r\n")
        c.request(b"mg viv N30 v\r\n", b"VA 0 Z\r\n\r\n")
        c.request(b"ms viv 3\r\nabc\r\n", b"HD\r\n")
        c.request(b"mg viv N30 v\r\n", b"VA 3\r\nabc\r\n")

    def test_mg_touch_with_T(self):
        c = self.connect()
        c.request(b"ms mgt 1\r\nx\r\n", b"HD\r\n")
        c.request(b"mg mgt T50\r\n", b"HD\r\n")
        c.send(b"mg mgt t v\r\n")
        self.assertRegex(c.read_line(), rb"^VA 1 t(49|50)\r\n$")
        c.expect(b"x\r\n")

    def test_mg_hit_and_last_access(self):
        c = self.connect()
        c.request(b"ms mgh 1\r\nx\r\n", b"HD\r\n")
        c.request(b"mg mgh h l\r\n", b"HD h0 l0\r\n")
        c.request(b"mg mgh h\r\n", b"HD h1\r\n")

    def test_ma(self):
        c = self.connect()
        c.request(b"ma cnt\r\n", b"NF\r\n")
        c.request(b"ma cnt N0 J13 v\r\n", b"VA 2\r\n13\r\n")  # vivified with J
        c.request(b"ma cnt v\r\n", b"VA 2\r\n14\r\n")
        c.request(b"ma cnt D6\r\n", b"HD\r\n")
        c.request(b"ma cnt MD D5 v\r\n", b"VA 2\r\n15\r\n")
        c.request(b"ma cnt MD D200 v\r\n", b"VA 1\r\n0\r\n")  # decrement stops at 0
        c.request(b"ma cnt MI D5 v\r\n", b"VA 1\r\n5\r\n")
        c.request(b"ma cnt M+ D1 v\r\nma cnt M- D2 v\r\n", b"VA 1\r\n6\r\nVA 1\r\n4\r\n")
        c.request(b"ma cnt q\r\n", b"")  # q hides HD
        c.send(b"ma cnt v t c\r\n")
        self.assertRegex(c.read_line(), rb"^VA 1 t-1 c\d+\r\n$")
        c.expect(b"6\r\n")
        assert_numeric_value(self, c, b"cnt", b"6")

    def test_ma_wraps_and_errors(self):
        c = self.connect()
        c.request(b"set mawrap 0 0 20\r\n%d\r\n" % MAX_U64, b"STORED\r\n")
        c.request(b"ma mawrap v\r\n", b"VA 1\r\n0\r\n")
        c.request(b"ms matext 3\r\nabc\r\n", b"HD\r\n")
        c.request(b"ma matext\r\n", b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n")

    def test_flags_a_command_has_no_use_for_are_ignored(self):
        """Every meta command takes the flags memcached knows and ignores
        those it has no use for; ms and ma return only their own flags."""
        c = self.connect()
        c.request(b"set ign 0 0 2\r\n12\r\nmd ign v f s t h l u P L N5 R5 F5 J5 D5\r\n",
                  b"STORED\r\nHD\r\n")
        c.request(b"set ign 0 0 2\r\n12\r\nma ign I f s h l u P L R5 F5 v t\r\n",
                  b"STORED\r\nVA 2 t-1\r\n13\r\n")
        c.request(b"ms ign 2 v f h l u t s N5 R5 J5 D5 P L\r\n12\r\nmg ign D5 J5 I P L M+ v\r\n",
                  b"HD\r\nVA 2\r\n12\r\n")
        # letters memcached 1.6.18 does not know stay errors
        c.request(b"md ign x\r\nma ign E5\r\n",
                  b"CLIENT_ERROR invalid or duplicate flag\r\n" * 2)

    def test_base64_keys(self):
        c = self.connect()
        c.request(b"ms Zm9vYmFy 3 b\r\nbar\r\n", b"HD\r\n")   # "foobar"
        c.request(b"mg foobar v\r\n", b"VA 3\r\nbar\r\n")
        c.request(b"mg Zm9vYmFy b v k\r\n", b"VA 3 kZm9vYmFy b\r\nbar\r\n")
        c.request(b"md Zm9vYmFy b\r\n", b"HD\r\n")
        c.request(b"mg foobar v\r\n", b"EN\r\n")
        c.request(b"mg !!!! b v\r\n", b"CLIENT_ERROR error decoding key\r\n")

    def test_me(self):
        c = self.connect()
        c.request(b"ms medbg 3\r\nabc\r\n", b"HD\r\n")
        c.send(b"me medbg\r\n")
        self.assertRegex(c.read_line(),
                         rb"^ME medbg exp=-1 la=\d+ cas=\d+ fetch=(yes|no) cls=\d+ size=\d+\r\n$")
        c.request(b"me medbg-missing\r\n", b"EN\r\n")
        # An item with an expiry: memcached prints the negative of the
        # seconds it has left (its current_time - exptime).
        c.request(b"ms medbg-ttl 3 T100\r\nabc\r\n", b"HD\r\n")
        c.send(b"me medbg-ttl\r\n")
        match = re.match(rb"^ME medbg-ttl exp=(-?\d+) la=", c.read_line())
        self.assertIsNotNone(match)
        self.assertIn(int(match.group(1)), range(-100, -97))

    def test_meta_errors(self):
        c = self.connect()
        c.request(b"mg\r\n", b"ERROR\r\n")
        c.request(b"ms k\r\n", b"CLIENT_ERROR bad command line format\r\n")
        c.request(b"ms k abc\r\n", b"CLIENT_ERROR bad command line format\r\n")
        c.request(b"mg k !\r\n", b"CLIENT_ERROR invalid flag\r\n")
        # an invalid flag on ms: the data block is swallowed
        c.request(b"ms k 2 !\r\nab\r\n", b"CLIENT_ERROR invalid flag\r\n")
        # a data block of the wrong length: q does not hide errors
        c.request(b"ms k 3 q\r\nabcde\r\n", b"CLIENT_ERROR bad data chunk\r\nERROR\r\n")
        c.request(b"mg k v\r\n", b"EN\r\n")


class ExpiryTest(ServerTestCase):
    """Expiration times: negative, relative, absolute. One sleep for all."""

    def test_negative_exptime_is_expired_at_once(self):
        c = self.connect()
        c.request(b"set neg 0 -1 1\r\nx\r\n", b"STORED\r\n")
        c.request(b"get neg\r\n", b"END\r\n")
        c.request(b"ms negm 1 T-1\r\nx\r\n", b"HD\r\n")
        c.request(b"mg negm v\r\n", b"EN\r\n")
        c.request(b"set negt 0 0 1\r\nx\r\ntouch negt -1\r\n", b"STORED\r\nTOUCHED\r\n")
        c.request(b"get negt\r\n", b"END\r\n")

    def test_absolute_exptime(self):
        c = self.connect()
        now = int(time.time())
        c.request(b"set past 0 %d 1\r\nx\r\n" % (now - 1000), b"STORED\r\n")
        c.request(b"get past\r\n", b"END\r\n")
        c.request(b"set future 0 %d 1\r\nx\r\n" % (now + 1000), b"STORED\r\n")
        c.request(b"get future\r\n", b"VALUE future 0 1\r\nx\r\nEND\r\n")
        c.send(b"mg future t\r\n")
        ttl = int(re.fullmatch(rb"HD t(\d+)\r\n", c.read_line()).group(1))
        # Both clocks tick in whole seconds; a loaded machine adds its delay.
        waited = int(time.time()) - now
        self.assertLessEqual(abs(ttl - 1000), 2 + waited)
        # 30 days (2592000 s) is still relative
        c.request(b"set month 0 2592000 1\r\nx\r\nget month\r\n",
                  b"STORED\r\nVALUE month 0 1\r\nx\r\nEND\r\n")

    def test_relative_exptime_expires(self):
        c = self.connect()
        c.request(b"set rel 0 2 1\r\nx\r\n"
                  b"set tch 0 0 1\r\nx\r\ntouch tch 2\r\n"
                  b"set gatk 0 0 1\r\nx\r\ngat 2 gatk\r\n"
                  b"ms msT 1 T2\r\nx\r\n"
                  b"ms mgT 1\r\nx\r\nmg mgT T2\r\n"
                  b"set keep 0 100 1\r\nx\r\n"
                  b"set forever 0 0 1\r\nx\r\n",
                  b"STORED\r\nSTORED\r\nTOUCHED\r\nSTORED\r\nVALUE gatk 0 1\r\nx\r\nEND\r\n"
                  b"HD\r\nHD\r\nHD\r\nSTORED\r\nSTORED\r\n")
        everything = b"get rel tch gatk msT mgT keep forever\r\n"
        c.request(everything,
                  b"VALUE rel 0 1\r\nx\r\nVALUE tch 0 1\r\nx\r\nVALUE gatk 0 1\r\nx\r\n"
                  b"VALUE msT 0 1\r\nx\r\nVALUE mgT 0 1\r\nx\r\nVALUE keep 0 1\r\nx\r\n"
                  b"VALUE forever 0 1\r\nx\r\nEND\r\n")
        time.sleep(2.6)
        c.request(everything, b"VALUE keep 0 1\r\nx\r\nVALUE forever 0 1\r\nx\r\nEND\r\n")
        # an expired item is gone for every command
        c.request(b"add rel 0 0 1\r\ny\r\n", b"STORED\r\n")
        c.request(b"replace tch 0 0 1\r\ny\r\n", b"NOT_STORED\r\n")
        c.request(b"incr gatk 1\r\n", b"NOT_FOUND\r\n")
        c.request(b"touch msT 10\r\n", b"NOT_FOUND\r\n")
        c.request(b"md mgT\r\n", b"NF\r\n")


class FlushAllTest(ServerTestCase):

    def test_flush_all(self):
        c = self.connect()
        c.request(b"set f1 0 0 1\r\nx\r\nset f2 0 0 1\r\nx\r\n", b"STORED\r\nSTORED\r\n")
        c.request(b"flush_all\r\n", b"OK\r\n")
        c.request(b"get f1 f2\r\n", b"END\r\n")
        # items stored right after the flush are kept
        c.request(b"set f3 0 0 1\r\nx\r\nget f3\r\n", b"STORED\r\nVALUE f3 0 1\r\nx\r\nEND\r\n")
        c.request(b"flush_all noreply\r\n", b"")
        c.request(b"get f3\r\n", b"END\r\n")
        c.request(b"set f4 0 0 1\r\nx\r\nflush_all 0\r\nget f4\r\n", b"STORED\r\nOK\r\nEND\r\n")
        c.request(b"flush_all abc\r\n", b"CLIENT_ERROR invalid exptime argument\r\n")
        self.assertGreaterEqual(int(c.stats()["cmd_flush"]), 3)

    def test_flush_all_with_delay(self):
        c = self.connect()
        c.request(b"set delayed 0 0 1\r\nx\r\n", b"STORED\r\n")
        c.request(b"flush_all 3\r\n", b"OK\r\n")
        c.request(b"get delayed\r\n", b"VALUE delayed 0 1\r\nx\r\nEND\r\n")
        time.sleep(3.3)
        c.request(b"get delayed\r\n", b"END\r\n")
        c.request(b"set after 0 0 1\r\nx\r\nget after\r\n", b"STORED\r\nVALUE after 0 1\r\nx\r\nEND\r\n")


class PipelineTest(ServerTestCase):
    """Many requests in one write, and requests split byte by byte."""

    SCRIPT = [
        (b"set p1 1 0 5\r\nhello\r\n", b"STORED\r\n"),
        (b"get p1\r\n", b"VALUE p1 1 5\r\nhello\r\nEND\r\n"),
        (b"add p1 0 0 1\r\nx\r\n", b"NOT_STORED\r\n"),
        (b"append p1 0 0 6\r\n world\r\n", b"STORED\r\n"),
        (b"mg p1 v f\r\n", b"VA 11 f1\r\nhello world\r\n"),
        (b"set p2 0 0 2 noreply\r\n10\r\n", b""),
        (b"incr p2 5\r\n", b"15\r\n"),
        (b"bogus command\r\n", b"ERROR\r\n"),
        (b"ms p3 4 T0\r\nab\r\n\r\n", b"HD\r\n"),
        (b"get p3 p-missing p2\r\n", b"VALUE p3 0 4\r\nab\r\n\r\nVALUE p2 0 2\r\n15\r\nEND\r\n"),
        (b"mg p-missing v q\r\n", b""),
        (b"delete p2\r\n", b"DELETED\r\n"),
        (b"md p2 q\r\n", b"NF\r\n"),
        (b"ma p4 N0 J7 v\r\n", b"VA 1\r\n7\r\n"),
        (b"touch p1 0\r\n", b"TOUCHED\r\n"),
        (b"set p5 0 0 3\r\nabcde\r\n", b"CLIENT_ERROR bad data chunk\r\nERROR\r\n"),
        (b"get p5\r\n", b"END\r\n"),
        (b"mn\r\n", b"MN\r\n"),
    ]

    def run_script(self, c, send):
        request = b"".join(r for r, _ in self.SCRIPT)
        expected = b"".join(e for _, e in self.SCRIPT)
        c.request(b"delete p1 noreply\r\ndelete p2 noreply\r\ndelete p3 noreply\r\n"
                  b"delete p4 noreply\r\n", b"")
        send(request)
        c.expect(expected)
        c.sync()

    def test_one_write(self):
        c = self.connect()
        self.run_script(c, c.send)

    def test_byte_by_byte(self):
        c = self.connect()
        self.run_script(c, c.send_bytewise)

    def test_split_at_every_position(self):
        # one request split in two writes at every possible place
        c = self.connect()
        request = b"set split 0 0 10\r\n0123\r\n6789\r\nget split\r\n"
        for cut in range(1, len(request)):
            c.send(request[:cut])
            time.sleep(0.001)
            c.send(request[cut:])
            c.expect(b"STORED\r\nVALUE split 0 10\r\n0123\r\n6789\r\nEND\r\n", msg=f"cut at {cut}")

    def test_thousands_of_requests_in_one_write(self):
        c = self.connect()
        n = 3000
        sets = b"".join(b"set pl%d 0 0 %d\r\n%d\r\n" % (i, len(b"%d" % i), i) for i in range(n))
        gets = b"".join(b"get pl%d\r\n" % i for i in range(n))
        expected = b"STORED\r\n" * n + b"".join(
            b"VALUE pl%d 0 %d\r\n%d\r\nEND\r\n" % (i, len(b"%d" % i), i) for i in range(n))
        sender = threading.Thread(target=c.send, args=(sets + gets,))
        sender.start()
        try:
            c.expect(expected, timeout=30)
        finally:
            sender.join()
        c.sync()


class RequestsPerEventTest(ServerTestCase):
    """-R: a connection is served at most R requests at a time, then yields
    to the others (`conn_yields`) and comes back for the rest, in order."""

    per_event = 5
    server_args = ("-R", str(per_event))

    def yields(self):
        return int(self.connect().stats()["conn_yields"])

    def test_setting_is_shown(self):
        self.assertEqual(self.connect().stats(b"settings")["reqs_per_event"], b"5")

    def test_a_pipeline_longer_than_R_is_answered_in_order_and_yields(self):
        c = self.connect()
        n = 100
        c.request(b"".join(b"set r%d 0 0 %d noreply\r\n%d\r\n" % (i, len(b"%d" % i), i)
                           for i in range(n)), b"")
        # The sets' own yields are counted before `before`: mn is answered
        # only after every set before it on this connection.
        c.request(b"mn\r\n", b"MN\r\n")
        before = self.yields()
        c.request(b"".join(b"get r%d\r\n" % i for i in range(n)),
                  b"".join(b"VALUE r%d 0 %d\r\n%d\r\nEND\r\n" % (i, len(b"%d" % i), i)
                           for i in range(n)))
        # Each stretch between yields served R requests, or R + 1 (memcached
        # serves one more on the event that reads; for 100 gets in one write
        # both servers count 19).
        grown = self.yields() - before
        r = self.per_event
        self.assertGreaterEqual(grown, -(-(n + 1) // (r + 1)) - 1)
        self.assertLessEqual(grown, (n + 1) // r)

    def test_as_many_requests_as_R_do_not_yield(self):
        c = self.connect()
        before = self.yields()
        c.request(b"get none\r\n" * (self.per_event - 1), b"END\r\n" * (self.per_event - 1))
        self.assertEqual(self.yields(), before)

    def test_clients_pipelining_together_are_answered_in_order(self):
        clients = [self.connect() for _ in range(4)]
        requests = {}
        for number, client in enumerate(clients):
            requests[number] = [b"c%d_%d" % (number, i) for i in range(60)]
            client.send(b"".join(b"set %s 0 0 %d\r\n%s\r\nget %s\r\n" % (k, len(k), k, k)
                                 for k in requests[number]))
        for number, client in enumerate(clients):
            client.expect(b"".join(b"STORED\r\nVALUE %s 0 %d\r\n%s\r\nEND\r\n" % (k, len(k), k)
                                   for k in requests[number]), msg=f"client {number}")
            client.sync()


class HalfCloseTest(ServerTestCase):
    """A client that sends its requests and then shuts its side down (as
    `nc -q0` does) still gets every reply before the server closes."""

    def test_requests_before_a_half_close_are_answered(self):
        key = self.key()
        sock = self.server.connect()
        sock.sendall(b"set %s 0 0 2\r\nhi\r\nget %s\r\n" % (key, key))
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while True:
            data = sock.recv(65536)
            if not data:
                break
            received += data
        sock.close()
        self.assertEqual(received, b"STORED\r\nVALUE %s 0 2\r\nhi\r\nEND\r\n" % key)

class MalformedInputTest(ServerTestCase):
    """Errors, and the connection staying in step after them."""

    def test_unknown_commands(self):
        c = self.connect()
        for line in (b"foo", b"GET k", b"", b"   ", b"set", b"get", b"incr", b"touch k",
                     b"lru_crawler", b"\x01\x02\xff\xfe garbage"):
            c.request(line + b"\r\n", b"ERROR\r\n", msg=f"line {line!r}")

    def test_bad_numbers(self):
        c = self.connect()
        for line in (b"set k abc 0 1", b"set k 0 abc 1", b"set k 0 0 abc", b"set k 0 0 -1",
                     b"set k -1 0 1", b"add k 0 0 1x", b"cas k 0 0 1 abc", b"verbosity abc"):
            c.request(line + b"\r\n", b"CLIENT_ERROR bad command line format\r\n", msg=f"line {line!r}")

    def test_refused_storage_line_does_not_swallow_its_data(self):
        # The data block of a storage command refused for its line (bad
        # number, key too long) is read as the next command line.
        c = self.connect()
        c.request(b"set k abc 0 1\r\nx\r\n", b"CLIENT_ERROR bad command line format\r\nERROR\r\n")
        c.request(b"set %s 0 0 1\r\nx\r\n" % (b"k" * 251),
                  b"CLIENT_ERROR bad command line format\r\nERROR\r\n")
        c.request(b"ms %s 1\r\nx\r\n" % (b"k" * 251),
                  b"CLIENT_ERROR bad command line format\r\nERROR\r\n")

    def test_key_length_limit(self):
        c = self.connect()
        k250, k251 = b"K" * 250, b"K" * 251
        c.request(b"set %s 0 0 1\r\nx\r\n" % k250, b"STORED\r\n")
        c.request(b"get %s\r\n" % k250, b"VALUE %s 0 1\r\nx\r\nEND\r\n" % k250)
        c.request(b"mg %s v\r\n" % k250, b"VA 1\r\nx\r\n")
        bad = b"CLIENT_ERROR bad command line format\r\n"
        for line in (b"get %s", b"get a %s b", b"gets %s", b"delete %s", b"incr %s 1",
                     b"touch %s 1", b"mg %s v", b"md %s"):
            c.request(line % k251 + b"\r\n", bad, msg=f"{line!r}")

    def test_control_characters_in_keys(self):
        # memcached's text protocol splits on spaces only and stores such keys
        # (protocol.txt forbids them); the connection stays in step.
        c = self.connect()
        for key in (b"ctl\x01key", b"ctl\tkey", b"ctl\x7fkey"):
            c.send(b"set %s 0 0 1\r\nx\r\nmn\r\n" % key)
            c.expect(b"STORED\r\nMN\r\n", msg=repr(key))
            c.request(b"get %s\r\n" % key, b"VALUE %s 0 1\r\nx\r\nEND\r\n" % key)

    def test_bare_newline_ends_a_command(self):
        c = self.connect()
        c.send(b"set lf 0 0 2\nhi\r\nget lf\nmn\n")
        c.expect(b"STORED\r\nVALUE lf 0 2\r\nhi\r\nEND\r\nMN\r\n")

    def test_bad_data_chunk(self):
        c = self.connect()
        c.request(b"set chunk 0 0 1\r\nx\r\n", b"STORED\r\n")
        # 5 bytes where 3 were announced: the 3 + 2 bytes read do not end in
        # \r\n; the rest of the line is then read as a command.
        c.request(b"set chunk 0 0 3\r\nabcde\r\n", b"CLIENT_ERROR bad data chunk\r\nERROR\r\n")
        c.request(b"get chunk\r\n", b"VALUE chunk 0 1\r\nx\r\nEND\r\n")
        c.request(b"set chunk 0 0 3 noreply\r\nabcde\r\n", b"ERROR\r\n")
        c.request(b"get chunk\r\n", b"VALUE chunk 0 1\r\nx\r\nEND\r\n")

    def test_value_larger_than_item_size_max(self):
        c = self.connect()
        size = 1024 * 1024 + 1  # the default -I is 1m
        c.request(b"set big 0 0 %d\r\n%s\r\n" % (size, b"v" * size),
                  b"SERVER_ERROR object too large for cache\r\n")
        c.request(b"get big\r\n", b"END\r\n")
        c.request(b"set small 0 0 2\r\nok\r\nget small\r\n", b"STORED\r\nVALUE small 0 2\r\nok\r\nEND\r\n")
        c.request(b"ms big %d T0\r\n%s\r\n" % (size, b"v" * size),
                  b"SERVER_ERROR object too large for cache\r\n")
        c.request(b"set big 0 0 %d noreply\r\n%s\r\n" % (size, b"v" * size), b"")
        self.assertGreaterEqual(int(c.stats()["store_too_large"]), 2)

    def test_ms_too_large_removes_the_old_value(self):
        c = self.connect()
        size = 1024 * 1024 + 1
        c.request(b"set mstl 0 0 2\r\nok\r\n", b"STORED\r\n")
        c.request(b"ms mstl %d T0\r\n%s\r\n" % (size, b"v" * size),
                  b"SERVER_ERROR object too large for cache\r\n")
        c.request(b"get mstl\r\n", b"END\r\n")

    def test_value_too_large_removes_the_old_value(self):
        # memcached unlinks the key when a new value for it cannot be stored,
        # so that no stale value survives a failed set.
        c = self.connect()
        size = 1024 * 1024 + 1
        c.request(b"set stale 0 0 3\r\nold\r\n", b"STORED\r\n")
        c.request(b"set stale 0 0 %d\r\n%s\r\n" % (size, b"v" * size),
                  b"SERVER_ERROR object too large for cache\r\n")
        c.request(b"get stale\r\n", b"END\r\n")

    def test_value_just_below_item_size_max(self):
        c = self.connect()
        value = random.Random(1).randbytes(1000 * 1000)
        c.request(b"set almost 0 0 %d\r\n%s\r\n" % (len(value), value), b"STORED\r\n")
        values = c.get_values(b"get almost")
        self.assertEqual(len(values), 1)
        self.assertTrue(values[0][2] == value)

    def test_line_too_long_closes_the_connection(self):
        # A line of 20 KB that is not a get: memcached closes the connection
        # (gpuhash-server may answer an error line first).
        c = self.connect()
        try:
            c.send(b"x" * 20000 + b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        received = c.expect_closed()
        self.assertRegex(received, rb"^((CLIENT_|SERVER_)?ERROR[^\r\n]*\r\n)?$")
        self.connect().sync()

    def test_binary_garbage(self):
        c = self.connect()
        rng = random.Random(20240601)
        garbage = bytes(rng.choice(b"\x00\x01\x7f\xfe\xff \t\r\nxyz") for _ in range(4096))
        garbage = b"!" + garbage  # not 0x80: that would be the binary protocol
        c.send(garbage + b"\r\nmn\r\n")
        replies = c.read_until(b"MN\r\n").split(b"\r\n")[:-2]
        self.assertTrue(replies)
        for reply in replies:
            self.assertRegex(reply, rb"^(ERROR|CLIENT_ERROR .*)$")
        c.sync()

    def test_client_disconnecting_mid_value(self):
        c = self.connect()
        c.request(b"set midvalue 0 0 3\r\nold\r\n", b"STORED\r\n")
        for tail in (b"set midvalue 0 0 100\r\n" + b"x" * 50, b"set midvalue 0 0 100", b"get midv"):
            quitter = Connection.to(self.server)
            quitter.send(tail)
            time.sleep(0.05)
            quitter.close()
        # and one that resets the connection
        rude = Connection.to(self.server)
        rude.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        rude.send(b"set midvalue 0 0 100\r\n" + b"y" * 10)
        time.sleep(0.05)
        rude.close()
        c.request(b"get midvalue\r\n", b"VALUE midvalue 0 3\r\nold\r\nEND\r\n")
        self.connect().request(b"get midvalue\r\n", b"VALUE midvalue 0 3\r\nold\r\nEND\r\n")

    @gpuhash_only("memcached speaks the binary protocol; gpuhash-server refuses it")
    def test_binary_protocol_is_refused(self):
        c = self.connect()
        # a binary "version" request: magic 0x80, opcode 0x0b, 24-byte header
        c.send(struct.pack(">BBHBBHIIQ", 0x80, 0x0B, 0, 0, 0, 0, 0, 0, 0))
        self.assertEqual(c.expect_closed(), b"CLIENT_ERROR binary protocol is not supported\r\n")
        self.connect().sync()


class ServerFlagsTest(unittest.TestCase):
    """Command-line flags seen from the protocol; each test starts its own server."""

    def test_unix_socket_with_its_mode(self):
        with tempfile.TemporaryDirectory() as folder:
            # memcached binds after it becomes the user of -u (nobody, as root)
            os.chmod(folder, 0o777)
            path = os.path.join(folder, "cache.sock")
            with ServerProcess(["-a", "0766"], unix_socket=path):
                self.assertEqual(os.stat(path).st_mode & 0o777, 0o766)
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(10)
                    sock.connect(path)
                    sock.sendall(b"set u 0 0 2\r\nok\r\nget u\r\n")
                    expected = b"STORED\r\nVALUE u 0 2\r\nok\r\nEND\r\n"
                    received = b""
                    while len(received) < len(expected):
                        data = sock.recv(4096)
                        if not data:
                            break
                        received += data
                    self.assertEqual(received, expected)

    def test_flags_shown_in_stats_settings(self):
        with ServerProcess(["-m", "8", "-c", "100", "-I", "2m", "-t", "2"]) as server:
            c = Connection.to(server)
            settings = c.stats(b"settings")
            self.assertEqual(settings["maxbytes"], b"%d" % (8 * 1024 * 1024))
            self.assertEqual(settings["maxconns"], b"100")
            self.assertEqual(settings["item_size_max"], b"%d" % (2 * 1024 * 1024))
            self.assertEqual(settings["num_threads"], b"2")
            self.assertEqual(int(c.stats()["limit_maxbytes"]), 8 * 1024 * 1024)
            # -I 2m: a value of 1.5 MB is stored
            value = b"0123456789" * 150000
            c.request(b"set big 0 0 %d\r\n%s\r\n" % (len(value), value), b"STORED\r\n")
            self.assertTrue(c.get_values(b"get big")[0][2] == value)
            c.close()

    def test_disable_cas(self):
        with ServerProcess(["-C"]) as server:
            c = Connection.to(server)
            self.assertEqual(c.stats(b"settings")["cas_enabled"], b"no")
            c.request(b"set nocas 0 0 1\r\nx\r\ngets nocas\r\n",
                      b"STORED\r\nVALUE nocas 0 1 0\r\nx\r\nEND\r\n")
            c.close()

    def test_shutdown_refused_without_A(self):
        with ServerProcess() as server:
            c = Connection.to(server)
            c.request(b"shutdown\r\n", b"ERROR: shutdown not enabled\r\n")
            c.request(b"shutdown graceful\r\n", b"ERROR: shutdown not enabled\r\n")
            self.assertTrue(server.alive())
            c.close()

    def stops_cleanly(self, args, stop, what):
        """Starts the server with `args`, stores a key, calls stop(server,
        connection) and requires exit status 0 within 5 s."""
        server = ServerProcess(args).start()
        try:
            c = Connection.to(server)
            c.request(b"set before 0 0 1\r\nx\r\n", b"STORED\r\n")
            stop(server, c)
            code = server.wait_exit(5)
            self.assertEqual(code, 0, f"exit status after {what}\n{server.output()}")
            c.close()
        finally:
            server.stop()

    def shutdown_with(self, command):
        def send(server, c):
            c.send(command + b"\r\n")
            self.assertEqual(c.expect_closed(), b"")
        self.stops_cleanly(["-A"], send, repr(command))

    def test_shutdown_with_A(self):
        self.shutdown_with(b"shutdown")

    def test_shutdown_graceful_with_A(self):
        self.shutdown_with(b"shutdown graceful")

    def test_too_many_connections(self):
        limit = 32
        with ServerProcess(["-c", str(limit)]) as server:
            accepted, refused = [], 0
            for _ in range(limit + 8):
                c = Connection.to(server)
                c.send(b"version\r\n")
                try:
                    line = c.read_line(timeout=5)
                except AssertionError as closed:
                    # closed without a word is a refusal too
                    self.assertIn("closed", str(closed))
                    line = None
                if line is not None and line.startswith(b"VERSION "):
                    accepted.append(c)
                    continue
                if line is not None:
                    self.assertEqual(line, b"ERROR Too many open connections\r\n")
                    c.expect_closed()
                refused += 1
                c.close()
            self.assertGreaterEqual(len(accepted), 1)
            self.assertLessEqual(len(accepted), limit)
            self.assertGreaterEqual(refused, 8)
            # the connections already open keep working
            for i, c in enumerate(accepted):
                c.request(b"set conn%d 0 0 1\r\nx\r\nget conn%d\r\n" % (i, i),
                          b"STORED\r\nVALUE conn%d 0 1\r\nx\r\nEND\r\n" % i)
            # and a place freed is taken again
            accepted.pop().close()
            deadline = time.monotonic() + 5
            while True:
                c = Connection.to(server)
                c.send(b"version\r\n")
                try:
                    if c.read_line(timeout=5).startswith(b"VERSION "):
                        c.close()
                        break
                except AssertionError:
                    pass
                c.close()
                self.assertLess(time.monotonic(), deadline, "no connection accepted after one closed")
                time.sleep(0.1)
            for c in accepted:
                c.close()
            c = Connection.to(server)
            self.assertGreaterEqual(int(c.stats()["rejected_connections"]), 8)
            c.close()

    def test_sigint_stops_it_cleanly(self):
        """SIGINT, like SIGTERM (which every other test stops the server
        with): exit status 0, within a few seconds, with clients connected."""
        self.stops_cleanly([], lambda server, c: server.process.send_signal(signal.SIGINT),
                           "SIGINT")

    def test_root_is_refused_without_u(self):
        """As memcached: root runs it only with -u (every other test, as
        root, passes -u nobody). Exit status EX_USAGE, 64."""
        if os.geteuid() != 0:
            self.skipTest("needs root to check (CI runs as root)")
        args = [server_binary(), "-p", str(free_port()), "-U", "0", "-l", HOST]
        args += os.environ.get("GPUHASH_SERVER_EXTRA_ARGS", "").split()
        result = subprocess.run(args, capture_output=True, timeout=15)
        self.assertEqual(result.returncode, 64, result.stderr)
        self.assertIn(b"can't run as root without the -u switch", result.stderr)


if __name__ == "__main__":
    unittest.main()
