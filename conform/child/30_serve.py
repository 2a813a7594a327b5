# Part 3: the protocol (conform/include/tpcheck/conform/protocol.hpp). Requests
# are JSON lines on one pipe; replies are frames on another. Standard input is
# /dev/null and standard output goes to tpcheck's diagnostics pipe, so the
# code under test cannot read or write either; the two pipes are moved to
# descriptors far from the low numbers such code might use by accident.
import array
import fcntl
import gc
import json
import signal

REPORT_INTERVAL = 0.02  # seconds between progress reports during a run
MAX_OUTCOME_BYTES = 1 << 20
TEXTS_PER_FRAME = 1 << 16
TEXTS_FRAME_CHARS = 1 << 23  # a TEXTS frame holds at most 32 MiB (4 bytes a character) and one more text
PROTOCOL_FDS_FROM = 200


def escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


class Replies:
    """Outcomes, written as frames: on a timer (so tpcheck sees progress while
    a long grid runs), after each case in careful mode, and at the end. An
    outcome is keyed in `table` by what the loop has at hand (an int or None
    itself, a rendering, or (exception class, message)) and gets an id; its
    text is made once, when first seen."""

    def __init__(self, fd):
        self.fd = fd
        self.table = {}       # value key -> id
        self.pending = []     # texts of new ids not sent yet: "V<repr>" or "E<Class> <message>"
        self.sent = 0         # ids whose text was sent
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
        if outcome.__class__ is tuple:  # an exception, or a value whose rendering raised
            cls, message = outcome
            text = "E%s %s" % ("tpcheck.ReprFailed" if cls is ReprFailed else cls.__name__, message)
        else:
            text = "V" + (outcome if outcome.__class__ is str else repr(outcome))
        self.pending.append(text)
        self.table[outcome] = k
        return k

    @staticmethod
    def bounded(text):
        """A tagged text, or a tpcheck.OutcomeTooLong error that says how long it was."""
        size = len(text.encode("utf-8", "backslashreplace"))
        if size <= MAX_OUTCOME_BYTES:
            return text
        return "Etpcheck.OutcomeTooLong the outcome has %d bytes; at most %d are compared" % (size, MAX_OUTCOME_BYTES)

    def frames(self, texts, first):
        """TEXTS frames for new texts, with ids from `first`; a text alone in a
        TEXT frame when it holds a NUL or is too long to go with others."""
        # The common case, checked at C speed: few enough texts, no NUL in any,
        # none longer than MAX_OUTCOME_BYTES (4 bytes a character at most).
        joined = "\0".join(texts) if len(texts) <= TEXTS_PER_FRAME else ""
        if joined and len(joined) <= TEXTS_FRAME_CHARS and joined.count("\0") == len(texts) - 1 and (
                len(joined) * 4 <= MAX_OUTCOME_BYTES or max(map(len, texts)) * 4 <= MAX_OUTCOME_BYTES):
            body = joined.encode("utf-8", "backslashreplace")
            return [b"TEXTS %d %d %d\n" % (first, len(texts), len(body)) + body]
        if len(texts) > 1:
            half = len(texts) // 2
            return self.frames(texts[:half], first) + self.frames(texts[half:], first + half)
        text = self.bounded(texts[0])
        if text[0] == "V":
            header, body = "TEXT %d V" % first, text[1:]
        else:
            cls, _, body = text[1:].partition(" ")
            header = "TEXT %d E %s" % (first, cls)
        body = body.encode("utf-8", "backslashreplace")
        return [("%s %d\n" % (header, len(body))).encode("utf-8", "backslashreplace") + body]

    def flush(self, *_signal_args):
        if self.busy:  # a timer tick during a flush
            return
        self.busy = True
        try:
            chunks = []
            if self.pending:
                texts = self.pending[:]
                del self.pending[:len(texts)]
                chunks += self.frames(texts, self.sent)
                self.sent += len(texts)
            n = len(self.ids)
            if n:
                ids = self.ids[:n]
                del self.ids[:n]
                if sys.byteorder == "big":
                    ids.byteswap()
                chunks.append(b"OUTCOMES %d\n" % n + ids.tobytes())
                self.emitted += n
            if chunks:
                self.write(b"".join(chunks))
        finally:
            self.busy = False


class Child:
    def __init__(self, replies):
        self.replies = replies
        self.targets = []

    def load(self, request):
        if request["mode"] == "adapter":
            module = import_adapter(request["files"][0])
            for i, spec in enumerate(request["bindings"]):
                function = getattr(module, spec["functions"][0], None)
                if callable(function):
                    code = getattr(function, "__code__", None)
                    target = Target(spec, spec["functions"][0], getattr(code, "co_filename", request["files"][0]),
                                    getattr(code, "co_firstlineno", 0))
                    target.function, target.call = function, call_expression(spec, function)
                    self.targets.append(target)
                    self.replies.line("BOUND %d %s %s" % (i, target.qualname, escape(target.where)))
                else:
                    self.targets.append(None)
                    self.replies.line("SKIPPED %d %s" % (i, escape("the adapter does not expose it")))
            return
        sources = [SourceFile(path) for path in request["files"]]
        for i, spec in enumerate(request["bindings"]):
            target, reason = bind(spec, sources)
            self.targets.append(target)
            if target is None:
                self.replies.line("SKIPPED %d %s" % (i, escape(reason)))
            else:
                self.replies.line("BOUND %d %s %s" % (i, target.qualname, escape(target.where)))

    def run(self, request):
        target = self.targets[request["binding"]]
        start = request["from"]
        careful = max(0, request["careful_until"] - start)
        runner = make_runner(target, request["grid"], start, careful > 0)
        replies = self.replies
        replies.write(b"OUTCOMES 0\n")  # the calls start: their budget starts now
        replies.emitted = 0
        previous = signal.signal(signal.SIGALRM, replies.flush)
        signal.setitimer(signal.ITIMER_REAL, REPORT_INTERVAL, REPORT_INTERVAL)
        # The outcome table holds many small objects; the collector would walk
        # it again and again. The code under test is short calls.
        gc.disable()
        try:
            left = runner(replies.sink, replies.define, replies.table, replies.flush, start, careful)
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
                    child.run(request)
                except Exception as e:  # noqa: BLE001 - the child's own failure, not the code under test's
                    replies.flush()
                    replies.line("FAILED " + escape("%s: %s" % (type(e).__name__, e)))


if __name__ == "__main__":
    main()
