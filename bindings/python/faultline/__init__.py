"""faultline: why did this ML training run fail? Python binding of libfaultline (ctypes, no build step).

    import faultline
    report = faultline.diagnose("job.log")          # a file or directory, or several
    report = faultline.diagnose(text=log_text)      # or data=log_bytes
    print(report.verdict, report.root.id, report.root.rank, report.action.name)

The library is found through FAULTLINE_LIBRARY, next to this package, or on the system.
"""
from __future__ import annotations

import ctypes
import errno
import gzip
import json
import os
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Union

from . import _lib
from .report import Report

__all__ = ["diagnose", "is_log_file_name", "Pack", "Scanner", "Diagnoser", "Event", "Report", "FaultlineError",
           "InvalidArgument", "OutOfMemory", "FaultlineIOError", "NotAPack", "PackVersionError", "PackCorrupt",
           "ScannerInUse", "library_version", "__version__"]

_L = _lib.load()
__version__ = _L.fl_version_string().decode()


class FaultlineError(Exception):
    """A failure reported by libfaultline (an fl_status code)."""

    def __init__(self, status: int, detail: str = ""):
        self.status = status
        text = _L.fl_status_str(status).decode()
        super().__init__(f"{text}: {detail}" if detail else text)


class InvalidArgument(FaultlineError, ValueError):
    """An argument the library refuses (a NULL, a closed handle, an option out of range)."""


class OutOfMemory(FaultlineError, MemoryError):
    """The library's allocator failed."""


class FaultlineIOError(FaultlineError, OSError):
    """A pack file could not be read."""


IOError_ = FaultlineIOError  # the earlier name, kept for existing callers


class NotAPack(FaultlineError):
    """The bytes are not a faultline pack."""


class PackVersionError(FaultlineError):
    """The pack's format is of another major version than this library reads."""


class PackCorrupt(FaultlineError):
    """The pack's length, hash, structure or an index is wrong."""


class ScannerInUse(FaultlineError):
    """The scanner is already in a call (another thread, or a callback feeding it)."""


_ERRORS = {-1: InvalidArgument, -2: OutOfMemory, -3: FaultlineIOError, -4: NotAPack, -5: PackVersionError,
           -6: PackCorrupt, -7: ScannerInUse}


def _check(status: int, detail: str = "") -> None:
    if status not in (0, -8):  # FL_OK, FL_E_STOPPED (a callback asked to stop)
        raise _ERRORS.get(status, FaultlineError)(status, detail)


def library_version() -> str:
    """The version of the libfaultline in use ("0.2.0")."""
    return _L.fl_version_string().decode()


class _Handle:
    """A library object: closed by close(), a with block, or garbage collection.

    A Scanner or Diagnoser keeps its Pack alive (the library counts references):
    closing the Pack while they are in use is safe."""
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

    @classmethod
    def stack(cls, packs: Sequence["Pack"]) -> "Pack":
        """Packs as one, bottom first: a site's pack over ours (`Pack.stack([Pack.default(), Pack.open(site)])`).
        Upper entries replace lower ones of the same id; the stack keeps its own references to the packs."""
        handles = (ctypes.c_void_p * len(packs))(*[p._h.value for p in packs])
        out, err = ctypes.c_void_p(), ctypes.create_string_buffer(512)
        _check(_L.fl_pack_stack(handles, len(packs), None, ctypes.byref(out), err, len(err)), err.value.decode())
        return cls(out.value)

    @property
    def version(self) -> str:
        return _L.fl_pack_version(self._h).decode()

    @property
    def library(self) -> str:
        """The signature library the pack was built from ("faultline" for ours; of a stack, its top pack's)."""
        return _L.fl_pack_library_name(self._h).decode()

    @property
    def layers(self) -> int:
        """How many packs this is a stack of (1 for a single pack)."""
        return _L.fl_pack_layer_count(self._h)

    def __len__(self) -> int:
        return _L.fl_pack_entry_count(self._h)

    def entries(self) -> List[Dict[str, str]]:
        """Every entry: id, title, type, category, and pack (the library it comes from)."""
        return [{"id": _L.fl_pack_entry_id(self._h, i).decode(), "title": _L.fl_pack_entry_title(self._h, i).decode(),
                 "type": _L.fl_pack_entry_type(self._h, i).decode(),
                 "category": _L.fl_pack_entry_category(self._h, i).decode(),
                 "pack": _L.fl_pack_entry_origin(self._h, i).decode()} for i in range(len(self))]

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
        self._pack = pack if pack is not None else Pack.default()
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
        """Feeds a chunk of any size; returns the events of the lines it completed."""
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        self._events = []
        _check(_L.fl_scanner_feed(self._h, data, len(data), self._fn, None), _L.fl_scanner_errmsg(self._h).decode())
        return self._events

    def skip(self, data: Union[bytes, bytearray, memoryview, str]) -> List[Event]:
        """Passes over a chunk without matching it (a caller that fell behind): later lines keep their
        numbers. Returns the events of the line it cut, matched with what was fed of it."""
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        self._events = []
        _check(_L.fl_scanner_skip(self._h, data, len(data), self._fn, None), _L.fl_scanner_errmsg(self._h).decode())
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
                "candidate_lines": s.candidate_lines, "over_budget_lines": s.over_budget_lines}



