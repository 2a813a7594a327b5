# Part 3: the protocol (conform/include/tpcheck/conform/protocol.hpp). Requests
# are JSON lines on one pipe; replies are frames on another. Standard input is
# /dev/null and standard output goes to tpcheck's diagnostics pipe, so the
# code under test cannot read or write either; the two pipes are moved to
# descriptors far from the low numbers such code might use by accident.
import array
import fcntl
import gc
import json
import marshal
import signal

REPORT_INTERVAL = 0.02  # seconds between progress reports during a run
MAX_OUTCOME_BYTES = 1 << 20
TEXTS_PER_FRAME = 1 << 12
TEXTS_MAX_BYTES = 1 << 25
PROTOCOL_FDS_FROM = 200


def escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def too_long(text):
    """A tpcheck.OutcomeTooLong exception in place of a text longer than tpcheck compares."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_OUTCOME_BYTES:
        return None
    return "tpcheck.OutcomeTooLong", "the outcome has %d bytes; at most %d are compared" % (size, MAX_OUTCOME_BYTES)


class ClassNames(dict):
    """Exception class -> the name tpcheck gets (looked up at C speed once known)."""

    def __missing__(self, cls):
        if cls is ReprFailed:
            name = "tpcheck.ReprFailed"
        else:  # a word of at most 200 characters, as tpcheck reads it
            name = "".join(c if c > " " and c != "\x7f" else "_" for c in cls.__name__[:200]) or "_"
        self[cls] = name
        return name


CLASS_NAMES = ClassNames()


def wire(outcome):
    """An outcome key as marshal writes it for tpcheck: an int, None, a str
    (a value's repr), or (exception class name, message)."""
    if outcome.__class__ is tuple:
        cls, text = outcome
        if len(text) * 4 > MAX_OUTCOME_BYTES:
            return too_long(text) or (CLASS_NAMES[cls], text)
        return (CLASS_NAMES[cls], text)
    if outcome.__class__ is str and len(outcome) * 4 > MAX_OUTCOME_BYTES:
        return too_long(outcome) or outcome
    return outcome


class Replies:
    """Outcomes, written as frames: on a timer (so tpcheck sees progress while
    a long grid runs), after each case in careful mode, and at the end. An
    outcome is keyed in `table` by what the loop has at hand (an int or None
    itself, a rendering) and gets an id; the keys of new ids go to tpcheck as
    marshal writes them (C speed: no text is made here). Exceptions go inline
    (`errors`), in case order."""

    def __init__(self, fd):
        self.fd = fd
        self.table = {}       # outcome key -> id
        self.pending = []     # outcomes of new ids not sent yet, as wire() has them
        self.sent = 0         # ids whose outcome was sent
        self.errors = []      # inline exceptions not sent yet: class, message, class, message...
        self.put = self.errors.append
        self.ids = array.array("I")  # ids of answered cases not sent yet
        self.sink = self.ids.append
        self.emitted = 0
        self.busy = False

    def write(self, data):
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]

    def line(self, text):
        self.write((text + "\n").encode("utf-8", "backslashreplace"))

    def define(self, outcome):
        k = len(self.table)
        self.table[outcome] = k
        self.pending.append(wire(outcome))
        return k

    def texts_frames(self, outcomes, first):
        """TEXTS frames for the outcomes of new ids, from id `first`: at most
        TEXTS_PER_FRAME outcomes and TEXTS_MAX_BYTES bytes each (an outcome is
        at most MAX_OUTCOME_BYTES)."""
        frames = []
        for at in range(0, len(outcomes), TEXTS_PER_FRAME):
            batch = outcomes[at:at + TEXTS_PER_FRAME]
            body = marshal.dumps(batch, 2)  # version 2: no reference table to build
            if len(body) > TEXTS_MAX_BYTES and len(batch) > 1:
                half = len(batch) // 2
                frames += self.texts_frames(batch[:half], first + at)
                frames += self.texts_frames(batch[half:], first + at + half)
                continue
            frames.append(b"TEXTS %d %d %d\n" % (first + at, len(batch), len(body)) + body)
        return frames

    def errors_frames(self, errors):
        """ERRORS frames for [class name, message, ...]: their byte lengths as
        an array, then the strings back to back (one join and one encoding
        when all are ASCII), at most TEXTS_PER_FRAME exceptions and
        TEXTS_MAX_BYTES bytes each."""
        frames = []
        for at in range(0, len(errors), 2 * TEXTS_PER_FRAME):
            batch = errors[at:at + 2 * TEXTS_PER_FRAME]
            sizes = array.array("I", map(len, batch))  # characters: a UTF-8 byte count is at most 4 times more
            if max(sizes[1::2]) * 4 > MAX_OUTCOME_BYTES:
                for i in range(1, len(batch), 2):
                    if sizes[i] * 4 > MAX_OUTCOME_BYTES:
                        batch[i - 1:i + 1] = too_long(batch[i]) or batch[i - 1:i + 1]
                sizes = array.array("I", map(len, batch))
            if sum(sizes) * 4 > TEXTS_MAX_BYTES and len(batch) > 2:
                half = len(batch) // 4 * 2
                frames += self.errors_frames(batch[:half]) + self.errors_frames(batch[half:])
                continue
            text = "".join(batch)
            data = text.encode("utf-8", "surrogatepass")
            if len(data) != len(text):  # not all ASCII: lengths in bytes
                pieces = [s.encode("utf-8", "surrogatepass") for s in batch]
                sizes = array.array("I", map(len, pieces))
                data = b"".join(pieces)
            if sys.byteorder == "big":
                sizes.byteswap()
            frames.append(b"ERRORS %d %d\n" % (len(batch) // 2, 4 * len(sizes) + len(data)))
            frames += [sizes.tobytes(), data]
        return frames

    def flush(self, *_signal_args):
        if self.busy:  # a timer tick during a flush
            return
        self.busy = True
        try:
            chunks = []
            if self.pending:
                outcomes = self.pending[:]
                del self.pending[:len(outcomes)]
                chunks += self.texts_frames(outcomes, self.sent)
                self.sent += len(outcomes)
            paired = len(self.errors) & ~1  # a tick may come between a class and its message
            if paired:
                errors = self.errors[:paired]
                del self.errors[:paired]
                errors[0::2] = map(CLASS_NAMES.__getitem__, errors[0::2])
                chunks += self.errors_frames(errors)
            n = len(self.ids)
            if n:
                ids = self.ids[:n]
                del self.ids[:n]
                if sys.byteorder == "big":
                    ids.byteswap()
                chunks.append(b"OUTCOMES %d\n" % n + ids.tobytes())
                self.emitted += n
            for chunk in chunks:  # not joined: a megabyte of messages is copied once less
                self.write(chunk)
        finally:
            self.busy = False


def adapter_target(module, spec, path):
    """The adapter's function for `spec`, or None."""
    function = getattr(module, spec["functions"][0], None)
    if not callable(function):
        return None
    code = getattr(function, "__code__", None)
    target = Target(spec, spec["functions"][0], getattr(code, "co_filename", path), getattr(code, "co_firstlineno", 0))
    target.function, target.call = function, call_expression(spec, function)
    return target


class Child:
    def __init__(self, replies):
        self.replies = replies
        self.targets = []
        self.request = None
        self.sources = []
        self.mutants = {}       # binding -> its mutants (part 1c)
        self.mutant = None      # (binding, mutant) bound in mutant_target
        self.mutant_target = None

    def load(self, request):
        self.request = request
        if request["mode"] == "adapter":
            module = import_adapter(request["files"][0])
            for i, spec in enumerate(request["bindings"]):
                target = adapter_target(module, spec, request["files"][0])
                self.targets.append(target)
                if target is not None:
                    self.replies.line("BOUND %d %s %s" % (i, target.qualname, escape(target.where)))
                else:
                    self.replies.line("SKIPPED %d %s" % (i, escape("the adapter does not expose it")))
            return
        self.sources = load_sources(request["files"])
        for i, spec in enumerate(request["bindings"]):
            target, reason = bind(spec, self.sources)
            self.targets.append(target)
            if target is None:
                self.replies.line("SKIPPED %d %s" % (i, escape(reason)))
            else:
                self.replies.line("BOUND %d %s %s" % (i, target.qualname, escape(target.where)))

    def mutants_of(self, i):
        if i not in self.mutants:
            target = self.targets[i]
            if self.request["mode"] == "adapter":
                path = self.request["files"][0]
                nodes = [(path, node) for node in adapter_nodes(target, path)]
            else:
                nodes = [(s.path, node) for s, node in mutable_nodes(target, self.sources)]
            self.mutants[i] = mutants_of(nodes)
        return self.mutants[i]

    def target_of(self, i, mutant):
        """Binding i's target, or that of its mutant (the files loaded again with it applied)."""
        global ACTIVE_MUTANT
        if mutant is None or mutant < 0:
            return self.targets[i]
        if self.mutant != (i, mutant):
            self.mutant, self.mutant_target = None, None
            spec = self.request["bindings"][i]
            ACTIVE_MUTANT = self.mutants_of(i)[mutant][0]
            try:
                if self.request["mode"] == "adapter":
                    sys.modules.pop("tpcheck_conform_adapter", None)
                    target = adapter_target(import_adapter(self.request["files"][0]), spec, self.request["files"][0])
                    why = "the mutant does not define it"
                else:
                    target, why = bind(spec, load_sources(self.request["files"]))
            except LoadError as e:
                target, why = None, str(e)
            finally:
                ACTIVE_MUTANT = None
            if target is None:
                raise LoadError("mutant %d (%s) cannot be bound: %s" % (mutant, mutant_text(self.mutants_of(i)[mutant]),
                                                                         why))
            self.mutant, self.mutant_target = (i, mutant), target
        return self.mutant_target

    def info(self, text):
        data = text.encode("utf-8", "backslashreplace")
        self.replies.write(b"INFO %d\n" % len(data) + data)

    def answer(self, request):
        """A mutants or describe request, answered with an INFO frame (or FAILED)."""
        i = request["binding"]
        if self.targets[i] is None:
            raise LoadError("binding %d is not bound" % i)
        if request["op"] == "mutants":
            self.info("\n".join(escape(mutant_text(m)).replace("\t", " ") for m in self.mutants_of(i)))
            return
        adapter = self.request["files"][0] if self.request["mode"] == "adapter" else None
        self.info(written_test(self.targets[i], self.sources, adapter))

    def run(self, request):
        target = self.target_of(request["binding"], request.get("mutant"))
        start = request["from"]
        careful = max(0, request["careful_until"] - start)
        runner = make_runner(target, request["grid"], start, careful > 0)
        replies = self.replies
        # A run that failed may have left an exception without its case.
        replies.errors.clear()
        del replies.ids[:]
        replies.write(b"OUTCOMES 0\n")  # the calls start: their budget starts now
        replies.emitted = 0
        previous = signal.signal(signal.SIGALRM, replies.flush)
        signal.setitimer(signal.ITIMER_REAL, REPORT_INTERVAL, REPORT_INTERVAL)
        # The outcome table holds many small objects; the collector would walk
        # it again and again. The code under test is short calls.
        gc.disable()
        try:
            left = runner(replies.sink, replies.put, replies.define, replies.table, replies.flush, start, careful)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            gc.enable()
        replies.flush()
        replies.line("DONE %d" % (start - left + replies.emitted))


def protocol_fd(fd):
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, PROTOCOL_FDS_FROM)
    os.close(fd)
    return moved


def main():
    argv = sys.argv[1:]
    if len(argv) != 3 or argv[0] != "--fds":
        sys.stderr.write("usage: tpcheck_conform_child --fds REQUESTS REPLIES\n")
        sys.exit(2)
    requests, replies_fd = protocol_fd(int(argv[1])), protocol_fd(int(argv[2]))
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    replies = Replies(replies_fd)
    child = Child(replies)
    with os.fdopen(requests, "rb") as incoming:
        for line in incoming:
            request = json.loads(line)
            if request["op"] == "load":
                try:
                    child.load(request)
                except LoadError as e:
                    replies.line("LOADERROR " + escape(str(e)))
                    sys.exit(3)
                replies.line("READY")
            else:
                try:
                    if request["op"] == "run":
                        child.run(request)
                    else:
                        child.answer(request)
                except Exception as e:  # noqa: BLE001 - the child's own failure, not the code under test's
                    replies.flush()
                    replies.line("FAILED " + escape("%s: %s" % (type(e).__name__, e)))


if __name__ == "__main__":
    main()
