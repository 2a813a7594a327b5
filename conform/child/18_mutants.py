# Part 1c: mutants of the code under test, for choosing the cases of written
# tests (tpcheck conform --write-tests, --mutants). A mutant is one small
# change of the syntax tree of the function under test or of a helper it
# calls: an arithmetic or comparison operator swapped, an integer constant or
# a compared value off by one, floor and true division swapped, min and max
# swapped, two arguments of a call swapped. Mutants are numbered in a fixed
# order from the syntax tree alone, so a restarted child numbers them alike.
# A mutant is run by loading the files again with the change applied where
# the code under test is compiled (compile_source), and binding again: its
# calls then run exactly as the original's do, isolated and budgeted alike.

ARITHMETIC_SWAPS = {ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.Mult: (ast.FloorDiv,),
                    ast.FloorDiv: (ast.Mult, ast.Mod), ast.Mod: (ast.FloorDiv,)}
DIVISION_SWAPS = {ast.FloorDiv: ast.Div, ast.Div: ast.FloorDiv}
COMPARISON_SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                    ast.NotEq: ast.Eq}
OPERATOR_TEXT = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%",
                 ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
# Calls whose arguments are not worth swapping: symmetric, or only logging.
SYMMETRIC_CALLS = ("min", "max")

# The mutant applied while files are loaded (None: the code as it is).
ACTIVE_MUTANT = None


def _site(node, path):
    return {"path": path, "type": type(node).__name__, "line": node.lineno, "col": node.col_offset,
            "end_line": node.end_lineno, "end_col": node.end_col_offset}


def _is_logging_call(node):
    f = node.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("logger", "logging")


def _calls_of(node):
    """Every node of `node`'s tree except those inside a logging call."""
    pending = [node]
    while pending:
        n = pending.pop(0)
        if isinstance(n, ast.Call) and _is_logging_call(n):
            continue
        yield n
        pending.extend(ast.iter_child_nodes(n))


def mutant_sites(node, path):
    """The mutants of one function's tree, in a fixed order: (site, change, before, after)."""
    found = []

    def add(target, change, before, after):
        site = _site(target, path)
        site.update(change)
        found.append((site, before, after))

    for n in _calls_of(node):
        if isinstance(n, (ast.BinOp, ast.AugAssign)):
            op = type(n.op)
            for new in ARITHMETIC_SWAPS.get(op, ()) + ((DIVISION_SWAPS[op],) if op in DIVISION_SWAPS else ()):
                add(n, {"change": "operator", "to": new.__name__}, OPERATOR_TEXT[op], OPERATOR_TEXT[new])
        elif isinstance(n, ast.Compare):
            for k, op in enumerate(n.ops):
                if type(op) in COMPARISON_SWAPS:
                    new = COMPARISON_SWAPS[type(op)]
                    add(n, {"change": "comparison", "index": k, "to": new.__name__}, OPERATOR_TEXT[type(op)],
                        OPERATOR_TEXT[new])
            if all(type(op) in COMPARISON_SWAPS for op in n.ops):
                for k, value in enumerate([n.left] + n.comparators):
                    if isinstance(value, ast.Constant):
                        continue  # a constant is mutated as one
                    for delta in (1, -1):
                        add(n, {"change": "compared", "index": k, "delta": delta}, code_text(value, 60),
                            "%s %s 1" % (code_text(value, 60), "+" if delta > 0 else "-"))
        elif isinstance(n, ast.Constant) and type(n.value) is int:
            for delta in (1, -1):
                add(n, {"change": "constant", "delta": delta}, repr(n.value), repr(n.value + delta))
        elif isinstance(n, ast.Call):
            name = n.func.id if isinstance(n.func, ast.Name) else None
            if name in SYMMETRIC_CALLS and not n.keywords:
                add(n, {"change": "min_max"}, name, "max" if name == "min" else "min")
            if name in SYMMETRIC_CALLS or any(isinstance(a, ast.Starred) for a in n.args):
                continue
            for k in range(len(n.args) - 1):
                first, second = code_text(n.args[k], 60), code_text(n.args[k + 1], 60)
                if first != second:
                    add(n, {"change": "arguments", "index": k}, "%s, %s" % (first, second),
                        "%s, %s" % (second, first))
    return found


