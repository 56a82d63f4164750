"""Starts and stops the server under test (gpuhash-server, or memcached to
validate the suite) for the black-box tests in this directory.

The binary comes from the environment variable GPUHASH_SERVER_BINARY; there is
no default, and a test run without it fails with a message saying so. Set
GPUHASH_SERVER_IS_MEMCACHED=1 when the binary is memcached: the tests of
behaviours where gpuhash-server intentionally differs from memcached (the
binary protocol refused with an error line, UDP not served) then skip.
GPUHASH_SERVER_EXTRA_ARGS adds flags to every server started (scripts/gpu-check
runs the suite with "--index=gpu").

    with ServerProcess(["-m", "2", "-M"]) as server:
        sock = server.connect()
        ...

The server is started on a free TCP port of 127.0.0.1 with UDP off
(`-p PORT -U 0 -l 127.0.0.1`, plus `-u nobody` when running as root, as
memcached refuses to run as root otherwise). With port=-1 it is started on
`-p -1`, a port the kernel picks, which it writes to the file named by
MEMCACHED_PORT_FILENAME, as memcached does (`port_lines` holds that file). Leaving the `with` block sends
SIGTERM and requires the process to exit with status 0 within a few seconds;
it is killed otherwise and the block raises AssertionError with the server's
stderr.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

BINARY_ENV = "GPUHASH_SERVER_BINARY"
IS_MEMCACHED_ENV = "GPUHASH_SERVER_IS_MEMCACHED"
HOST = "127.0.0.1"


class ServerError(AssertionError):
    """The server could not be started, or did not stop cleanly."""


def server_binary():
    """The binary under test, or ServerError with a clear message."""
    path = os.environ.get(BINARY_ENV, "")
    if not path:
        raise ServerError(
            f"{BINARY_ENV} is not set: point it at the server binary to test "
            f"(gpuhash-server, or /usr/bin/memcached with {IS_MEMCACHED_ENV}=1 "
            "to validate the suite itself)")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise ServerError(f"{BINARY_ENV}={path!r} is not an executable file")
    return path


def is_memcached():
    """Whether the binary under test is memcached itself (not gpuhash-server).

    The variable GPUHASH_SERVER_IS_MEMCACHED decides when it is set ("1" or
    "0"); otherwise a binary named `memcached` is taken for memcached."""
    flag = os.environ.get(IS_MEMCACHED_ENV, "")
    if flag in ("0", "1"):
        return flag == "1"
    return os.path.basename(server_binary()) == "memcached"


def gpuhash_only(reason):
    """Skips a test of a behaviour where gpuhash-server intentionally differs
    from memcached, when the binary under test is memcached."""
    def decorate(test):
        def wrapper(self, *args, **kwargs):
            if is_memcached():
                self.skipTest(f"gpuhash-server only: {reason}")
            return test(self, *args, **kwargs)
        wrapper.__name__ = test.__name__
        wrapper.__doc__ = test.__doc__
        return wrapper
    return decorate


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def run_server(args, timeout=15):
    """Runs the server with `args` (after a free port and the -u the tests
    use as root) expecting it to stop by itself; returns (status, stderr)."""
    command = [server_binary(), "-p", str(free_port()), "-U", "0", "-l", HOST]
    if os.geteuid() == 0:
        command += ["-u", "nobody"]
    command += list(args)
    try:
        result = subprocess.run(command, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{' '.join(command)} kept running: it should have refused to start")
    return result.returncode, result.stderr.decode("utf-8", "replace")


def settings_of(args):
    """`stats settings` ({name: value}) of a server started with `args`."""
    with ServerProcess(args) as server:
        c = Connection.to(server)
        settings = c.stats(b"settings")
        c.close()
        return settings


class ServerProcess:
    """The server under test, as a context manager (see the module's doc).

    extra_args: flags after the standard ones, e.g. ["-m", "2", "-M"].
    port: the TCP port (default: a free one, chosen again if the server
    fails to listen on it; -1: one the server has the kernel pick, read from
    its port file). udp_port: replaces `-U 0` when given.
    """

    def __init__(self, extra_args=(), port=None, udp_port=0, start_timeout=15.0,
                 stop_timeout=5.0, unix_socket=None, binary=None):
        """unix_socket: the server listens there (-s) instead of on TCP; it is
        ready when that socket accepts a connection. binary: a server binary
        other than the one under test (a test build of it)."""
        self.binary = binary
        self.extra_args = list(extra_args)
        self.unix_socket = unix_socket
        self.requested_port = port
        self.udp_port = udp_port
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.port = None
        self.port_lines = None
        self._port_folder = None
        self.process = None
        self.returncode = None
        self._stderr_file = None
        self._stdout_file = None
        self._final_output = None

    # -- starting -------------------------------------------------------
    def command_line(self, port):
        args = [self.binary or server_binary(), "-p", str(port), "-U", str(self.udp_port),
                "-l", HOST]
        if os.geteuid() == 0:
            args += ["-u", "nobody"]
        if self.unix_socket:
            args += ["-s", self.unix_socket]
        return args + os.environ.get("GPUHASH_SERVER_EXTRA_ARGS", "").split() + self.extra_args

    def start(self):
        attempts = 1 if self.requested_port else 3
        last_error = None
        for _ in range(attempts):
            port = self.requested_port or free_port()
            try:
                self._start_on(port)
                return self
            except ServerError as error:
                last_error = error
                self._discard()
                self._close_output()
        raise last_error

    def _start_on(self, port):
        self.port = port
        self.returncode = None
        self._final_output = None
        self._stderr_file = tempfile.TemporaryFile()
        self._stdout_file = tempfile.TemporaryFile()
        self.args = self.command_line(port)
        env = dict(os.environ)
        if port == -1:
            # written by the -u user (nobody, as root), as memcached writes it
            self._port_folder = tempfile.mkdtemp(prefix="gpuhash-port-")
            os.chmod(self._port_folder, 0o777)
            env["MEMCACHED_PORT_FILENAME"] = os.path.join(self._port_folder, "ports")
        self.process = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, env=env,
                                        stdout=self._stdout_file, stderr=self._stderr_file)
        deadline = time.monotonic() + self.start_timeout
        while True:
            code = self.process.poll()
            if code is not None:
                self.returncode = code
                raise ServerError(
                    f"server exited with status {code} while starting: "
                    f"{' '.join(self.args)}\n{self.output()}")
            try:
                if port == -1 and not self._read_port_file():
                    raise OSError("no port file yet")
                if self.unix_socket:
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                        probe.settimeout(1.0)
                        probe.connect(self.unix_socket)
                else:
                    with socket.create_connection((HOST, self.port), timeout=1.0):
                        pass
                return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self._kill()
                raise ServerError(
                    f"server did not accept connections on {HOST}:{port} within "
                    f"{self.start_timeout} s: {' '.join(self.args)}\n{self.output()}")
            time.sleep(0.02)

    def _read_port_file(self):
        """Reads the port file once it is there (memcached renames it into
        place whole); the port is its first TCP line's."""
        path = os.path.join(self._port_folder, "ports")
        if not os.path.exists(path):
            return False
        with open(path) as f:
            self.port_lines = f.read().splitlines()
        ports = [int(line.split(": ")[1]) for line in self.port_lines if line.startswith("TCP ")]
        if not ports:
            raise ServerError(f"port file without a TCP port: {self.port_lines!r}")
        self.port = ports[0]
        return True

    # -- talking to it --------------------------------------------------
    @property
    def address(self):
        return (HOST, self.port)

    def connect(self, timeout=10.0):
        """A new TCP connection to the server, Nagle off."""
        sock = socket.create_connection(self.address, timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def output(self):
        """The server's stderr (and stdout) so far, for failure messages."""
        if self._stderr_file is None and self._final_output is not None:
            return self._final_output
        parts = []
        for name, f in (("stderr", self._stderr_file), ("stdout", self._stdout_file)):
            if f is None:
                continue
            f.flush()
            f.seek(0)
            text = f.read().decode("utf-8", "replace")
            if len(text) > 8000:
                text = "...\n" + text[-8000:]
            if text:
                parts.append(f"--- server {name} ---\n{text}")
        return "\n".join(parts) if parts else "(the server printed nothing)"

    # -- stopping -------------------------------------------------------
    def wait_exit(self, timeout):
        """The exit status once the process has exited (None after timeout)."""
        try:
            self.returncode = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.returncode

    def stop(self):
        """SIGTERM; requires exit status 0 within stop_timeout (ServerError
        otherwise, after killing it)."""
        if self.process is None:
            return
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
            code = self.wait_exit(self.stop_timeout)
            if code is None:
                self._kill()
                raise ServerError(
                    f"server did not exit within {self.stop_timeout} s of SIGTERM "
                    f"(killed): {' '.join(self.args)}\n{self.output()}")
            if code != 0:
                raise ServerError(
                    f"server exited with status {code} after SIGTERM (expected 0): "
                    f"{' '.join(self.args)}\n{self.output()}")
        finally:
            self._discard()
            self._close_output()
            if self._port_folder:
                shutil.rmtree(self._port_folder, ignore_errors=True)
                self._port_folder = None

    def _close_output(self):
        """Keeps the output as text and closes the temporary files."""
        if self._stderr_file is not None:
            self._final_output = self.output()
            self._stderr_file.close()
            self._stdout_file.close()
            self._stderr_file = self._stdout_file = None

    def _kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.returncode = self.process.wait()

    def _discard(self):
        self._kill()
        self.process = None

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.stop()
        else:
            # The test failed already: report that failure, not the stop's,
            # with what the server printed.
            try:
                self.stop()
            except ServerError:
                pass
            output = self.output()
            if output != "(the server printed nothing)":
                sys.stderr.write(f"\n{' '.join(self.args)}:\n{output}\n")
        return False

    def __del__(self):
        try:
            self._kill()
        except Exception:
            pass


class Connection:
    """One client connection speaking raw bytes, with helpers that fail the
    test with what was received so far when a reply is not the one expected."""

    def __init__(self, sock, timeout=10.0):
        self.sock = sock
        self.timeout = timeout
        self.buffer = b""

    @classmethod
    def to(cls, server, timeout=10.0):
        return cls(server.connect(timeout), timeout)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        self.sock.sendall(data)

    def send_bytewise(self, data):
        """Sends `data` one byte per write (Nagle is off: one segment each)."""
        for i in range(len(data)):
            self.sock.sendall(data[i:i + 1])

    def _fill(self, deadline, what):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"timed out waiting for {what}; received so far: {self.buffer!r}")
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(1 << 20)
        except socket.timeout:
            raise AssertionError(
                f"timed out waiting for {what}; received so far: {self.buffer!r}") from None
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise AssertionError(
                f"connection closed by the server while waiting for {what}; "
                f"received before the close: {self.buffer!r}")
        self.buffer += chunk

    def read_exact(self, n, timeout=None, what=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while len(self.buffer) < n:
            self._fill(deadline, what or f"{n} bytes")
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def read_until(self, terminator, timeout=None):
        """Bytes up to and including the first `terminator`."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while terminator not in self.buffer:
            self._fill(deadline, repr(terminator))
        end = self.buffer.index(terminator) + len(terminator)
        data, self.buffer = self.buffer[:end], self.buffer[end:]
        return data

    def read_line(self, timeout=None):
        return self.read_until(b"\r\n", timeout)

    def expect(self, expected, timeout=None, msg=""):
        """Reads exactly len(expected) bytes and requires them to be `expected`."""
        got = self.read_exact(len(expected), timeout, what=repr(expected))
        if got != expected:
            # Show a little of what follows too: it often explains the mismatch.
            try:
                self.sock.settimeout(0.2)
                extra = self.sock.recv(4096)
            except OSError:
                extra = b""
            raise AssertionError(
                f"{msg}\nexpected: {expected!r}\nreceived: {got!r}"
                f"{' (then ' + repr(extra) + ')' if extra else ''}")
        return got

    def request(self, data, expected, msg=""):
        """Sends `data` followed by `mn`, and requires the reply to be exactly
        `expected` followed by `MN`: nothing more, nothing less."""
        self.send(data + b"mn\r\n")
        self.expect(expected + b"MN\r\n", msg=msg or f"request: {data!r}")

    def command(self, line):
        """Sends one line ("\r\n" added) and returns the reply's first line."""
        self.send(line + b"\r\n")
        return self.read_line()

    def sync(self):
        """Requires that nothing is pending from the server: sends `mn` and
        the next bytes must be `MN`."""
        self.send(b"mn\r\n")
        self.expect(b"MN\r\n", msg="the server sent something unexpected before MN")

    def get_values(self, line):
        """Sends a retrieval command (get/gets/gat/gats line, no "\r\n") and
        parses the reply: {key: (flags, value, cas or None)}, in order."""
        self.send(line + b"\r\n")
        return self.read_values()

    def read_values(self):
        values = []
        while True:
            header = self.read_line()
            if header == b"END\r\n":
                return values
            m = re.fullmatch(rb"VALUE (\S+) (\d+) (\d+)(?: (\d+))?\r\n", header)
            if not m:
                raise AssertionError(f"expected a VALUE line or END, got {header!r}")
            size = int(m.group(3))
            data = self.read_exact(size + 2)
            if data[-2:] != b"\r\n":
                raise AssertionError(f"value of {size} bytes not followed by \\r\\n: {data[-10:]!r}")
            values.append((m.group(1), int(m.group(2)), data[:-2],
                           int(m.group(4)) if m.group(4) else None))

    def stats(self, argument=b""):
        """`stats [argument]` as {name: value} (bytes), END required."""
        self.send(b"stats" + (b" " + argument if argument else b"") + b"\r\n")
        result = {}
        while True:
            line = self.read_line()
            if line == b"END\r\n":
                return result
            m = re.fullmatch(rb"STAT (\S+) ([^\r\n]*)\r\n", line)
            if not m:
                raise AssertionError(f"expected a STAT line or END, got {line!r}")
            result[m.group(1).decode()] = m.group(2)

    def expect_closed(self, timeout=5.0):
        """Requires the server to close the connection (after any bytes
        already buffered); returns whatever came before the close."""
        deadline = time.monotonic() + timeout
        received = self.buffer
        self.buffer = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"the server did not close the connection; received {received!r}")
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                return received
            if not chunk:
                return received
            received += chunk


class ServerTestCase(unittest.TestCase):
    """Tests sharing one server for the class (started in setUpClass with
    `server_args`). Connections made with self.connect() are closed after
    each test, and each test checks the server is still running."""

    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(cls.server_args).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self._connections = []

    def tearDown(self):
        for c in self._connections:
            c.close()
        if not self.server.alive():
            status = self.server.process.poll() if self.server.process else self.server.returncode
            self.fail(f"the server is no longer running (status {status}):\n"
                      f"{self.server.output()}")

    def connect(self, server=None):
        c = Connection.to(server or self.server)
        self._connections.append(c)
        return c

    def key(self, suffix=""):
        """A key of this test only."""
        return f"{self._testMethodName}:{suffix}".encode()
