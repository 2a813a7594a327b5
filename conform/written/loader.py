# The loader of the tests written with --import-style source: it takes the
# definitions out of the connector's files by their syntax tree, as tpcheck
# conform does, so that the tests run where the engine is not installed. At
# module level only imports of the standard library and numpy run, and
# NAME = <literal> constants; functions are defined without decorators;
# classes are built from their methods, literal attributes and fields, with
# Python's own decorators and the bases the given files define. Annotations
# stay strings. Names the files import from modules that are not installed
# are the given files' definitions, or the engine's stand-ins (_STAND_INS,
# with the child's logger that accepts anything).
import __future__
import ast
import builtins
import functools
import os
import sys


def _load(name):
    """The definition `name` of the first of _FILES that defines it at top level (the last definition there)."""
    if not _LOADED:
        _load_files()
    for namespace, defined in _LOADED:
        if name in defined:
            if name not in namespace:
                raise ImportError("%s: %s could not be defined from its source" % (namespace["__file__"], name))
            return namespace[name]
    raise ImportError("none of %s defines %s" % (", ".join(_FILES), name))


def _load_files():
    here = os.path.dirname(os.path.abspath(__file__))
    files = []  # (tree, namespace, its classes by name)
    for number, relative in enumerate(_FILES):
        path = os.path.normpath(os.path.join(here, relative))
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), filename=path)
        module = type(sys)("_written_source_%d_%s" % (number, os.path.splitext(os.path.basename(path))[0]))
        module.__file__ = path
        sys.modules[module.__name__] = module  # a dataclass looks its module up
        namespace = module.__dict__
        namespace.update(_STAND_INS, __builtins__=builtins, logger=_Logger())
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}  # the last of a name is live
        files.append((tree, namespace, classes))
        _LOADED.append((namespace, {n.name for n in tree.body if isinstance(n, _DEFINITIONS)}))
    for tree, namespace, _ in files:
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and _installed(node):
                _run(node, namespace)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and _literal(node.value):
                _run(node, namespace)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                node.decorator_list = []
                _run(node, namespace)
    for _, namespace, classes in files:
        for node in classes.values():
            _build(node, namespace, files)
    for tree, namespace, _ in files:  # names imported from the package: the given files' definitions
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and not _installed(node):
                for alias in node.names:
                    given = next((ns[alias.name] for ns, defined in _LOADED
                                  if alias.name in defined and alias.name in ns), None)
                    if given is not None and (alias.asname or alias.name) not in namespace:
                        namespace[alias.asname or alias.name] = given


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _installed(node):
    """An import of the standard library or numpy (the only ones run)."""
    if isinstance(node, ast.ImportFrom):
        if node.level or node.module is None:
            return False
        modules = [node.module]
    else:
        modules = [alias.name for alias in node.names]
    names = getattr(sys, "stdlib_module_names", None)
    return all(m.split(".")[0] == "numpy" or names is None or m.split(".")[0] in names or m == "__future__"
               for m in modules)


def _literal(node):
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _run(node, namespace):
    try:
        code = compile(ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[])), namespace["__file__"],
                       "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)
        exec(code, namespace)
    except Exception:  # noqa: BLE001 - left undefined; _load says so if a test needs it
        pass


_OWN_DECORATORS = (property, staticmethod, classmethod, functools.cached_property)


def _kept(decorator, namespace):
    """Python's own decorators: property and its setters, staticmethod, classmethod, dataclass."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute) and target.attr in ("setter", "getter", "deleter", "dataclass",
                                                             "cached_property"):
        return True
    if isinstance(target, ast.Name):
        value = namespace.get(target.id, getattr(builtins, target.id, None))
        return value in _OWN_DECORATORS or getattr(value, "__name__", None) == "dataclass"
    return False


def _build(node, namespace, files, building=()):
    """Class `node`, from its methods, literal attributes and fields, on the bases the given files define."""
    key = (id(namespace), node.name)
    if key in _BUILT or key in building:
        return _BUILT.get(key)
    bases = []
    for base in node.bases:
        name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
        home = [(ns, classes) for _, ns, classes in files if ns is namespace] + \
            [(ns, classes) for _, ns, classes in files if ns is not namespace]
        given = next(((ns, classes[name]) for ns, classes in home if name in classes), None)
        if given is not None:
            built = _build(given[1], given[0], files, building + (key,))
            if built is not None:
                namespace.setdefault(name, built)
                bases.append(name)
        elif isinstance(getattr(builtins, name or "", None), type):
            bases.append(name)
    body = []
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defaults = statement.args.defaults + [d for d in statement.args.kw_defaults if d is not None]
            if all(_literal(d) for d in defaults):
                statement.decorator_list = [d for d in statement.decorator_list if _kept(d, namespace)]
                body.append(statement)
        elif isinstance(statement, ast.AnnAssign):
            if statement.value is not None and not _literal(statement.value) and not (
                    isinstance(statement.value, ast.Call) and getattr(statement.value.func, "id", "") == "field"):
                statement.value = None
            body.append(statement)
        elif isinstance(statement, ast.Assign) and _literal(statement.value):
            body.append(statement)
    node.bases = [ast.Name(id=name, ctx=ast.Load()) for name in bases]
    node.keywords = []
    node.decorator_list = [d for d in node.decorator_list if _kept(d, namespace)]
    node.body = body or [ast.Pass()]
    _run(node, namespace)
    _BUILT[key] = namespace.get(node.name)
    return _BUILT[key]


_LOADED = []  # per file: its namespace, the names it defines
_BUILT = {}  # (namespace, class name) -> the class built


def _import_adapter(name):
    """The adapter's function `name`: the module _FILES names, imported from its path as tpcheck conform imports it."""
    if not _LOADED:
        path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), _FILES[0]))
        sys.path.insert(0, os.path.dirname(path))
        spec = importlib.util.spec_from_file_location("_written_adapter", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        _LOADED.append((vars(module), set(vars(module))))
    return getattr(sys.modules["_written_adapter"], name)
