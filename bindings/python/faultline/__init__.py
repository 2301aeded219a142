"""faultline: why did this ML training run fail? Python binding of libfaultline (ctypes, no build step).

    import faultline
    report = faultline.diagnose("job.log")          # a path, a list of paths, text or bytes
    print(report.verdict, report.root.id, report.root.rank, report.action.name)

The library is found through FAULTLINE_LIBRARY, next to this package, or on the system.
"""
from __future__ import annotations

import ctypes
import json
import os
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Union

from . import _lib
from .report import Report

__all__ = ["diagnose", "Pack", "Scanner", "Diagnoser", "Event", "Report", "FaultlineError", "InvalidArgument",
           "OutOfMemory", "IOError_", "NotAPack", "PackVersionError", "PackCorrupt", "ScannerInUse", "library_version"]

_L = _lib.load()


class FaultlineError(Exception):
    """A failure reported by libfaultline (an fl_status code)."""

    def __init__(self, status: int, detail: str = ""):
        self.status = status
        text = _L.fl_status_str(status).decode()
        super().__init__(f"{text}: {detail}" if detail else text)


class InvalidArgument(FaultlineError): pass
class OutOfMemory(FaultlineError, MemoryError): pass
class IOError_(FaultlineError, OSError): pass
class NotAPack(FaultlineError): pass
class PackVersionError(FaultlineError): pass
class PackCorrupt(FaultlineError): pass
class ScannerInUse(FaultlineError): pass

_ERRORS = {-1: InvalidArgument, -2: OutOfMemory, -3: IOError_, -4: NotAPack, -5: PackVersionError, -6: PackCorrupt,
           -7: ScannerInUse}


def _check(status: int, detail: str = "") -> None:
    if status not in (0, -8):  # FL_OK, FL_E_STOPPED (a callback asked to stop)
        raise _ERRORS.get(status, FaultlineError)(status, detail)


def library_version() -> str:
    return _L.fl_version_string().decode()


