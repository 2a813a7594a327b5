# Part 2b: drivers, for bindings whose case is a whole configuration rather
# than one call. A driver makes every call of the configuration the profile
# describes (its loops, records, calls and rendering are Python expressions
# over the case's parameters, given as data by the profile) and answers with
# one text: a line per call, or the log of what the recording stand-ins were
# asked for. tpcheck judges that text (conform/src/capture.cpp reads it).
#
#   each:      for every item of `over` (tuples named by `coords`): the
#              instance's attributes, the `let` names, the calls, then
#              "c1 c2|=<render>" or "c1 c2|!Class|message"
#   transfers: SGLang's push: who sends to whom from the pairing method, then
#              one fresh manager per sender, its `steps` run for each of its
#              receivers in ascending order, every request to the stand-ins
#              logged ("pairs", "send", "B", "L", "X", "T", "R", "!" lines)


def ints_text(value):
    """An int, or a list or tuple of them (nested), canonically: 3, [0,1],
    (0,1,[2]); anything else as ?type:repr."""
    cls = value.__class__
    if cls is list or cls is tuple:
        inner = ",".join(ints_text(v) for v in value)
        return "[%s]" % inner if cls is list else "(%s)" % inner
    if getattr(value, "ndim", 0) and hasattr(value, "tolist"):  # a numpy array (not a numpy scalar)
        return ints_text(value.tolist())
    return value_text(value)


def fields_text(obj, *names):
    """(a,b,...) of the named attributes of `obj` (AttributeError if one is missing)."""
    return "(%s)" % ",".join(ints_text(getattr(obj, name)) for name in names)


def item_value(coords, text):
    return "%s|=%s" % (" ".join(map(str, coords)), text)


def item_raised(coords, e):
    return "%s|!%s" % (" ".join(map(str, coords)), exception_text(e))


DRIVER_NAMES = {"_ints": ints_text, "_fields": fields_text, "_record": record, "_item_value": item_value,
                "_item_raised": item_raised}


def call_of(spec_args, callable_):
    """A shaped call of `callable_` (named _f in the scope) with these arguments."""
    return call_expression({"positional": False, "args": spec_args, "instance_argument": "", "params": []},
                           callable_)


def each_driver(target, driver):
    """The source of `_drive`, and the names it needs besides the target's."""
    params = target.spec["params"]
    coords = driver["coords"]
    lines = ["def _drive(%s):" % ", ".join(params),
             "    _out = []",
             "    _add = _out.append",
             "    for (%s,) in (%s):" % (", ".join(coords), driver["over"]),
             "        try:"]
    body = []
    if target.item_setup:
        body.append(target.item_setup)
    for name, value in driver.get("let", []):
        body.append("%s = (%s)" % (name, value))
    callable_ = getattr(object.__new__(target.cls), target.method) if target.method else target.function
    for i, args in enumerate(driver["calls"]):
        body.append("_r%d = %s" % (i, call_of(args, callable_)))
    body.append("_v = (%s)" % driver["render"])
    lines += ["            " + b for b in body]
    lines += ["        except BaseException as _e:",
              "            _add(_item_raised((%s,), _e))" % ", ".join(coords),
              "        else:",
              "            _add(_item_value((%s,), _v))" % ", ".join(coords),
              "    return '\\n'.join(_out)"]
    return "\n".join(lines) + "\n"


class Step:
    """One method a transfer driver calls on the manager, shaped from its signature."""

    def __init__(self, cls, method, args):
        self.method = method
        self.code = compile(call_of(args, getattr(object.__new__(cls), method)), "<tpcheck step %s>" % method, "eval")


def expression(text, what):
    return compile(text, "<tpcheck %s>" % what, "eval")


class TransferDriver:
    """SGLang's push, recorded: the pairing method gives each decode rank's
    senders; one fresh manager per prefill rank, reused for its receivers in
    ascending order, runs the steps; the stand-ins log every request."""

    def __init__(self, target, driver, pairing):
        self.target, self.driver = target, driver
        self.params = target.spec["params"]
        self.layout = driver["memory"]
        self.steps = [Step(target.cls, m, args) for m, args in driver["steps"]]
        self.setup = compile(target.item_setup or "pass", "<tpcheck manager>", "exec")
        self.pairing = pairing
        self.pairing_setup = compile(pairing.item_setup or "pass", "<tpcheck pairing>", "exec")
        self.pairing_lets = [(name, expression(value, "pairing")) for name, value in driver["pairing"]["let"]]
        self.pairing_call = expression(call_of(driver["pairing"]["args"],
                                               getattr(object.__new__(pairing.cls), pairing.method)), "pairing call")
        self.targets = expression(driver["pairing"]["targets"], "pairing targets")
        self.namespace = target.namespace

    def __call__(self, *case):
        env = dict(zip(self.params, case))
        env.update(DRIVER_NAMES)
        env["__builtins__"] = builtins
        capture = Capture()
        log = capture.add
        env["_mem"] = SyntheticMemory(self.layout, env["P"], env["D"], env["H"], env["page_size"], env["probe"])
        env["_np"] = self.namespace.get("np")
        env["_executor"] = ImmediateExecutor()
        senders = {}
        for d in range(env["D"]):
            env["d"] = d
            try:
                env["_inst"] = object.__new__(self.pairing.cls)
                exec(self.pairing_setup, env)
                for name, code in self.pairing_lets:
                    env[name] = eval(code, env)
                env["_f"] = getattr(env["_inst"], self.pairing.method)
                env["_r"] = eval(self.pairing_call, env)
                targets = [operator.index(t) for t in eval(self.targets, env)]
            except BaseException as e:  # noqa: BLE001 - recorded: the decode rank pairs with nobody
                log("pairs %d !%s" % (d, exception_text(e)))
                continue
            log("pairs %d %s" % (d, ",".join(map(str, targets)) or "-"))
            for p in targets:
                senders.setdefault(p, []).append(d)
        for p in range(env["P"]):
            receivers = senders.get(p)
            if not receivers:
                continue
            env["p"] = p
            env["_engine"], env["_agent"] = RecordingEngine(capture), RecordingAgent(capture)
            manager = object.__new__(self.target.cls)
            env["_inst"] = manager
            try:
                exec(self.setup, env)
            except BaseException as e:  # noqa: BLE001 - every send of this manager fails the same way
                for d in receivers:
                    log("send %d %d" % (p, d))
                    log("! " + exception_text(e))
                continue
            for d in receivers:
                env["d"] = d
                log("send %d %d" % (p, d))
                try:
                    result = None
                    for step in self.steps:
                        env["_f"] = getattr(manager, step.method)
                        result = eval(step.code, env)
                except BaseException as e:  # noqa: BLE001 - what the method raised is the outcome
                    log("! " + exception_text(e))
                else:
                    log("R " + value_text(result) if result is not None else "R None")
        return capture.text()
