# SGLang's part of the child (after part 2b): the driver of kind transfers,
# SGLang's push recorded (profile_sglang.cpp's transfer_driver), and the
# memory of SGLang's state pool (profile_state.cpp):
#
#   transfers: who sends to whom from the pairing method, then one fresh
#              manager per sender, its `steps` run for each of its receivers
#              in ascending order, every request to the stand-ins logged
#              ("pairs", "send", "B", "L", "X", "G", "I", "T", "W", "R", "!"
#              lines; conform/src/capture.cpp reads them). A `watch`ed
#              method of the manager logs its calls ("W"); a name the method
#              `needs` from another given file skips the binding when no
#              given file defines it; `_params` holds the last step's
#              parameter names, for arguments only some signatures take.


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

    @staticmethod
    def extra_methods(spec, driver):
        """The steps before the last, which the manager's class must define too."""
        return [m for m, _ in driver["steps"][:-1]]

    @classmethod
    def bind(cls, spec, target, driver, sources):
        """The driver, with the pairing method bound beside the target."""
        pairing_spec = dict(spec, attributes=driver["pairing"]["attributes"])
        pairing, why = bind_method(pairing_spec, sources, driver["pairing"]["classes"], driver["pairing"]["methods"])
        if pairing is None:
            raise Unbound("%s (%s) is run for the senders that %s gives: %s" % (
                target.qualname, target.where, " or ".join(
                    "%s.%s" % (c, m) for c in driver["pairing"]["classes"] for m in driver["pairing"]["methods"]), why))
        pairing.item_setup = instance_setup(pairing_spec, pairing.cls)
        return cls(target, driver, pairing, sources)

    def __init__(self, target, driver, pairing, sources):
        self.target, self.driver = target, driver
        self.params = target.spec["params"]
        self.memory = make_memory(driver["memory"])
        self.watch = [name for name in driver.get("watch", ()) if callable(getattr(target.cls, name, None))]
        self.steps = [Step(target.cls, m, args) for m, args in driver["steps"]]
        last = getattr(object.__new__(target.cls), driver["steps"][-1][0])
        self.last_params = frozenset(inspect.signature(last).parameters)
        missing = [name for name in driver.get("needs", ()) if name in names_used(last) and
                   name not in last.__globals__ and not any(s.defines(name) for s in sources)]
        if missing:
            raise Unbound("%s (%s) calls %s, which no given file defines: give the file that defines %s "
                          "(disaggregation/utils.py of the same commit)" % (
                              target.qualname, target.where, ", ".join(missing), ", ".join(missing)))
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
        env["_mem"] = self.memory(**dict(zip(self.params, case)))
        env["_params"] = self.last_params
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
                for name in self.watch:
                    manager.__dict__[name] = watched(capture, name, getattr(manager, name))
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


def watched(capture, name, method):
    """`method`, logging each call ("W name") before it runs."""
    def call(*args, **kwargs):
        capture.add("W " + word(name))
        return method(*args, **kwargs)
    return call


def names_used(function):
    """The global names a function's code (and the code it nests) may read."""
    names, pending = set(), [function.__code__]
    while pending:
        code = pending.pop()
        names.update(code.co_names)
        pending += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return names


DRIVERS["transfers"] = TransferDriver


class SGLangStatePool(SyntheticStateMemory):
    """SGLang's state pool (SPEC §16.7's metadata): what the pool registers
    per entry, as a binding passes it. `groups` is, per configuration, the
    conv segments' full widths the binding passes (None: none)."""

    def __init__(self, description, case):
        SyntheticStateMemory.__init__(self, description["layout"], description["sides"], case["P"], case["D"],
                                      case["model"])
        self.conv_groups = description["groups"].get(str(case["model"]))

    def dims(self, side, sliced):
        """Per entry: the conv's slice-axis size (C_loc) or, unless `sliced`, its first per-slot axis (K-1 for
        a state-first conv); the temporal state's heads."""
        s = self.side(side)
        conv = s["c_loc"] if sliced or s["order"] == "ds" else s["rows"]
        return [conv if tensor == "conv" else s["h_loc"] for _, tensor in self.entries]

    def outer(self, side):
        """Per entry: how many times the slice axis repeats in a slot (the rows of a state-first conv)."""
        s = self.side(side)
        return [s["rows"] if tensor == "conv" and s["order"] != "ds" else 1 for _, tensor in self.entries]

    def groups(self):
        """Per entry: the conv's segment widths, or None."""
        return [list(self.conv_groups) if tensor == "conv" and self.conv_groups is not None else None
                for _, tensor in self.entries]


MEMORIES["sglang_state"] = SGLangStatePool
