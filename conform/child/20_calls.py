# Part 2: finding each binding's definition and shaping its calls from the
# definition's own signature (versions rename functions and add parameters),
# then generating the loop that makes every call of a grid.
import inspect
import operator


class Unshapeable(Exception):
    """The definition cannot be called as the profile needs."""


class Unbound(Exception):
    """The binding is skipped, for the reason it carries, whole (a driver's own)."""


class Target:
    """A bound definition: its name and place for the report, and how a case calls it."""

    def __init__(self, spec, qualname, path, line):
        self.spec, self.qualname, self.where = spec, qualname, "%s:%d" % (path, line)
        self.function = None     # a top-level function
        self.cls = None          # the class of the method, or of the instance argument
        self.method = None       # the method's name
        self.call = None         # the call, as an expression over the grid parameters
        self.setup = None        # the statement that gives the instance its attributes
        self.item_setup = None   # the same, for a driver to run per call
        self.namespace = {}      # the globals of the definition's file
        self.driver = None       # the driver of a kind of DRIVERS, bound to this target
        self.source = None       # a top-level function's file (SourceFile)


def find_class(names, sources):
    for name in names:
        for source in sources:
            if name in source.classes:
                return source, name
    return None


def bind_method(spec, sources, class_names, method_names, extra_methods=(), requires=()):
    """(Target, None) for the first of `method_names` that class (or, by name,
    its bases) defines, compiled with what it reaches through self; or (None,
    why it cannot be)."""
    files = ", ".join(s.path for s in sources)
    looked = " or ".join("%s.%s" % (c, m) for c in class_names for m in method_names)
    found_class = find_class(class_names, sources)
    if found_class is None:
        return None, "no class %s in %s (looked for %s)" % (" or ".join(class_names), files, looked)
    source, class_name = found_class
    node = source.classes[class_name]
    method = next((m for m in method_names if find_method(sources, source, node, m, set()) is not None), None)
    if method is None:
        return None, "%s (%s:%d) has no method %s" % (class_name, source.path, node.lineno, " or ".join(method_names))
    for extra in extra_methods:
        if find_method(sources, source, node, extra, set()) is None:
            return None, "%s (%s:%d) has no method %s, which the profile calls before %s" % (
                class_name, source.path, node.lineno, extra, method)
    built = MethodClass(sources, source, class_name, [method] + list(extra_methods))
    at_source, at_node = find_method(sources, source, node, method, set())
    line = method_nodes(at_node)[method].lineno
    target = Target(spec, "%s.%s" % (class_name, method), at_source.path, line)
    for name in [method] + list(extra_methods):
        if name in built.problems:
            return None, "%s (%s): %s" % (target.qualname, target.where, built.problems[name])
    for name in requires:
        if name in built.unresolved:
            return None, "%s (%s) calls self.%s, which neither %s nor its bases (%s) define in %s" % (
                target.qualname, target.where, name, class_name, ", ".join(base_names(node)) or "none", files)
    for s, n in built.nodes:
        problem = s.needs_missing(n)
        if problem:
            return None, "%s (%s): %s" % (target.qualname, target.where, problem)
        s.define_records([n])
    target.cls, target.method, target.namespace = built.cls, method, at_source.namespace
    return target, None


