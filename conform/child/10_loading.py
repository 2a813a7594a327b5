# tpcheck conform's Python child (conform/child/*.py and each engine's
# conform/engines/ENGINE/child/*.py, joined in file-name order into one
# program that tpcheck runs with `python3 -I -c`; standard library only,
# python3 >= 3.9).
#
# Part 1: loading connector code without running it. A source file is parsed
# with `ast`; nothing at module level runs except imports of standard-library
# modules and of numpy (the interpreter's own), and `NAME = <literal>`
# constants. Each file is a module of its own, registered with the
# interpreter, and everything is compiled with postponed annotations (they
# name types that are not installed). Functions are compiled without
# decorators, and only when every default is a literal (a default is
# evaluated when a function is defined); of two top-level definitions of a
# name the last is live, as at import. A class is built without bases or
# decorators (but Python's own, and dataclass); a method's class holds only
# that method and the methods it reaches through `self.`, found in the class
# or, by name, in its bases in any given file; an instance is made without
# running its constructor. An import inside a function body of a module that
# is not installed is served from the given file that defines the names it
# imports. The names connector code uses from its engine (an engine's part
# of the child adds them: vLLM's KV cache spec classes, TensorRT-LLM's
# RankInfo...) and a logger that accepts any method are small stand-ins.
import __future__
import ast
import builtins
import copy
import dataclasses
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import itertools
import os
import sys
import sysconfig
import types

# Annotations stay strings: they name torch, numpy.typing and SGLang types.
COMPILE_FLAGS = __future__.annotations.compiler_flag


def compile_source(node, path):
    """Code under test, compiled with postponed annotations whatever the child's own flags (and with
    the mutant being run applied, part 1c)."""
    node = apply_mutant(node, path)
    return compile(ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[])), path, "exec",
                   flags=COMPILE_FLAGS, dont_inherit=True)


class LoadError(Exception):
    """The files cannot be loaded at all (tpcheck exits with status 2)."""


class NotLoaded(Exception):
    """What a definition that was not loaded raises when something calls it."""


# Third-party modules connector functions use, imported from the interpreter itself.
INTERPRETER_MODULES = ("numpy",)


def is_stdlib(module_name):
    top = module_name.split(".")[0]
    names = getattr(sys, "stdlib_module_names", None)  # python >= 3.10
    if names is not None:
        return top in names
    if top in sys.builtin_module_names:
        return True
    try:
        spec = importlib.util.find_spec(top)  # finds, does not import
    except (ImportError, ValueError):
        return False
    origin = getattr(spec, "origin", None) or ""
    stdlib_dir = sysconfig.get_paths()["stdlib"]
    return origin.startswith(stdlib_dir) and "-packages" not in origin


def code_text(node, limit=120):
    try:
        text = ast.unparse(node)  # python >= 3.9
    except Exception:  # noqa: BLE001 - only for a message
        text = "<expression>"
    return text if len(text) <= limit else text[:limit] + "..."


def literal(node, constants):
    """The value of a literal expression, or of a name bound to one of the
    module's literal constants; ValueError (or similar) for anything else."""
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    return ast.literal_eval(node)


LITERAL_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


