"""ctypes declarations of include/faultline.h: the only thing this package knows of the library."""
import ctypes
import ctypes.util
import os

ABI_MAJOR = 0  # FL_VERSION_MAJOR this binding was written against

c_char_p, c_void_p, c_size_t = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t
u32, i32, i64, u64 = ctypes.c_uint32, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64


class Capture(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("value", c_void_p), ("value_len", c_size_t)]


class Event(ctypes.Structure):
    _fields_ = [
        ("struct_size", u32), ("flags", u32), ("entry", u32), ("pattern_index", u32),
        ("entry_id", c_char_p), ("pattern", c_char_p),
        ("line_number", u64), ("byte_offset", u64),
        ("line", c_void_p), ("line_len", c_size_t),
        ("captures", ctypes.POINTER(Capture)), ("capture_count", u32),
        ("rank", i64), ("local_rank", i64), ("pid", i64), ("device", i64),
        ("host", c_void_p), ("host_len", c_size_t), ("time", c_void_p), ("time_len", c_size_t),
    ]


class ScannerStats(ctypes.Structure):
    _fields_ = [("struct_size", u32), ("reserved", u32), ("bytes", u64), ("lines", u64),
                ("truncated_lines", u64), ("events", u64), ("candidate_lines", u64),
                ("over_budget_lines", u64)]


class Diagnosis(ctypes.Structure):
    _fields_ = [("struct_size", u32), ("verdict", i32), ("entry", u32), ("retry", u32), ("rank", i64),
                ("confidence", ctypes.c_double), ("action", ctypes.c_char * 32), ("host", ctypes.c_char * 128),
                ("fingerprint", ctypes.c_char * 32), ("template_text", ctypes.c_char * 256),
                ("source", ctypes.c_char * 256), ("line", u64)]


EVENT_FN = ctypes.CFUNCTYPE(ctypes.c_int, c_void_p, ctypes.POINTER(Event))


def _candidates():
    env = os.environ.get("FAULTLINE_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libfaultline.so.0", "libfaultline.so", "libfaultline.dylib"):
        yield os.path.join(here, name)
    found = ctypes.util.find_library("faultline")
    if found:
        yield found
    yield "libfaultline.so.0"


def load():
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        _declare(lib)
        major = lib.fl_version_number() // 10000
        if major != ABI_MAJOR:
            raise ImportError(f"{path} is libfaultline {lib.fl_version_string().decode()}, "
                              f"this binding needs ABI major {ABI_MAJOR}")
        return lib
    raise ImportError("libfaultline not found (set FAULTLINE_LIBRARY to the .so): " + "; ".join(errors))


def _declare(lib):
    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, list(argtypes)

    P = ctypes.POINTER
    fn("fl_version_number", u32)
    fn("fl_version_string", c_char_p)
    fn("fl_status_str", c_char_p, i32)
    fn("fl_is_log_file_name", ctypes.c_int, c_char_p)
    fn("fl_pack_open_file", i32, c_char_p, c_void_p, P(c_void_p), c_char_p, c_size_t)
    fn("fl_pack_open_memory", i32, c_void_p, c_size_t, c_void_p, P(c_void_p), c_char_p, c_size_t)
    fn("fl_pack_open_default", i32, c_void_p, P(c_void_p), c_char_p, c_size_t)
    fn("fl_pack_free", None, c_void_p)
    fn("fl_pack_entry_count", u32, c_void_p)
    for name in ("fl_pack_entry_id", "fl_pack_entry_title", "fl_pack_entry_type", "fl_pack_entry_category"):
        fn(name, c_char_p, c_void_p, u32)
    fn("fl_pack_version", c_char_p, c_void_p)
    fn("fl_pack_find_entry", u32, c_void_p, c_char_p)
    fn("fl_pack_entry_page", c_size_t, c_void_p, u32, ctypes.c_int, c_char_p, c_size_t)
    fn("fl_pack_stack", i32, P(c_void_p), c_size_t, c_void_p, P(c_void_p), c_char_p, c_size_t)
    fn("fl_pack_layer_count", u32, c_void_p)
    fn("fl_pack_library_name", c_char_p, c_void_p)
    fn("fl_pack_entry_origin", c_char_p, c_void_p, u32)
    fn("fl_scanner_create", i32, c_void_p, c_void_p, P(c_void_p))
    fn("fl_scanner_feed", i32, c_void_p, c_char_p, c_size_t, EVENT_FN, c_void_p)
    fn("fl_scanner_skip", i32, c_void_p, c_char_p, c_size_t, EVENT_FN, c_void_p)
    fn("fl_scanner_finish", i32, c_void_p, EVENT_FN, c_void_p)
    fn("fl_scanner_get_stats", i32, c_void_p, P(ScannerStats))
    fn("fl_scanner_errmsg", c_char_p, c_void_p)
    fn("fl_scanner_free", None, c_void_p)
    fn("fl_diagnoser_create", i32, c_void_p, c_void_p, P(c_void_p))
    fn("fl_diagnoser_begin_source", i32, c_void_p, c_char_p)
    fn("fl_diagnoser_feed", i32, c_void_p, c_char_p, c_size_t)
    fn("fl_diagnoser_skip", i32, c_void_p, c_char_p, c_size_t)
    fn("fl_diagnoser_end_source", i32, c_void_p)
    fn("fl_diagnoser_partial", i32, c_void_p, P(c_void_p), P(c_size_t))
    fn("fl_diagnoser_merge_partial", i32, c_void_p, c_char_p, c_size_t)
    fn("fl_diagnoser_set_incomplete", i32, c_void_p, c_char_p)
    fn("fl_diagnoser_report", i32, c_void_p, ctypes.c_int, P(c_void_p), P(c_size_t))
    fn("fl_diagnoser_result", i32, c_void_p, P(Diagnosis))
    fn("fl_diagnoser_errmsg", c_char_p, c_void_p)
    fn("fl_diagnoser_free", None, c_void_p)