def bind(spec, sources):
    """(Target, None), or (None, why the binding is skipped)."""
    files = ", ".join(s.path for s in sources)
    found_class = find_class(spec["classes"], sources) if spec["classes"] else None
    driver = spec.get("driver")
    hit = None
    for name in spec["functions"]:
        hit = next(((s, s.functions[name]) for s in sources if name in s.functions), None)
        if hit is not None:
            break
    # A helper that is top-level in some versions and a static method in
    # others: the method, where no given file defines the function.
    methods_instead = hit is None and spec["functions"] and spec["methods"] and not spec["instance_argument"]
    if spec["functions"] and not methods_instead:
        if hit is None:
            return None, "not defined at top level in %s (looked for %s)" % (files, " or ".join(spec["functions"]))
        source, definition = hit
        where = "%s (%s:%d)" % (definition.name, source.path, definition.line)
        problem = definition.problem or source.needs_missing(definition.node)
        if problem:
            return None, "%s: %s" % (where, problem)
        source.define_records([definition.node])
        target = Target(spec, definition.name, source.path, definition.line)
        target.source = source
        target.function, target.namespace = source.namespace[definition.name], source.namespace
        if spec["instance_argument"]:
            if found_class is None:
                return None, "%s needs an instance of %s, which no given file defines (%s)" % (
                    where, " or ".join(spec["classes"]), files)
            target.cls = found_class[0].load_class(found_class[1]).cls
        callable_ = target.function
    else:
        kind = DRIVERS.get(driver["kind"]) if driver else None
        steps = kind.extra_methods(spec, driver) if kind else []
        target, why = bind_method(spec, sources, spec["classes"], spec["methods"], steps, spec.get("requires") or ())
        if target is None and methods_instead:
            return None, "not defined at top level in %s (looked for %s), and %s" % (
                files, " or ".join(spec["functions"]), why)
        if target is None:
            return None, why
        callable_ = getattr(object.__new__(target.cls), target.method)
    wanted = spec.get("requires_parameter")
    if wanted:
        try:
            has = wanted["name"] in inspect.signature(callable_).parameters
        except (TypeError, ValueError):
            has = True  # the call says what is wrong
        if not has:
            return None, "%s (%s) takes no %s: %s" % (target.qualname, target.where, wanted["name"], wanted["why"])
    if target.cls is not None:
        for s in sources:  # code that names the class finds it
            s.namespace.setdefault(target.cls.__name__, target.cls)
    try:
        if target.cls is not None and driver is None:
            target.setup = instance_setup(spec, target.cls)
        elif target.cls is not None:
            target.item_setup = instance_setup(spec, target.cls)
        if driver is None:
            target.call = call_expression(spec, callable_)
        else:
            target.call = "_drive(%s)" % ", ".join(spec["params"])
            if driver["kind"] in DRIVERS:
                target.driver = DRIVERS[driver["kind"]].bind(spec, target, driver, sources)
            else:
                compile(each_driver(target, driver), "<tpcheck driver>", "exec")
    except (Unshapeable, SyntaxError) as e:
        note = spec.get("skip_note")
        return None, "%s (%s): %s%s" % (target.qualname, target.where, e, "; " + note if note else "")
    except Unbound as e:
        return None, str(e)
    return target, None


def runner_scope(target):
    """The names a target's calls use: the stand-ins, the bound callable, a driver."""
    scope = {"__builtins__": builtins, "_render": RENDERERS[target.spec["render"]]}
    scope.update(CALL_NAMES)
    scope.update(STAND_INS)
    scope.update(DRIVER_NAMES)
    scope["_np"] = target.namespace.get("np")
    if target.cls is not None:
        scope["_inst"] = object.__new__(target.cls)
    scope["_f"] = getattr(scope["_inst"], target.method) if target.method else target.function
    if target.driver is not None:
        scope["_drive"] = target.driver
    elif target.spec.get("driver") is not None:
        if target.spec["driver"].get("memory"):
            scope["_memory"] = make_memory(target.spec["driver"]["memory"])
        exec(compile(each_driver(target, target.spec["driver"]), "<tpcheck driver>", "exec"), scope)
    return scope


def call_parts(spec, callable_, wrap="(%s)"):
    """The arguments of one case's call, from the definition's parameters:
    each gets the profile's value for its name (positional while it can,
    then by keyword), optional ones only if the definition has them, and a
    parameter the profile has no value for must have a default. Returns the
    arguments always passed, and (argument, condition) for those passed only
    where their condition holds; each value written through `wrap`
    (parenthesised for the loop, as it is for a written test)."""
    try:
        signature = inspect.signature(callable_)
    except (TypeError, ValueError) as e:
        raise Unshapeable("its signature cannot be read: %s" % e)
    values = {a["name"]: a for a in spec["args"]}
    if spec["instance_argument"]:
        values[spec["instance_argument"]] = {"name": spec["instance_argument"], "value": "_inst", "optional": False,
                                             "when": ""}
    parameters = list(signature.parameters.values())
    names = {p.name for p in parameters}
    for a in values.values():
        if not a["optional"] and a["name"] not in names:
            raise Unshapeable("it has no parameter %r (the profile passes %s = %s)" % (a["name"], a["name"], a["value"]))
    passed, conditional, by_keyword = [], [], False
    for p in parameters:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            by_keyword = True
            continue
        a = values.get(p.name)
        if a is None or (a["when"] and p.default is not p.empty):
            if a is None and p.default is p.empty:
                raise Unshapeable("its parameter %r has no default, and the profile has no value for it" % p.name)
            if a is not None:
                conditional.append(("%s=%s" % (a["name"], wrap % a["value"]), a["when"]))
            by_keyword = True
            continue
        if p.kind is p.KEYWORD_ONLY or by_keyword:
            if p.kind is p.POSITIONAL_ONLY:
                raise Unshapeable("its positional-only parameter %r follows one the profile leaves out" % p.name)
            passed.append("%s=%s" % (p.name, wrap % a["value"]))
        else:
            passed.append(wrap % a["value"])
    return passed, conditional