def non_literal_default(function_node, constants):
    """(parameter, source text) of the first default that is not a literal, or None."""
    a = function_node.args
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    pairs += [(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    for arg, default in pairs:
        try:
            literal(default, constants)
        except LITERAL_ERRORS:
            return arg.arg, code_text(default)
    return None


def default_problem(function_node, constants):
    found = non_literal_default(function_node, constants)
    if found is None:
        return None
    return "the default of its parameter %r is not a literal (%s), and is not evaluated" % found


def literal_assignment(node, constants):
    """(name, value node) for NAME = <literal> (or NAME: T = <literal>), else None."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    if not isinstance(target, ast.Name):
        return None
    try:
        literal(value, constants)
    except LITERAL_ERRORS:
        return None
    return target.id, value


def strip_annotations(function_node):
    # Annotations name connector types (torch.Tensor, VllmConfig...); neither
    # the definition nor a call may evaluate them.
    for node in ast.walk(function_node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None:
                    arg.annotation = None
            node.returns = None


def not_loaded(name, reason):
    def stub(*args, **kwargs):
        raise NotLoaded("%s was not loaded: %s" % (name, reason))
    stub.__name__ = name
    return stub


# --- stand-ins -------------------------------------------------------------------

class _Logger:
    """A logger that accepts any method (warning_once, error, ...) and does nothing."""

    def _ignore(self, *args, **kwargs):
        return None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._ignore


# Names connector code uses that no given file defines, by name: the engines'
# parts of the child add theirs (their classes, as small stand-ins).
STAND_INS = {"logger": _Logger()}


# --- source files ---------------------------------------------------------------

class Definition:
    def __init__(self, name, node, problem=None):
        self.name, self.node, self.line, self.problem = name, node, node.lineno, problem


class LoadedClass:
    def __init__(self, cls, lines, problems):
        self.cls, self.lines, self.problems = cls, lines, problems


MODULE_NUMBERS = itertools.count()


def inner_imports(tree):
    """(module, names) of every `from MODULE import NAMES` inside a function body."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and inner.level == 0 and inner.module:
                    found.append((inner.module, tuple(a.name for a in inner.names)))
    return found


class SourceFile:
    """One connector source file: a module of its own, its functions defined,
    its classes kept as syntax until a profile asks for one."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                source = f.read()
        except OSError as e:
            raise LoadError("cannot read %s: %s" % (path, e.strerror or e))
        try:
            tree = ast.parse(source, filename=path)
        except SyntaxError as e:
            raise LoadError("%s:%s: SyntaxError: %s" % (path, e.lineno, e.msg))
        except (ValueError, MemoryError, RecursionError) as e:
            raise LoadError("%s: cannot parse: %s" % (path, e))
        # A module registered with the interpreter: a dataclass looks its
        # module up to read its (postponed) annotations.
        self.module = types.ModuleType("tpcheck_conform_source_%d" % next(MODULE_NUMBERS))
        self.module.__file__ = path
        sys.modules[self.module.__name__] = self.module
        self.namespace = self.module.__dict__
        self.namespace["__builtins__"] = builtins
        self.namespace.update(STAND_INS)
        self.constants = {}
        self.missing = {}  # name an import of an interpreter module would bind -> why it is missing
        self.missing_modules = {}  # the same name -> the module ("numpy")
        self.functions = {}
        self.classes = {}
        self.loaded_classes = {}
        self.inner_imports = inner_imports(tree)
        self.imported = {}  # name bound by a module-level import of a module not installed -> name imported
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.run_import(node)
            assignment = literal_assignment(node, self.constants)
            if assignment is not None:
                name, value = assignment
                self.constants[name] = self.namespace[name] = literal(value, self.constants)
        # In file order: of two definitions of a name, the last one is live.
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.classes.pop(node.name, None)
                self.define_function(node)
            elif isinstance(node, ast.ClassDef):
                self.functions.pop(node.name, None)
                self.classes[node.name] = node

    def run_import(self, node):
        if isinstance(node, ast.ImportFrom):
            if node.level != 0:  # a module of the connector's own package: never installed here
                self.imported.update((a.asname or a.name, a.name) for a in node.names)
                return
            if node.module is None or node.module == "__future__":
                return
            modules = [(node.module, [a.asname or a.name for a in node.names], node)]
        else:
            modules = [(a.name, [a.asname or a.name.split(".")[0]], ast.Import(names=[a])) for a in node.names]
        for module, binds, statement in modules:
            interpreter = module.split(".")[0] in INTERPRETER_MODULES
            if not (interpreter or is_stdlib(module)):
                if isinstance(node, ast.ImportFrom):
                    self.imported.update((a.asname or a.name, a.name) for a in node.names)
                continue
            try:
                exec(compile_source(copy.copy(statement), self.path), self.namespace)
            except Exception as e:  # noqa: BLE001 - a name it would bind stays undefined
                if interpreter:
                    why = "%s (%s:%d), which %s cannot import: %s" % (
                        code_text(node), self.path, node.lineno, sys.executable, e)
                    for name in binds:
                        self.missing[name] = why
                        self.missing_modules[name] = module.split(".")[0]

    def define_function(self, node):
        problem = default_problem(node, self.constants)
        if problem is not None:
            self.functions[node.name] = Definition(node.name, node, problem)
            self.namespace[node.name] = not_loaded(node.name, problem)
            return
        strip_annotations(node)
        definition = Definition(node.name, copy.deepcopy(node))
        # Decorators would need the module's imports; the functions under test
        # are plain functions, so they are defined undecorated.
        node.decorator_list = []
        try:
            exec(compile_source(node, self.path), self.namespace)
        except Exception as e:  # noqa: BLE001
            definition.problem = "defining it failed: %s: %s" % (type(e).__name__, e)
            self.namespace[node.name] = not_loaded(node.name, definition.problem)
        self.functions[node.name] = definition

    def missing_name(self, node):
        """A name `node` uses (or a function of this file that it calls uses)
        that comes from a module the interpreter lacks; else None."""
        seen, pending = set(), [node]
        while pending:
            for n in ast.walk(pending.pop()):
                if not isinstance(n, ast.Name):
                    continue
                if n.id in self.missing:
                    return n.id
                called = self.functions.get(n.id)
                if called is not None and n.id not in seen:
                    seen.add(n.id)
                    pending.append(called.node)
        return None

    def needs_missing(self, node):
        """Why `node` cannot run here (missing_name), or None."""
        name = self.missing_name(node)
        return None if name is None else "it needs " + self.missing[name]

    def load_class(self, name):
        """The whole class (every method), for an instance other code calls."""
        if name not in self.loaded_classes:
            self.loaded_classes[name] = build_class(self, self.classes[name])
        return self.loaded_classes[name]

    def defines(self, name):
        return name in self.functions or name in self.classes

    def value_of(self, name):
        """A top-level definition by name, as code that imports it gets it."""
        if name in self.classes:
            if name not in self.namespace:
                self.namespace[name] = self.load_class(name).cls
            return self.namespace[name]
        if name in self.functions:
            return self.namespace[name]
        raise AttributeError("%s defines no %s" % (self.path, name))

    def define_records(self, nodes):
        """The classes of this file that `nodes` name as globals and nothing
        else defines (records such as a dataclass the code builds), whole."""
        statements = [s for node in nodes for s in getattr(node, "body", [node])]  # not the annotations
        for statement in statements:
            for n in ast.walk(statement):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in self.classes \
                        and n.id not in self.namespace:
                    try:
                        self.value_of(n.id)
                    except Exception:  # noqa: BLE001 - left undefined: the code says so when it runs
                        self.namespace.pop(n.id, None)


def is_dataclass_decorator(decorator, namespace):
    """@dataclass, @dataclasses.dataclass, or either called with literal arguments."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(decorator, ast.Call):
        try:
            for keyword in decorator.keywords:
                ast.literal_eval(keyword.value)
        except LITERAL_ERRORS:
            return False
        if decorator.args:
            return False
    if isinstance(target, ast.Name):
        return namespace.get(target.id) is dataclasses.dataclass
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and \
        namespace.get(target.value.id) is dataclasses and target.attr == "dataclass"


def kept_decorator(decorator, namespace, properties):
    """Whether a decorator is one of Python's own (property and its setter,
    staticmethod, classmethod, functools.cached_property, dataclass): they
    run no connector code, and the code does not work without them."""
    own = (property, staticmethod, classmethod, functools.cached_property)
    if is_dataclass_decorator(decorator, namespace):
        return True
    if isinstance(decorator, ast.Name):
        return namespace.get(decorator.id, getattr(builtins, decorator.id, None)) in own
    if isinstance(decorator, ast.Attribute) and isinstance(decorator.value, ast.Name):
        if decorator.attr in ("setter", "getter", "deleter"):
            return decorator.value.id in properties
        return namespace.get(decorator.value.id) is functools and decorator.attr == "cached_property"
    return False


BUILTIN_FACTORIES = ("list", "dict", "set", "tuple")


def field_default(value, namespace, constants):
    """Whether a class-body default may be compiled: a literal, or a dataclass
    field() whose arguments are literals or a builtin container type."""
    try:
        literal(value, constants)
        return True
    except LITERAL_ERRORS:
        pass
    if not isinstance(value, ast.Call) or value.args:
        return False
    f = value.func
    is_field = (isinstance(f, ast.Name) and namespace.get(f.id) is dataclasses.field) or (
        isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and namespace.get(f.value.id) is dataclasses
        and f.attr == "field")
    if not is_field:
        return False
    for keyword in value.keywords:
        v = keyword.value
        if isinstance(v, ast.Name) and v.id in BUILTIN_FACTORIES:
            continue
        try:
            literal(v, constants)
        except LITERAL_ERRORS:
            return False
    return True


def class_body(source, node, wanted=None):
    """The statements of the copy of class `node`: its methods (only `wanted`
    ones if given), its literal class attributes and its annotated fields.
    Returns (body, lines, problems)."""
    body, lines, problems, properties = [], {}, {}, set()
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if wanted is not None and statement.name not in wanted:
                continue
            lines[statement.name] = statement.lineno
            problem = default_problem(statement, source.constants)
            if problem is not None:
                problems[statement.name] = problem
                continue
            statement = copy.deepcopy(statement)
            strip_annotations(statement)
            statement.decorator_list = [d for d in statement.decorator_list
                                        if kept_decorator(d, source.namespace, properties)]
            if statement.decorator_list:
                properties.add(statement.name)
            body.append(statement)
            continue
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            # A field: its annotation stays a string; a default only when it is safe to evaluate.
            field = copy.deepcopy(statement)
            if field.value is not None and not field_default(field.value, source.namespace, source.constants):
                field.value = None
            body.append(field)
            continue
        assignment = literal_assignment(statement, source.constants)
        if assignment is not None:
            name, value = assignment
            body.append(ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value),
                                          statement))
    return body, lines, problems


