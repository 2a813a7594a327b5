# Part 1b: what code under test is given instead of real memory and real
# transfer engines. Records built with only the fields a profile lists (a
# field nobody listed raises AttributeError, so a version that reads a new one
# is reported, not given a default); a synthetic memory layout (addresses that
# belong to no process); and stand-ins for a transfer engine, a NIXL agent and
# an executor that record what they are asked for, run work at once, and never
# read or write any memory. The recording is a log of text lines
# (conform/src/capture.cpp reads it back).
import concurrent.futures
import operator

RECORD_CLASSES = {}


def record(class_name, **fields):
    """An object of a class named `class_name` with exactly these attributes."""
    cls = RECORD_CLASSES.get(class_name)
    if cls is None:
        cls = RECORD_CLASSES[class_name] = type(class_name, (types.SimpleNamespace,), {})
    return cls(**fields)


SAFE_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-:")


def word(text):
    """`text` as one word of a log line: characters other than letters,
    digits and _.+-: become _."""
    return "".join(c if c in SAFE_CHARACTERS else "_" for c in text[:200]) or "_"


def value_text(value):
    """An integer in decimal; anything else as ?type:repr (a float address, None...)."""
    if value.__class__ is int:
        return str(value)
    if not isinstance(value, (bool, float, complex)):
        try:
            return str(operator.index(value))
        except TypeError:
            pass
    return "?%s:%s" % (word(type(value).__name__), word(repr(value)))


def values_text(values):
    """A sequence of values (a list, a tuple, a numpy array), comma-separated; - when empty."""
    items = values.tolist() if hasattr(values, "tolist") else list(values)
    return ",".join(value_text(v) for v in items) or "-"


def rows_text(rows):
    """The rows of an N x 3 descriptor array (address, length, device), ; between rows."""
    items = rows.tolist() if hasattr(rows, "tolist") else [list(r) for r in rows]
    return ";".join(values_text(r) for r in items) or "-"