def call_expression(spec, callable_, callee="_f", wrap="(%s)"):
    """The call of one case (call_parts), as one expression calling `callee`."""
    if spec["positional"]:
        return "%s(%s)" % (callee, ", ".join(spec["params"]))
    passed, conditional = call_parts(spec, callable_, wrap)
    call = "%s(%s)" % (callee, ", ".join(passed))
    for argument, when in conditional:
        call = "(%s(%s) if (%s) else %s)" % (callee, ", ".join(passed + [argument]), when, call)
    return call


def instance_items(spec, cls):
    """The attributes the instance gets for one case, (name, value) in order.
    A read-only property of the name gets its fallback attributes instead; an
    `if_plain` attribute only where the class has no property of that name."""
    items = []
    for attribute in spec["attributes"]:
        descriptor = inspect.getattr_static(cls, attribute["name"], None)
        if isinstance(descriptor, (property, functools.cached_property)):
            if attribute["if_plain"]:
                continue
            if attribute["fallback"] and getattr(descriptor, "fset", None) is None:
                items += [(name, value) for name, value in attribute["fallback"]]
                continue
        items.append((attribute["name"], attribute["value"]))
    return items


def instance_setup(spec, cls):
    """The statement that gives the instance its attributes for one case."""
    items = instance_items(spec, cls)
    if "__slots__" in cls.__dict__:
        return "; ".join("_inst.%s = (%s)" % item for item in items) or "pass"
    return "_inst.__dict__ = {%s}" % ", ".join("%r: (%s)" % item for item in items)


# --- how a value is written --------------------------------------------------------

def render_int_list(value):
    if type(value) is list:
        for x in value:
            if type(x) is not int:
                break
        else:
            return repr(value)
    try:
        return "[%s]" % ", ".join(str(operator.index(x)) for x in value)
    except Exception:  # noqa: BLE001 - not a list of integers: shown as it is
        return repr(value)


# How a value is written, by the profile's name for it: the engines' parts add theirs.
RENDERERS = {"repr": repr, "int_list": render_int_list, "text": str}

# Names the profiles' call expressions use besides the stand-ins and the
# drivers': the engines' parts add theirs.
CALL_NAMES = {}


STR_FAILED = "<str() of the exception failed>"

# The id of a case whose exception comes inline (protocol.hpp's kInlineOutcome).
INLINE_OUTCOME = 0xFFFFFFFF
KEYED_TRIAL = 4096
INLINE_WHEN_NEW = 2


def outcome_of_exception(e):
    """(class, message) of an exception, even one whose str() fails."""
    try:
        text = str(e)
    except BaseException:  # noqa: BLE001
        text = STR_FAILED
    return type(e), text


class ReprFailed(Exception):
    """Stands for a value whose rendering raised."""


def outcome_of_render_failure(e):
    cls, text = outcome_of_exception(e)
    return ReprFailed, "%s: %s" % (cls.__name__, text)


# --- the loop over a grid -------------------------------------------------------------

def grid_data(grid, flags_at):
    """The grid's lists as the loop reads them: flags as booleans, a table as a
    dict from its key (a value, or a tuple of values) to its list, and the
    values of a block that keeps only outer cases paired with their flag."""
    data = {}

    def values(items, flag, outer=None):
        items = [bool(v) for v in items] if flag else items
        return list(zip(items, [bool(o) for o in outer])) if outer is not None else items

    for b, block in enumerate(grid["blocks"]):
        if "cases" in block:
            data["_C%d" % b] = [tuple(bool(v) if i in flags_at else v for i, v in enumerate(c)) for c in block["cases"]]
            continue
        keep_outer = block["only_outer"]
        for k, p in enumerate(block["params"]):
            if not p["deps"]:
                data["_V%d_%d" % (b, k)] = values(p["values"], p["flag"], p.get("outer") if keep_outer else None)
                continue
            table = {}
            for entry in p["table"]:
                key = entry[0][0] if len(entry[0]) == 1 else tuple(entry[0])
                table[key] = values(entry[1], p["flag"], entry[2] if keep_outer else None)
            data["_T%d_%d" % (b, k)] = table
    return data


