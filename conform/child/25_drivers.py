# Part 2b: drivers, for bindings whose case is a whole configuration rather
# than one call. A driver makes every call of the configuration the profile
# describes (its loops, records, calls and rendering are Python expressions
# over the case's parameters, given as data by the profile) and answers with
# one text: a line per call, or the log of what the recording stand-ins were
# asked for. tpcheck judges that text (conform/src/capture.cpp reads it).
#
#   each:      for every item of `over` (tuples named by `coords`): the
#              instance's attributes, the `let` names, the calls, then
#              "c1 c2|=<render>" or "c1 c2|!Class|message"; with a `memory`,
#              the case's synthetic memory is `_mem` (MEMORIES)
#
# The other kinds are an engine's, in its part of the child (SGLang's
# transfers, TensorRT-LLM's peers): a class in DRIVERS under the kind's name.


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


# Driver kinds of the engines' parts, by name: a class with
#   extra_methods(spec, driver): the methods of the bound class the driver
#       calls besides the bound one (the binding is skipped without them);
#   bind(spec, target, driver, sources): the driver for the bound target
#       (Unshapeable or Unbound when it cannot be made), called with a case's
#       parameters to answer the case's text.
DRIVERS = {}


def make_memory(description):
    """The function that gives a case's memory: `_memory(P=..., ...)`."""
    kind = MEMORIES[description["kind"]]
    return lambda **case: kind(description, case)


def each_driver(target, driver):
    """The source of `_drive`, and the names it needs besides the target's."""
    params = target.spec["params"]
    coords = driver["coords"]
    lines = ["def _drive(%s):" % ", ".join(params),
             "    _out = []",
             "    _add = _out.append"]
    if driver.get("memory"):
        lines.append("    _mem = _memory(%s)" % ", ".join("%s=%s" % (p, p) for p in params))
    lines += [

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