def compile_class(source, node, body):
    """The class copy: no bases, only the decorators Python itself provides,
    its methods' globals the file's module."""
    built = copy.copy(node)
    built.bases, built.keywords = [], []
    built.decorator_list = [d for d in node.decorator_list if is_dataclass_decorator(d, source.namespace)]
    built.body = body or [ast.Pass()]
    scope = {}
    exec(compile_source(built, source.path), source.namespace, scope)
    return scope[node.name]


def build_class(source, node):
    """The class of `node` from its methods and literal attributes alone."""
    body, lines, problems = class_body(source, node)
    cls = compile_class(source, node, body)
    for name, problem in problems.items():
        setattr(cls, name, not_loaded("%s.%s" % (node.name, name), problem))
    return LoadedClass(cls, lines, problems)


def self_attributes(node):
    """The names a method reaches as `self.NAME`."""
    names = set()
    first = node.args.posonlyargs + node.args.args
    me = first[0].arg if first else "self"
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == me:
            names.add(n.attr)
    return names


def base_names(node):
    """The names of a class's bases (`Base` or `module.Base`), in order."""
    out = []
    for b in node.bases:
        if isinstance(b, ast.Name):
            out.append(b.id)
        elif isinstance(b, ast.Attribute):
            out.append(b.attr)
    return out