def loop_source(target, grid, skip, careful):
    """`def _run(...)`: nested loops over every block of the grid, each case a
    call whose outcome goes to the sink as an id. Each block is a function of
    its own, with the call near its start: where an exception passes, Python
    works out the line by reading the function's line table up to there."""
    names = target.spec["params"]
    state = "_skip, _careful, _keyed, _new, _seen"
    lines = []
    for b, block in enumerate(grid["blocks"]):
        lines.append("def _block%d(_sink, _put, _define, _get, _flush, %s):" % (b, state))
        indent = "    "
        if "cases" in block:
            lines.append("%sfor (%s,) in _C%d:" % (indent, ", ".join(names), b))
            indent += "    "
        else:
            outer = []
            params = block["params"]
            # A dependent list is looked up as soon as what it depends on is
            # bound, not in every loop between there and its own.
            lookups = {}
            for k, p in enumerate(params):
                if p["deps"]:
                    deps = [params[d]["name"] for d in p["deps"]]
                    key = deps[0] if len(deps) == 1 else "(%s)" % ", ".join(deps)
                    lookups.setdefault(max(p["deps"]), []).append("_L%d = _T%d_%d.get(%s, ())" % (k, b, k, key))
            for k, p in enumerate(params):
                variable = p["name"]
                if block["only_outer"]:
                    variable = "%s, _o%d" % (p["name"], k)
                    outer.append("_o%d" % k)
                source = "_L%d" % k if p["deps"] else "_V%d_%d" % (b, k)
                lines.append("%sfor %s in %s:" % (indent, variable, source))
                indent += "    "
                lines += [indent + lookup for lookup in lookups.get(k, ())]
            if outer:
                lines.append("%sif not (%s):" % (indent, " or ".join(outer)))
                lines.append("%s    continue" % indent)
        body = []
        if skip:
            body += ["if _skip:", "    _skip -= 1", "    continue"]
        if target.setup:
            body.append(target.setup)
        body += ["try:",
                 "    _r = " + target.call,
                 "except BaseException as _e:",
                 "    try:",
                 "        _m = str(_e)",
                 "    except BaseException:",
                 "        _m = _STR_FAILED",
                 # Exceptions get ids while their messages repeat; once most
                 # are new, they go inline (sending is cheaper than keying).
                 "    if _keyed:",
                 "        _seen += 1",
                 "        _t = (_e.__class__, _m)",
                 "        _k = _get(_t)",
                 "        if _k is None:",
                 "            _k = _define(_t)",
                 "            _new += 1",
                 "            if _new > %d and _new * %d > _seen:" % (KEYED_TRIAL, INLINE_WHEN_NEW),
                 "                _keyed = False",
                 "        _sink(_k)",
                 "    else:",
                 "        _put(_e.__class__)",
                 "        _put(_m)",
                 "        _sink(%d)" % INLINE_OUTCOME,
                 "else:"]
        if target.spec["render"] == "repr":
            # An int or None is its own key (rendered once, when first seen).
            body += ["    if _r is None or _r.__class__ is int:",
                     "        _t = _r",
                     "    else:",
                     "        try:",
                     "            _t = _render(_r)",
                     "        except BaseException as _e:",
                     "            _t = _render_failed(_e)"]
        else:
            body += ["    try:",
                     "        _t = _render(_r)",
                     "    except BaseException as _e:",
                     "        _t = _render_failed(_e)"]
        body += ["    _k = _get(_t)",
                 "    if _k is None:",
                 "        _k = _define(_t)",
                 "    _sink(_k)"]
        if careful:
            body += ["if _careful > 0:", "    _careful -= 1", "    _flush()"]
        lines += [indent + line for line in body]
        lines.append("    return " + state)
    lines += ["def _run(_sink, _put, _define, _ids, _flush, _skip, _careful):",
              "    _state = _skip, _careful, True, 0, 0  # " + state]
    lines += ["    _state = _block%d(_sink, _put, _define, _ids.get, _flush, *_state)" % b
              for b in range(len(grid["blocks"]))]
    lines.append("    return _state[0]")
    return "\n".join(lines) + "\n"


def make_runner(target, grid, skip, careful):
    """The function that makes every call of the grid from case `skip` on."""
    flags_at = set()
    for block in grid["blocks"]:
        for p in block.get("params", ()):
            if p["flag"]:
                flags_at.add(p["pos"])
    scope = runner_scope(target)
    scope.update({"_STR_FAILED": STR_FAILED, "_render_failed": outcome_of_render_failure})
    scope.update(grid_data(grid, flags_at))
    exec(compile(loop_source(target, grid, skip > 0, careful), "<tpcheck conform loop>", "exec"), scope)
    return scope["_run"]