def escape_line(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def exception_text(e):
    cls, message = outcome_of_exception(e)
    return "%s|%s" % (word(cls.__name__), escape_line(message))


class Capture:
    """The log of one configuration, and the handles its stand-ins give out."""

    def __init__(self):
        self.lines = []
        self.add = self.lines.append
        self.handles = itertools.count(1)

    def text(self):
        return "\n".join(self.lines)


class RecordingEngine:
    """A Mooncake transfer engine: records each batch of (source, destination,
    length) and reports success (0)."""

    def __init__(self, capture):
        self._capture = capture

    def batch_transfer_sync(self, session_id, src_addrs, dst_addrs, lengths):
        self._capture.add("B %s %s %s" % (values_text(src_addrs), values_text(dst_addrs), values_text(lengths)))
        return 0

    def transfer_sync(self, session_id, src_addr, dst_addr, length):
        return self.batch_transfer_sync(session_id, [src_addr], [dst_addr], [length])


class RecordingAgent:
    """A NIXL agent: records each prepared descriptor list (rows of address,
    length, device id) and each prepared transfer (the indices it selects),
    each list of descriptors and each transfer of whole lists, and gives out
    handles."""

    def __init__(self, capture):
        self._capture = capture

    def prep_xfer_dlist(self, agent_name, descs, mem_type="VRAM", *args, **kwargs):
        handle = next(self._capture.handles)
        self._capture.add("L %d =%s %s %s" % (handle, word(str(agent_name)) if agent_name else "",
                                              word(str(mem_type)), rows_text(descs)))
        return handle

    def make_prepped_xfer(self, operation, local_xfer_side_handle, local_indices, remote_xfer_side_handle,
                          remote_indices, notif_msg=b"", *args, **kwargs):
        handle = next(self._capture.handles)
        self._capture.add("X %d %s %s %s %s %s" % (
            handle, word(str(operation)), value_text(local_xfer_side_handle), values_text(local_indices),
            value_text(remote_xfer_side_handle), values_text(remote_indices)))
        return handle

    def get_xfer_descs(self, descs, mem_type="VRAM", *args, **kwargs):
        """Rows to move (not a list registered for selection): moved whole by initialize_xfer."""
        handle = next(self._capture.handles)
        self._capture.add("G %d %s %s" % (handle, word(str(mem_type)), rows_text(descs)))
        return handle

    def initialize_xfer(self, operation, local_descs, remote_descs, remote_agent="", notif_msg=b"", *args, **kwargs):
        handle = next(self._capture.handles)
        self._capture.add("I %d %s %s %s" % (handle, word(str(operation)), value_text(local_descs),
                                             value_text(remote_descs)))
        return handle

    def transfer(self, handle, *args, **kwargs):
        self._capture.add("T %s" % value_text(handle))
        return "PROC"


class ImmediateExecutor:
    """An executor that runs each job when it is submitted and returns its
    finished future: jobs run one after the other, in order."""

    def submit(self, fn, *args, **kwargs):
        future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as e:  # noqa: BLE001 - the future holds what the job raised
            future.set_exception(e)
        return future

    def shutdown(self, *args, **kwargs):
        return None


class SyntheticMemory:
    """The registered memory of one configuration (conform/src/memory_layout.hpp
    describes the same layout from the same description): per side and rank,
    2L regions (K of layers 0..L-1, then V), each of `slots` pages of
    page_size tokens of n(T) heads of B bytes; far-apart base addresses; one
    request's pages. A probe may move the bases and the pages."""

    def __init__(self, layout, P, D, H, page_size, probe):
        self.layout, self.sizes, self.H, self.page_size = layout, {"P": P, "D": D}, H, page_size
        self.probe = layout["probes"].get(str(probe), {})
        self.regions = 2 * layout["layers"]

    def heads_per_rank(self, side):
        return max(1, self.H // self.sizes[side])

    def item_len(self, side):
        return self.heads_per_rank(side) * self.layout["bytes_per_head"] * self.page_size

    def shift(self, side):
        past = self.probe.get("pages_past_bytes", 0)
        return past // self.item_len(side) + 1 if past else 0

    def slots(self, side):
        return self.layout["slots"][side] + self.shift(side)

    def ptrs(self, side, rank):
        """The rank's region base addresses, K then V, as SGLang's flat list."""
        base = self.probe.get("base_add", 0) + self.layout["base"][side] + rank * self.layout["rank_stride"]
        return [base + i * self.layout["region_stride"] for i in range(self.regions)]

    def data_len(self, side):
        return self.slots(side) * self.item_len(side)

    def pages(self, side):
        return [self.shift(side) + page for page in self.layout["pages"][side]]

    def page_array(self, side, np):
        """The request's pages as int32, as upstream receives them (numpy's, when
        the code's file has numpy; else a list)."""
        pages = self.pages(side)
        return np.array(pages, dtype=np.int32) if np is not None and hasattr(np, "int32") else pages


# The synthetic memories a driver's calls may be given (as `_mem`), by kind:
# a function of the memory's description and the case's parameters (a
# dict): SPEC §14B.1's KV memory here; the engines whose functions move
# recurrent state add theirs, on SyntheticStateMemory.
MEMORIES = {}
MEMORIES["kv"] = lambda description, case: SyntheticMemory(
    description["layout"], case["P"], case["D"], case["H"], case["page_size"], case["probe"])


class SyntheticStateMemory:
    """The registered state memory of one sizing (conform/src/state_memory.cpp
    describes the same from the same description): per side and rank, a
    region per state entry (SGLang's pool: every layer's conv, then every
    layer's temporal state; vLLM: a page per layer), `slots` slots each, far
    apart base addresses, the request's one slot. `sides` tells what a side
    of T ranks of each configuration holds ("CONFIG,T": C_loc, item bytes,
    widths...)."""

    def __init__(self, layout, sides, P, D, model, pages=False):
        self.layout, self.sizes, self.model = layout, {"P": P, "D": D}, model
        self.entries = ([(layer, "page") for layer in layout["layers"]] if pages else
                        [(layer, tensor) for tensor in ("conv", "temporal") for layer in layout["layers"]])
        self._sides = {s: sides["%d,%d" % (model, self.sizes[s])] for s in ("P", "D")}

    def side(self, side):
        return self._sides[side]

    def ptrs(self, side, rank):
        """The rank's entry base addresses, in entry order."""
        base = self.layout["base"][side] + rank * self.layout["rank_stride"]
        return [base + i * self.layout["region_stride"] for i in range(len(self.entries))]

    def item_lens(self, side):
        """One slot's bytes, per entry: a page's stride, or the conv or temporal item."""
        s = self._sides[side]
        key = {"page": "page_bytes", "conv": "conv_bytes", "temporal": "ssm_bytes"}
        return [s[key[tensor]] for _, tensor in self.entries]

    def data_lens(self, side):
        return [self.layout["slots"][side] * n for n in self.item_lens(side)]

    def slots(self, side):
        return self.layout["slots"][side]

    def slot_list(self, side):
        """The request's slot, as a one-element list."""
        return [self.layout["slot"][side]]

    def layer_ids(self):
        return [layer for layer, _ in self.entries]
