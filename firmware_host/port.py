"""Serial ports behind one small interface, with pyserial's errors translated.

pyserial is imported inside the constructor, so this module imports on any
laptop; a missing or unplugged device becomes a TowerIOError with its path.
"""

from __future__ import annotations

from typing import Any, Protocol


class TowerIOError(OSError):
    """The tower's port could not be opened, read or written (unplugged, busy, absent)."""


class BytePort(Protocol):
    def read(self, size: int) -> bytes: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class SerialPort:
    """A real serial device (USB tower, or a pty that stands in for one), or a
    pyserial URL such as ``socket://127.0.0.1:7000`` for a tower on the network."""

    def __init__(self, path: str, baudrate: int = 115_200, timeout: float = 0.05) -> None:
        import serial  # pyserial, imported only when a port is really opened

        self._serial_error: type[Exception] = serial.SerialException
        self.path = path
        try:
            if "://" in path:  # socket://host:port and the other pyserial URL handlers
                self._port: Any = serial.serial_for_url(path, baudrate=baudrate, timeout=timeout)
            else:
                self._port = serial.Serial(path, baudrate=baudrate, timeout=timeout)
        except (serial.SerialException, OSError, ValueError) as err:
            raise TowerIOError(f"cannot open {path}: {err}") from None

    def read(self, size: int = 4096) -> bytes:
        try:
            return bytes(self._port.read(size))
        except (self._serial_error, OSError) as err:
            raise TowerIOError(f"{self.path}: read failed ({err})") from None

    def write(self, data: bytes) -> None:
        try:
            self._port.write(data)
        except (self._serial_error, OSError) as err:
            raise TowerIOError(f"{self.path}: write failed ({err})") from None

    def close(self) -> None:
        self._port.close()
