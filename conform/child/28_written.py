# Part 2d: how a written test calls a bound function (tpcheck conform
# --write-tests). The same shaped call the loop makes, written as the lines of
# a test's function over the case's parameters: the instance and its
# attributes, the driver's names and calls, each result named. The names the
# lines use besides the case's parameters are the test's own helpers (_new,
# _record, ...: conform/written/), the definitions to import or load (define),
# and the engine's stand-ins they name, or that the code under test needs
# where the engine is not installed (stand_in).
import io
import tokenize


def renamed(expression, names):
    """`expression` with each identifier of `names` replaced (not attribute
    names), its text otherwise unchanged."""
    out, at, previous = [], 0, None
    try:
        for token in tokenize.generate_tokens(io.StringIO(expression).readline):
            if token.type == tokenize.NAME and token.string in names and previous != ".":
                out += [expression[at:token.start[1]], names[token.string]]
                at = token.end[1]
            if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER):
                previous = token.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return expression
    return "".join(out) + expression[at:]


def _names_in(text):
    found = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME:
                found.add(token.string)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return found


def written_test(target, sources, adapter_path=None):
    """The lines of the answer to `describe` (protocol.hpp): define, stand_in, coords and body lines."""
    spec, driver = target.spec, target.spec.get("driver")
    if driver is not None and driver.get("kind") != "each":
        raise Unshapeable("its calls are made by the %s driver, which a written test has no form for" % driver["kind"])
    definitions, body = [], []
    if target.method is None:
        path = adapter_path or target.source.path
        definitions.append((target.qualname, path))
        callee = target.qualname
    else:
        class_name = target.qualname.split(".")[0]
        found = find_class([class_name], sources)
        definitions.append((class_name, found[0].path))
        static = isinstance(inspect.getattr_static(target.cls, target.method, None), staticmethod)
        callee = "%s.%s" % (class_name, target.method) if static else "instance.%s" % target.method
    names = {"_inst": "instance", "_np": "np"}
    calls = driver["calls"] if driver else [None]
    results = ["result"] if len(calls) == 1 else ["r%d" % i for i in range(len(calls))]
    names.update(("_r%d" % i, result) for i, result in enumerate(results))
    for name, _ in (driver or {}).get("let", []):
        names[name] = name.lstrip("_") or name
    if target.cls is not None and (spec["instance_argument"] or callee.startswith("instance.")):
        if spec["instance_argument"]:
            found = find_class(spec["classes"], sources)
            definitions.append((found[1], found[0].path))
            class_name = found[1]
        items = ", ".join("%s=%s" % (name, renamed(value, names)) for name, value in instance_items(spec, target.cls))
        body.append("instance = _new(%s%s)" % (class_name, ", " + items if items else ""))
    callable_ = getattr(object.__new__(target.cls), target.method) if target.method else target.function
    for name, value in (driver or {}).get("let", []):
        body.append("%s = %s" % (names[name], renamed(value, names)))
    for result, args in zip(results, calls):
        call_spec = spec if args is None else {"positional": False, "args": args, "instance_argument": "", "params": []}
        passed, conditional = ([], []) if call_spec["positional"] else call_parts(call_spec, callable_, "%s")
        if len(conditional) == 1:  # an argument passed only where its condition holds: an if statement
            argument, when = conditional[0]
            body += ["if %s:" % renamed(when, names),
                     "    %s = %s(%s)" % (result, callee, renamed(", ".join(passed + [argument]), names)),
                     "else:",
                     "    %s = %s(%s)" % (result, callee, renamed(", ".join(passed), names))]
            continue
        call = call_expression(call_spec, callable_, "_f", "%s")
        body.append("%s = %s" % (result, renamed(call, dict(names, _f=callee))))
    lines = ["define\t%s\t%s" % (name, escape(path)) for name, path in definitions]
    used = set().union(*(_names_in(line) for line in body))
    for name in sorted(used & set(STAND_INS) - {"logger"}):
        lines.append("stand_in\t%s\texpression" % name)
    if adapter_path is None:
        defined = {name for s in sources for name in list(s.functions) + list(s.classes)}
        needed = set()
        for _, node in mutable_nodes(target, sources):
            needed |= _referenced_names(node)
        for name in sorted(needed & set(STAND_INS) - used - defined - {"logger"}):
            lines.append("stand_in\t%s\tcode" % name)
    if driver is not None:
        lines.append("coords\t%s" % " ".join(driver["coords"]))
    lines += ["result\t%s" % result for result in results]
    lines += ["body\t%s" % escape(line) for line in body]
    return "\n".join(lines)