class Diagnoser(_Handle):
    """Evidence of one job, from any number of sources; report() diagnoses it."""
    _free = "fl_diagnoser_free"

    def __init__(self, pack: Optional[Pack] = None):
        self._pack = pack if pack is not None else Pack.default()
        out = ctypes.c_void_p()
        _check(_L.fl_diagnoser_create(self._pack._h, None, ctypes.byref(out)))
        self._h = out

    def _err(self) -> str:
        return _L.fl_diagnoser_errmsg(self._h).decode()

    def begin_source(self, name: str) -> None:
        """Starts a log (a file name: rank and host hints are read from it); sources may repeat."""
        _check(_L.fl_diagnoser_begin_source(self._h, os.fsencode(name)), self._err())

    def feed(self, data: Union[bytes, bytearray, memoryview, str]) -> None:
        """Feeds the current source a chunk of any size."""
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        _check(_L.fl_diagnoser_feed(self._h, data, len(data)), self._err())

    def skip(self, data: Union[bytes, bytearray, memoryview, str]) -> None:
        """Passes over a chunk of the current source without diagnosing it; later lines keep their
        numbers. Say why with set_incomplete()."""
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        _check(_L.fl_diagnoser_skip(self._h, data, len(data)), self._err())

    def end_source(self) -> None:
        """Ends the current source (its last line may lack a newline)."""
        _check(_L.fl_diagnoser_end_source(self._h), self._err())

    def add_file(self, path: Union[str, os.PathLike], chunk: int = 1 << 20) -> None:
        """Reads one log file as a source (gzip and zstd decompressed); FileNotFoundError if it is missing."""
        _add_log(self, os.fspath(path), chunk)

    def partial(self) -> bytes:
        """The evidence so far, serialized: merge it elsewhere with merge_partial()."""
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        _check(_L.fl_diagnoser_partial(self._h, ctypes.byref(p), ctypes.byref(n)), self._err())
        return ctypes.string_at(p, n.value)

    def merge_partial(self, data: bytes) -> None:
        """Adds the evidence of a partial (another node's); a hostile partial is refused whole."""
        _check(_L.fl_diagnoser_merge_partial(self._h, data, len(data)), self._err())

    def set_incomplete(self, why: str) -> None:
        """Says that the inputs were not read whole, and why: every report then carries it."""
        _check(_L.fl_diagnoser_set_incomplete(self._h, why.encode()), self._err())

    def _render(self, fmt: int) -> str:
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        _check(_L.fl_diagnoser_report(self._h, fmt, ctypes.byref(p), ctypes.byref(n)), self._err())
        return ctypes.string_at(p, n.value).decode("utf-8")

    def report(self) -> Report:
        """The diagnosis of everything fed so far, as the JSON report (libcore/report/REPORT.md)."""
        return Report.from_dict(json.loads(self._render(0)))

    def text(self, color: bool = False) -> str:
        """The human report (ANSI colors only when asked)."""
        return self._render(2 if color else 1)

    def summary(self) -> str:
        """One line of at most 1 KiB (Kubernetes termination message, Slurm AdminComment)."""
        return self._render(3)



Path = Union[str, os.PathLike]


def is_log_file_name(name: str) -> bool:
    """Whether a directory member with this file name is a log (the library's rule, the same as the CLI's)."""
    return bool(_L.fl_is_log_file_name(os.fsencode(name)))


def _log_files(path: str) -> List[str]:
    """The file itself, or the logs of a directory (recursively, sorted) as the faultline command picks them."""
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if not os.path.isdir(path):
        return [path]
    out = []
    for root, _dirs, files in os.walk(path):
        out += [os.path.join(root, f) for f in files if is_log_file_name(f)]
    if not out:
        raise FileNotFoundError(errno.ENOENT, "directory holds no log files (*.log, *.txt, *.out, *.err, *.stdout, "
                                "*.stderr, also .gz or .zst)", path)
    return sorted(out)


def _open_log(path: str):
    """A binary stream of the log, decompressed by its magic bytes (gzip; zstd with the zstandard module)."""
    with open(path, "rb") as probe:
        magic = probe.read(4)
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rb")
    f = open(path, "rb")
    if magic == b"\x28\xb5\x2f\xfd":
        try:
            import zstandard  # Debian: python3-zstandard
        except ImportError:
            f.close()
            raise RuntimeError(f"{path}: zstd input needs the zstandard module (apt-get install python3-zstandard)")
        return zstandard.ZstdDecompressor().stream_reader(f, closefd=True)
    return f


def _add_log(d: "Diagnoser", path: str, chunk: int = 1 << 20) -> None:
    d.begin_source(path)
    try:
        with _open_log(path) as f:
            while True:
                block = f.read(chunk)
                if not block:
                    break
                d.feed(block)
    except (EOFError, OSError) as e:
        if isinstance(e, FileNotFoundError):
            raise
        # A truncated or corrupt compressed log: what was read is diagnosed, and the report says so.
        d.set_incomplete(f"{path}: {e}")
    d.end_source()


def diagnose(path: Union[Path, Sequence[Path], None] = None, *, text: Optional[str] = None,
             data: Optional[Union[bytes, bytearray, memoryview]] = None, pack: Optional[Pack] = None) -> Report:
    """Diagnoses a job's logs: `path` (a file, a directory of logs, or a list of them; gzip and zstd are
    read), or the log's `text`, or its bytes as `data`. Exactly one of them.

    Raises FileNotFoundError for a missing path or a directory that holds no logs."""
    given = [x is not None for x in (path, text, data)]
    if sum(given) != 1:
        raise TypeError("diagnose() takes exactly one of path, text= or data=")
    if path is not None and isinstance(path, (bytes, bytearray, memoryview)):
        raise TypeError("diagnose(path) takes paths; pass log bytes as data=")
    with Diagnoser(pack) as d:
        if text is not None:
            d.begin_source("-")
            d.feed(text)
            d.end_source()
        elif data is not None:
            d.begin_source("-")
            d.feed(data)
            d.end_source()
        else:
            paths = list(path) if isinstance(path, (list, tuple)) else [path]
            files = [f for p in paths for f in _log_files(os.fspath(p))]
            for f in files:
                _add_log(d, f)
        return d.report()
