"""SAS links carrying ``(value, wakeup)`` characters.

* :class:`SerialLink` — a real RS-232 port at 19.2 kbaud, 8 data bits, 1 stop bit, the wakeup bit emulated
  with the parity bit as Linux SAS hosts do: the address byte goes out with parity MARK (9th bit 1), the rest
  with parity SPACE (``termios`` ``CMSPAR``; the output is drained before each switch). On receive the port
  stays at SPACE parity with ``INPCK | PARMRK`` (and not ``IGNPAR``/``ISTRIP``): a character whose 9th bit is
  set fails the parity check and the kernel hands it over as ``FF 00 b``, a literal ``FF`` as ``FF FF``. That
  is the in-band form of :mod:`slotsys.sas.domain.framing`, so one decoder serves every link. (A line break is
  reported as ``FF 00 00`` too, read as a wakeup 0x00: the global broadcast address.)
* :class:`FdLink` — the same link over a pseudo-terminal (``os.openpty``, raw mode) or any file descriptor;
  a pty carries no 9th bit, so the in-band form is written explicitly. ``pace_baud`` sleeps for the wire time
  of each frame (11 bits a character) to emulate a 19.2 kbaud line.
* :class:`SocketLink` — the same in-band form over TCP (:func:`tcp_connect`, :func:`tcp_listen`).
"""

from __future__ import annotations

import os
import select
import socket
import time
import tty
from typing import Protocol

from slotsys.sas.domain.framing import InbandDecoder, encode_inband

__all__ = ["Link", "FdLink", "SocketLink", "SerialLink", "open_pty_pair", "tcp_connect", "tcp_listen",
           "wire_seconds", "BITS_PER_CHAR"]

BITS_PER_CHAR = 11  # start + 8 data + wakeup + stop


def wire_seconds(nbytes: int, baud: int = 19_200) -> float:
    """The time ``nbytes`` SAS characters take on a ``baud`` line (11 bits each)."""
    return nbytes * BITS_PER_CHAR / baud


class Link(Protocol):
    def send(self, frame: bytes, *, wakeup: bool) -> None:
        """Transmit ``frame``; ``wakeup`` sets the 9th bit on its first byte (the host's address byte)."""

    def receive(self, timeout: float) -> list[tuple[int, bool]]:
        """Characters that arrived within ``timeout`` seconds (as soon as any arrive), possibly none."""

    def close(self) -> None: ...


class FdLink:
    """A link over a file descriptor (a pty end): in-band wakeup encoding, optional 19.2 kbaud pacing."""

    def __init__(self, fd: int, *, pace_baud: int | None = None, owns: bool = True) -> None:
        self.fd = fd
        self.pace_baud = pace_baud
        self.owns = owns
        self._dec = InbandDecoder()
        self.bytes_out = self.bytes_in = 0
        self.send_errors = 0  # frames the other end was not there to take

    @classmethod
    def open_path(cls, path: str, **kw) -> "FdLink":
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd)
        return cls(fd, **kw)

    def send(self, frame: bytes, *, wakeup: bool) -> None:
        data = encode_inband(frame, wakeup_first=wakeup)
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except OSError:  # the other end closed (EIO on a pty): as a wire with no one on it, the poll times out
                self.send_errors += 1
                return
            view = view[n:]
        self.bytes_out += len(frame)
        if self.pace_baud:
            time.sleep(wire_seconds(len(frame), self.pace_baud))

    def receive(self, timeout: float) -> list[tuple[int, bool]]:
        r, _, _ = select.select([self.fd], [], [], max(timeout, 0.0))
        if not r:
            return []
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # the other end closed (EIO on a pty)
            time.sleep(max(timeout, 0.0))
            return []
        chars = self._dec.feed(data)
        self.bytes_in += len(chars)
        return chars

    def close(self) -> None:
        if self.owns:
            try:
                os.close(self.fd)
            except OSError:
                pass


def open_pty_pair() -> tuple[int, int, str]:
    """A pseudo-terminal pair in raw mode: (master fd, slave fd, slave path). The EGM side takes one end and
    the host the other (the host may open the path instead)."""
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


class SocketLink:
    """A link over a connected TCP socket (in-band wakeup encoding)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._dec = InbandDecoder()
        self.bytes_out = self.bytes_in = 0
        self.send_errors = 0  # frames the other end was not there to take

    def send(self, frame: bytes, *, wakeup: bool) -> None:
        try:
            self.sock.sendall(encode_inband(frame, wakeup_first=wakeup))
        except OSError:  # the other end closed (EPIPE, ECONNRESET): as a wire with no one on it, the poll times out
            self.send_errors += 1
            return
        self.bytes_out += len(frame)

    def receive(self, timeout: float) -> list[tuple[int, bool]]:
        r, _, _ = select.select([self.sock], [], [], max(timeout, 0.0))
        if not r:
            return []
        try:
            data = self.sock.recv(4096)
        except OSError:  # reset by the other end
            data = b""
        if not data:
            time.sleep(max(timeout, 0.0))
            return []
        chars = self._dec.feed(data)
        self.bytes_in += len(chars)
        return chars

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def tcp_connect(host: str, port: int, timeout: float = 5.0) -> SocketLink:
    return SocketLink(socket.create_connection((host, port), timeout=timeout))


def tcp_listen(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: any free port; read it with ``getsockname()``)."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, port))
    srv.listen(4)
    return srv


class SerialLink:
    """A real serial port (pyserial) with the wakeup bit as mark/space parity; see the module docstring."""

    def __init__(self, port: str, baud: int = 19_200) -> None:
        import serial  # pyserial

        self._serial = serial.Serial(port, baudrate=baud, bytesize=serial.EIGHTBITS, parity=serial.PARITY_SPACE,
                                     stopbits=serial.STOPBITS_ONE, timeout=0)
        self.fd = self._serial.fileno()
        self._dec = InbandDecoder()
        self._set(mark=False, receive_marking=True)
        self.bytes_out = self.bytes_in = 0

    def _set(self, *, mark: bool, receive_marking: bool = False) -> None:
        import termios

        iflag, oflag, cflag, lflag, ispeed, ospeed, cc = termios.tcgetattr(self.fd)
        cmspar = getattr(termios, "CMSPAR", 0o10000000000)
        cflag |= termios.PARENB | cmspar
        cflag = cflag | termios.PARODD if mark else cflag & ~termios.PARODD
        if receive_marking:
            iflag |= termios.INPCK | termios.PARMRK
            iflag &= ~(termios.IGNPAR | termios.ISTRIP)
        termios.tcsetattr(self.fd, termios.TCSADRAIN, [iflag, oflag, cflag, lflag, ispeed, ospeed, cc])

    def send(self, frame: bytes, *, wakeup: bool) -> None:
        import termios

        if wakeup:
            self._set(mark=True)
            self._serial.write(frame[:1])
            termios.tcdrain(self.fd)
            self._set(mark=False)
            rest = frame[1:]
        else:
            rest = frame
        if rest:
            self._serial.write(rest)
        termios.tcdrain(self.fd)
        self.bytes_out += len(frame)

    def receive(self, timeout: float) -> list[tuple[int, bool]]:
        r, _, _ = select.select([self.fd], [], [], max(timeout, 0.0))
        if not r:
            return []
        data = os.read(self.fd, 4096)
        chars = self._dec.feed(data)
        self.bytes_in += len(chars)
        return chars

    def close(self) -> None:
        self._serial.close()