def _matches(node, site):
    return type(node).__name__ == site["type"] and getattr(node, "lineno", None) == site["line"] and \
        node.col_offset == site["col"] and node.end_lineno == site["end_line"] and \
        node.end_col_offset == site["end_col"]


def _change(node, site):
    change = site["change"]
    if change == "operator":
        node.op = getattr(ast, site["to"])()
    elif change == "comparison":
        node.ops[site["index"]] = getattr(ast, site["to"])()
    elif change == "compared":
        k = site["index"]
        operand = node.left if k == 0 else node.comparators[k - 1]
        shifted = ast.BinOp(left=operand, op=ast.Add() if site["delta"] > 0 else ast.Sub(), right=ast.Constant(1))
        ast.copy_location(shifted, operand)
        if k == 0:
            node.left = shifted
        else:
            node.comparators[k - 1] = shifted
    elif change == "constant":
        node.value += site["delta"]
    elif change == "min_max":
        node.func = ast.copy_location(ast.Name(id="max" if node.func.id == "min" else "min", ctx=ast.Load()), node.func)
    elif change == "arguments":
        k = site["index"]
        node.args[k], node.args[k + 1] = node.args[k + 1], node.args[k]


def apply_mutant(node, path):
    """`node` (a statement about to be compiled from `path`) with the active
    mutant applied, if it lies inside; otherwise `node` itself."""
    site = ACTIVE_MUTANT
    if site is None or site["path"] != path or not hasattr(node, "lineno") or \
            not node.lineno <= site["line"] <= (node.end_lineno or node.lineno):
        return node
    changed = copy.deepcopy(node)
    for n in ast.walk(changed):
        if _matches(n, site):
            _change(n, site)
            return changed
    return node


def _referenced_names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def mutable_nodes(target, sources):
    """(source, function node) of the function under test and of what it
    calls: methods it reaches through self (from its class or bases), and the
    top-level functions of their files it names, transitively."""
    start = []
    if target.method is None:
        start.append((target.source, target.source.functions[target.qualname].node))
    else:
        class_name = target.qualname.split(".")[0]
        found = find_class([class_name], sources)
        source, node = found[0], found[0].classes[class_name]
        pending, seen = [target.method], set()
        while pending:
            name = pending.pop(0)
            if name in seen:
                continue
            seen.add(name)
            hit = find_method(sources, source, node, name, set())
            if hit is None:
                continue
            method = method_nodes(hit[1])[name]
            start.append((hit[0], method))
            pending += sorted(self_attributes(method))
    out, seen = [], set()
    pending = list(start)
    while pending:
        source, node = pending.pop(0)
        key = (source.path, node.lineno)
        if key in seen:
            continue
        seen.add(key)
        out.append((source, node))
        for name in sorted(_referenced_names(node)):
            definition = source.functions.get(name)
            if definition is not None and definition.problem is None:
                pending.append((source, definition.node))
    return out


def adapter_nodes(target, path):
    """The adapter's function and the functions of its file it names."""
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), filename=path)
    functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out, pending, seen = [], [target.qualname], set()
    while pending:
        name = pending.pop(0)
        if name in seen or name not in functions:
            continue
        seen.add(name)
        out.append(functions[name])
        pending += sorted(_referenced_names(functions[name]))
    return out


def mutants_of(nodes):
    """Every mutant of the (path, node) list, in order of file, line and site."""
    out = []
    for path, node in sorted(nodes, key=lambda item: (item[0], item[1].lineno)):
        out += mutant_sites(node, path)
    return out


def mutant_text(mutant):
    site, before, after = mutant
    return "%s:%d: %s -> %s" % (site["path"], site["line"], before, after)