class _Handle:
    """A library object: closed by close(), a with block, or garbage collection."""
    _free = None  # name of the fl_*_free function
    _h = ctypes.c_void_p()

    def close(self) -> None:
        if self._h:
            getattr(_L, self._free)(self._h)
            self._h = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Pack(_Handle):
    """An immutable, verified knowledge pack; may be shared by threads."""
    _free = "fl_pack_free"

    def __init__(self, handle: int, keepalive=None):
        self._h = ctypes.c_void_p(handle)
        self._keep = keepalive  # memory a zero-copy pack borrows

    @classmethod
    def default(cls) -> "Pack":
        out, err = ctypes.c_void_p(), ctypes.create_string_buffer(512)
        _check(_L.fl_pack_open_default(None, ctypes.byref(out), err, len(err)), err.value.decode())
        return cls(out.value)

    @classmethod
    def open(cls, path: Union[str, os.PathLike]) -> "Pack":
        out, err = ctypes.c_void_p(), ctypes.create_string_buffer(512)
        _check(_L.fl_pack_open_file(os.fsencode(path), None, ctypes.byref(out), err, len(err)), err.value.decode())
        return cls(out.value)

    @classmethod
    def from_bytes(cls, data: bytes) -> "Pack":
        buf = (ctypes.c_uint64 * ((len(data) + 7) // 8 + 1))()  # 8-byte aligned, kept alive by the Pack
        ctypes.memmove(buf, data, len(data))
        out, err = ctypes.c_void_p(), ctypes.create_string_buffer(512)
        _check(_L.fl_pack_open_memory(buf, len(data), None, ctypes.byref(out), err, len(err)), err.value.decode())
        return cls(out.value, keepalive=buf)

    @property
    def version(self) -> str:
        return _L.fl_pack_version(self._h).decode()

    def __len__(self) -> int:
        return _L.fl_pack_entry_count(self._h)

    def entries(self) -> List[Dict[str, str]]:
        """Every entry: id, title, type, category."""
        return [{"id": _L.fl_pack_entry_id(self._h, i).decode(), "title": _L.fl_pack_entry_title(self._h, i).decode(),
                 "type": _L.fl_pack_entry_type(self._h, i).decode(),
                 "category": _L.fl_pack_entry_category(self._h, i).decode()} for i in range(len(self))]

    def explain(self, entry_id: str, markdown: bool = False) -> str:
        """The entry's encyclopedia page."""
        index = _L.fl_pack_find_entry(self._h, entry_id.encode())
        if index == 0xFFFFFFFF:
            raise KeyError(entry_id)
        n = _L.fl_pack_entry_page(self._h, index, 1 if markdown else 0, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        _L.fl_pack_entry_page(self._h, index, 1 if markdown else 0, buf, n + 1)
        return buf.raw[:n].decode("utf-8", "replace")



@dataclass
class Event:
    """One match: which entry, where, what it captured, and the line's frame."""
    entry_id: str
    pattern: str
    line_number: int
    byte_offset: int
    line: str
    captures: Dict[str, str]
    rank: Optional[int]
    local_rank: Optional[int]
    pid: Optional[int]
    device: Optional[int]
    host: Optional[str]
    time: Optional[str]


def _text(ptr, n) -> Optional[str]:
    return ctypes.string_at(ptr, n).decode("utf-8", "replace") if ptr else None


def _num(v: int) -> Optional[int]:
    return None if v < 0 else v


class Scanner(_Handle):
    """Streaming matcher over one log: feed(bytes) returns the events of the completed lines."""
    _free = "fl_scanner_free"

    def __init__(self, pack: Optional[Pack] = None):
        self._pack = pack or Pack.default()
        out = ctypes.c_void_p()
        _check(_L.fl_scanner_create(self._pack._h, None, ctypes.byref(out)))
        self._h = out
        self._events: List[Event] = []
        self._fn = _lib.EVENT_FN(self._on_event)

    def _on_event(self, _ctx, ev_ptr):
        ev = ev_ptr.contents
        caps = {ev.captures[i].name.decode(): _text(ev.captures[i].value, ev.captures[i].value_len)
                for i in range(ev.capture_count)}
        self._events.append(Event(
            entry_id=ev.entry_id.decode(), pattern=ev.pattern.decode(), line_number=ev.line_number,
            byte_offset=ev.byte_offset, line=_text(ev.line, ev.line_len) or "", captures=caps, rank=_num(ev.rank),
            local_rank=_num(ev.local_rank), pid=_num(ev.pid), device=_num(ev.device),
            host=_text(ev.host, ev.host_len), time=_text(ev.time, ev.time_len)))
        return 0

    def feed(self, data: Union[bytes, bytearray, memoryview, str]) -> List[Event]:
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        self._events = []
        _check(_L.fl_scanner_feed(self._h, data, len(data), self._fn, None), _L.fl_scanner_errmsg(self._h).decode())
        return self._events

    def finish(self) -> List[Event]:
        """Ends the stream (matches a last line without a newline); the scanner can start a new one."""
        self._events = []
        _check(_L.fl_scanner_finish(self._h, self._fn, None))
        return self._events

    def stats(self) -> Dict[str, int]:
        s = _lib.ScannerStats(struct_size=ctypes.sizeof(_lib.ScannerStats))
        _check(_L.fl_scanner_get_stats(self._h, ctypes.byref(s)))
        return {"bytes": s.bytes, "lines": s.lines, "truncated_lines": s.truncated_lines, "events": s.events,
                "candidate_lines": s.candidate_lines}



class Diagnoser(_Handle):
    """Evidence of one job, from any number of sources; report() diagnoses it."""
    _free = "fl_diagnoser_free"

    def __init__(self, pack: Optional[Pack] = None):
        self._pack = pack or Pack.default()
        out = ctypes.c_void_p()
        _check(_L.fl_diagnoser_create(self._pack._h, None, ctypes.byref(out)))
        self._h = out

    def _err(self) -> str:
        return _L.fl_diagnoser_errmsg(self._h).decode()

    def begin_source(self, name: str) -> None:
        _check(_L.fl_diagnoser_begin_source(self._h, os.fsencode(name)), self._err())

    def feed(self, data: Union[bytes, bytearray, memoryview, str]) -> None:
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        _check(_L.fl_diagnoser_feed(self._h, data, len(data)), self._err())

    def end_source(self) -> None:
        _check(_L.fl_diagnoser_end_source(self._h), self._err())

    def add_file(self, path: Union[str, os.PathLike], chunk: int = 1 << 20) -> None:
        self.begin_source(os.fspath(path))
        with open(path, "rb") as f:
            while True:
                block = f.read(chunk)
                if not block:
                    break
                self.feed(block)
        self.end_source()

    def partial(self) -> bytes:
        """The evidence so far, serialized: merge it elsewhere with merge_partial()."""
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        _check(_L.fl_diagnoser_partial(self._h, ctypes.byref(p), ctypes.byref(n)), self._err())
        return ctypes.string_at(p, n.value)

    def merge_partial(self, data: bytes) -> None:
        _check(_L.fl_diagnoser_merge_partial(self._h, data, len(data)), self._err())

    def set_incomplete(self, why: str) -> None:
        """Says that the inputs were not read whole, and why: every report then carries it."""
        _check(_L.fl_diagnoser_set_incomplete(self._h, why.encode()), self._err())

    def _render(self, fmt: int) -> str:
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        _check(_L.fl_diagnoser_report(self._h, fmt, ctypes.byref(p), ctypes.byref(n)), self._err())
        return ctypes.string_at(p, n.value).decode("utf-8")

    def report(self) -> Report:
        return Report.from_dict(json.loads(self._render(0)))

    def text(self, color: bool = False) -> str:
        return self._render(2 if color else 1)

    def summary(self) -> str:
        return self._render(3)



Source = Union[str, bytes, bytearray, os.PathLike]


def _log_files(path: str) -> List[str]:
    if not os.path.isdir(path):
        return [path]
    out = []
    for root, _dirs, files in os.walk(path):
        out += [os.path.join(root, f) for f in files if f.endswith((".log", ".txt", ".out", ".err"))]
    return sorted(out)


def diagnose(source: Union[Source, Sequence[Source]], pack: Optional[Pack] = None) -> Report:
    """Diagnoses a log: a path (file or directory), a list of paths, log text (str) or log bytes."""
    with Diagnoser(pack) as d:
        items = source if isinstance(source, (list, tuple)) else [source]
        for item in items:
            if isinstance(item, (bytes, bytearray, memoryview)):
                d.begin_source("-")
                d.feed(item)
                d.end_source()
            elif isinstance(item, os.PathLike) or (isinstance(item, str) and "\n" not in item and os.path.exists(item)):
                for f in _log_files(os.fspath(item)):
                    d.add_file(f)
            elif isinstance(item, str):
                d.begin_source("-")
                d.feed(item)
                d.end_source()
            else:
                raise TypeError(f"cannot diagnose a {type(item).__name__}")
        return d.report()
