"""Start-up as memcached 1.6.18 does it: the ports (-p -1, -p 0, the port
file written when MEMCACHED_PORT_FILENAME is set), -U, -B and -b. Run
against memcached too; the tests of what gpuhash-server refuses on purpose
skip there, saying why.
"""

import os
import re
import shutil
import socket
import tempfile
import unittest

from server_process import (HOST, Connection, ServerProcess, gpuhash_only, run_server,
                            settings_of)


def has_ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


class PortsTest(unittest.TestCase):
    """-p: a port, -1 (one the kernel picks) or 0 (no TCP); the port file."""

    def test_ephemeral_port_is_written_to_the_port_file(self):
        with ServerProcess(port=-1) as server:
            self.assertEqual(server.port_lines, [f"TCP INET: {server.port}"])
            c = Connection.to(server)
            c.request(b"set p 0 0 1\r\nx\r\nget p\r\n", b"STORED\r\nVALUE p 0 1\r\nx\r\nEND\r\n")
            self.assertEqual(c.stats(b"settings")["tcpport"], b"-1")  # as given
            c.close()

    def test_port_file_names_every_tcp_socket(self):
        if not has_ipv6_loopback():
            self.skipTest("no IPv6 loopback here")
        with ServerProcess(["-l", "::1"], port=-1) as server:  # and -l 127.0.0.1
            families = sorted(re.fullmatch(r"TCP (INET6?): (\d+)", line).group(1)
                              for line in server.port_lines)
            self.assertEqual(families, ["INET", "INET6"], server.port_lines)
            for line in server.port_lines:
                family, port = re.fullmatch(r"TCP (INET6?): (\d+)", line).groups()
                host = "::1" if family == "INET6" else HOST
                with socket.create_connection((host, int(port)), timeout=10) as sock:
                    sock.sendall(b"mn\r\n")
                    self.assertEqual(sock.recv(16), b"MN\r\n")

    def test_port_0_turns_tcp_off(self):
        folder = tempfile.mkdtemp(prefix="gpuhash-startup-")
        self.addCleanup(shutil.rmtree, folder, True)
        os.chmod(folder, 0o777)  # the -u user (nobody, as root) makes the socket
        path = os.path.join(folder, "cache.sock")
        with ServerProcess(["-p", "0"], unix_socket=path):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(10)
                sock.connect(path)
                c = Connection(sock)
                settings = c.stats(b"settings")
                self.assertEqual(settings["tcpport"], b"0")
                self.assertEqual(settings["domain_socket"], path.encode())
                listeners = [v for n, v in c.stats(b"conns").items() if n.endswith(":addr")
                             and v.startswith(b"tcp")]
                self.assertEqual(listeners, [], "no TCP socket is open")

    @gpuhash_only("memcached starts with -p 0 and no -s, listening nowhere")
    def test_port_0_without_a_unix_socket_is_refused(self):
        status, stderr = run_server(["-p", "0"])
        self.assertEqual(status, 64, stderr)
        self.assertIn("-p/--port 0: TCP is off", stderr)


class UdpTest(unittest.TestCase):
    """UDP is not served: -U 0 is taken, any other port refused at start-up."""

    def test_udp_0_is_accepted(self):
        with ServerProcess(udp_port=0) as server:
            self.assertEqual(Connection.to(server).stats(b"settings")["udpport"], b"0")

    @gpuhash_only("memcached serves UDP on -U's port (-1: one the kernel picks)")
    def test_udp_ports_are_refused(self):
        for port in ("11311", "-1"):
            status, stderr = run_server(["-U", port])
            self.assertEqual(status, 64, stderr)
            self.assertIn(f"-U/--udp-port {port}: UDP is not served", stderr)


class ProtocolAndBacklogTest(unittest.TestCase):
    """-B ascii|auto and -b, shown in `stats settings`; -B binary refused."""

    def test_binding_protocol_and_backlog_are_shown(self):
        default = settings_of([])
        self.assertEqual(default["binding_protocol"], b"auto-negotiate")
        self.assertEqual(default["tcp_backlog"], b"1024")
        given = settings_of(["-B", "ascii", "-b", "8675"])
        self.assertEqual(given["binding_protocol"], b"ascii")
        self.assertEqual(given["tcp_backlog"], b"8675")
        self.assertEqual(settings_of(["-B", "auto"])["binding_protocol"], b"auto-negotiate")

    @gpuhash_only("memcached serves its binary protocol")
    def test_binary_protocol_is_refused(self):
        status, stderr = run_server(["-B", "binary"])
        self.assertEqual(status, 64, stderr)
        self.assertIn("text protocol only", stderr)


if __name__ == "__main__":
    unittest.main()