def method_nodes(node):
    return {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


class MethodClass:
    """A method compiled inside a copy of its class that holds only that
    method and the methods it reaches through `self.`, each taken from the
    class or, by name, from its bases in any given file (as Python's method
    resolution would find it), compiled with its own file's globals."""

    def __init__(self, sources, source, class_name, wanted):
        self.lines, self.problems, self.origins, self.unresolved = {}, {}, {}, set()
        node = source.classes[class_name]
        found = {}  # method name -> (source, class node)
        pending = list(wanted)
        while pending:
            name = pending.pop()
            if name in found or name in self.unresolved:
                continue
            hit = find_method(sources, source, node, name, set())
            if hit is None:
                self.unresolved.add(name)
                continue
            found[name] = hit
            pending += self_attributes(method_nodes(hit[1])[name])
        own = {n for n, (s, c) in found.items() if c is node}
        body, lines, problems = class_body(source, node, own)
        self.cls = compile_class(source, node, body)
        self.lines.update(lines)
        self.problems.update(problems)
        by_class = {}
        for name, (s, c) in found.items():
            if c is not node:
                by_class.setdefault((id(c), s), (s, c, set()))[2].add(name)
        for s, c, names in by_class.values():
            body, lines, problems = class_body(s, c, names)
            donor = compile_class(s, c, body)
            for name in names:
                if name in problems:
                    self.problems[name] = problems[name]
                else:
                    setattr(self.cls, name, donor.__dict__[name])
                self.origins[name] = "%s.%s (%s:%d)" % (c.name, name, s.path, lines[name])
        for name, problem in self.problems.items():
            setattr(self.cls, name, not_loaded("%s.%s" % (class_name, name), problem))
        self.nodes = [(s, method_nodes(c)[name]) for name, (s, c) in found.items()]


def find_method(sources, source, node, name, seen):
    """(source, class node) of the first definition of method `name` in the
    class or its bases, depth first, bases looked up by name in the given files."""
    if id(node) in seen:
        return None
    seen.add(id(node))
    if name in method_nodes(node):
        return source, node
    for base in base_names(node):
        for s in [source] + [x for x in sources if x is not source]:
            if base in s.classes:
                hit = find_method(sources, s, s.classes[base], name, seen)
                if hit is not None:
                    return hit
                break
    return None


class ServedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves a module that code under test imports inside a function body
    (`from sglang...staging_buffer import compute_head_slice_params`) from the
    given file that defines every name imported; its parent packages are
    empty. Modules of the standard library and the interpreter's own are left
    alone, and so is any module no given file can stand for."""

    def __init__(self):
        self.modules = {}  # full name -> SourceFile
        self.packages = set()

    def plan(self, sources):
        """Serves what these files' function bodies import (instead of any earlier files')."""
        for name in list(self.modules) + list(self.packages):
            sys.modules.pop(name, None)
        self.modules, self.packages = {}, set()
        for source in sources:
            for module, names in source.inner_imports:
                top = module.split(".")[0]
                if top in INTERPRETER_MODULES or is_stdlib(module) or module in self.modules:
                    continue
                others = [s for s in sources if s is not source] + [source]
                giver = next((s for s in others if all(s.defines(n) for n in names)), None)
                if giver is None:
                    continue
                self.modules[module] = giver
                parts = module.split(".")
                self.packages.update(".".join(parts[:i]) for i in range(1, len(parts)))
        if self.modules and self not in sys.meta_path:
            sys.meta_path.insert(0, self)

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.modules or fullname in self.packages:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname in self.packages)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        giver = self.modules.get(module.__name__)
        if giver is None:
            module.__path__ = []
            return

        def served(name, giver=giver):
            try:
                return giver.value_of(name)
            except AttributeError:
                raise AttributeError("module %r has no attribute %r (tpcheck serves it from %s)" % (
                    module.__name__, name, giver.path)) from None
        module.__getattr__ = served
        module.__file__ = giver.path


SERVED_MODULES = ServedModules()


def link_imports(sources):
    """A name a file imports at module level from its own package (which is
    not installed) is bound to the definition of another given file that
    defines it, as the import would bind it: peer.py's mapper classes from
    block.py. A file's own definitions, and names no given file defines
    (left to the stand-ins, or undefined), are left alone."""
    for source in sources:
        for bound, name in source.imported.items():
            if source.defines(bound):
                continue
            giver = next((s for s in sources if s is not source and s.defines(name)), None)
            if giver is None:
                continue
            try:
                source.namespace[bound] = giver.value_of(name)
            except Exception:  # noqa: BLE001 - left as it was: the code says so when it runs
                pass


def load_sources(paths):
    """The given files, loaded, with the modules their function bodies import
    served from them and their module-level imports of each other linked."""
    sources = [SourceFile(path) for path in paths]
    SERVED_MODULES.plan(sources)
    link_imports(sources)
    return sources


def import_adapter(path):
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)
    try:
        spec = importlib.util.spec_from_file_location("tpcheck_conform_adapter", path)
        if spec is None or spec.loader is None:
            raise LoadError("%s: not a Python module" % path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        if ACTIVE_MUTANT is None:
            spec.loader.exec_module(module)
        else:  # the module's code with the mutant applied (part 1c)
            with open(path, "rb") as f:
                tree = ast.parse(f.read(), filename=path)
            module.__file__ = path
            tree.body = [apply_mutant(statement, path) for statement in tree.body]
            exec(compile(ast.fix_missing_locations(tree), path, "exec"), module.__dict__)
    except LoadError:
        raise
    except FileNotFoundError:
        raise LoadError("cannot read %s: no such file" % path)
    except SyntaxError as e:
        raise LoadError("%s:%s: SyntaxError: %s" % (e.filename or path, e.lineno, e.msg))
    except BaseException as e:  # noqa: BLE001 - an adapter's import may raise anything
        raise LoadError("importing adapter %s failed: %s: %s" % (path, type(e).__name__, e))
    return module
