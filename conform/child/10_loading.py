# tpcheck conform's Python child (conform/child/*.py, joined in file-name
# order into one program that tpcheck runs with `python3 -I -c`; standard
# library only, python3 >= 3.9).
#
# Part 1: loading connector code without running it. A source file is parsed
# with `ast`; nothing at module level runs except imports of standard-library
# modules and of numpy (the interpreter's own), and `NAME = <literal>`
# constants. Functions are compiled without annotations and decorators, and
# only when every default is a literal (a default is evaluated when a
# function is defined). A class is built from its methods and literal
# attributes alone, without bases, decorators or annotations; an instance of
# it is made without running its constructor. The vLLM names connector code
# uses (KV cache spec classes, NIXL's TPMapping record, Mooncake's
# TransferRegion, a logger) are small stand-ins.
import ast
import builtins
import copy
import functools
import importlib.util
import os
import sys
import sysconfig


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


# --- stand-ins for the vLLM names connector code uses -------------------------

class KVCacheSpec:
    """Stand-in for vllm.v1.kv_cache_interface.KVCacheSpec (and its family below)."""


class AttentionSpec(KVCacheSpec):
    pass


class FullAttentionSpec(AttentionSpec):
    pass


class MLAAttentionSpec(FullAttentionSpec):
    pass


class SlidingWindowSpec(AttentionSpec):
    pass


class SlidingWindowMLASpec(SlidingWindowSpec):
    pass


class ChunkedLocalAttentionSpec(AttentionSpec):
    pass


class MambaSpec(KVCacheSpec):
    pass


class _Record:
    """A record that keeps the fields it is given, by position or by name."""
    FIELDS = ()

    def __init__(self, *args, **fields):
        self.__dict__.update(zip(self.FIELDS, args))
        self.__dict__.update(fields)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % kv for kv in self.__dict__.items()))


class TPMapping(_Record):
    """Stand-in for NIXL's mapping record."""
    FIELDS = ("source_ranks_per_group", "all_source_ranks", "rank_to_attention_slot", "rank_offset_factor",
              "local_consumers")


class TransferRegion(_Record):
    """Stand-in for Mooncake's registered KV region."""
    FIELDS = ("base_addr", "block_len", "kv_block_len")


class _Logger:
    def _ignore(self, *args, **kwargs):
        return None

    debug = info = warning = warn = error = exception = critical = info_once = warning_once = debug_once = _ignore


STAND_INS = {cls.__name__: cls for cls in (
    KVCacheSpec, AttentionSpec, FullAttentionSpec, MLAAttentionSpec, SlidingWindowSpec, SlidingWindowMLASpec,
    ChunkedLocalAttentionSpec, MambaSpec, TPMapping, TransferRegion)}
STAND_INS["logger"] = _Logger()


# --- source files ---------------------------------------------------------------

class Definition:
    def __init__(self, name, node, problem=None):
        self.name, self.node, self.line, self.problem = name, node, node.lineno, problem


class LoadedClass:
    def __init__(self, cls, lines, problems):
        self.cls, self.lines, self.problems = cls, lines, problems


class SourceFile:
    """One connector source file: its functions defined, its classes kept as
    syntax until a profile asks for one."""

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
        self.namespace = {"__builtins__": builtins, "__name__": "tpcheck_conform_source", "__file__": path}
        self.namespace.update(STAND_INS)
        self.constants = {}
        self.missing = {}  # name an import of an interpreter module would bind -> why it is missing
        self.functions = {}
        self.classes = {}
        self.loaded_classes = {}
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.run_import(node)
            assignment = literal_assignment(node, self.constants)
            if assignment is not None:
                name, value = assignment
                self.constants[name] = self.namespace[name] = literal(value, self.constants)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.define_function(node)
            elif isinstance(node, ast.ClassDef):
                self.classes[node.name] = node

    def run_import(self, node):
        if isinstance(node, ast.ImportFrom):
            if node.level != 0 or node.module is None or node.module == "__future__":
                return
            modules = [(node.module, [a.asname or a.name for a in node.names], node)]
        else:
            modules = [(a.name, [a.asname or a.name.split(".")[0]], ast.Import(names=[a])) for a in node.names]
        for module, binds, statement in modules:
            interpreter = module.split(".")[0] in INTERPRETER_MODULES
            if not (interpreter or is_stdlib(module)):
                continue
            try:
                exec(compile(ast.fix_missing_locations(ast.Module(body=[copy.copy(statement)], type_ignores=[])),
                             self.path, "exec"), self.namespace)
            except Exception as e:  # noqa: BLE001 - a name it would bind stays undefined
                if interpreter:
                    why = "%s (%s:%d), which %s cannot import: %s" % (
                        code_text(node), self.path, node.lineno, sys.executable, e)
                    for name in binds:
                        self.missing[name] = why

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
            exec(compile(ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[])), self.path, "exec"),
                 self.namespace)
        except Exception as e:  # noqa: BLE001
            definition.problem = "defining it failed: %s: %s" % (type(e).__name__, e)
            self.namespace[node.name] = not_loaded(node.name, definition.problem)
        self.functions[node.name] = definition

    def needs_missing(self, node):
        """Why `node` cannot run here: a name it uses (or a function of this file
        that it calls uses) comes from a module the interpreter lacks; else None."""
        seen, pending = set(), [node]
        while pending:
            for n in ast.walk(pending.pop()):
                if not isinstance(n, ast.Name):
                    continue
                if n.id in self.missing:
                    return "it needs " + self.missing[n.id]
                called = self.functions.get(n.id)
                if called is not None and n.id not in seen:
                    seen.add(n.id)
                    pending.append(called.node)
        return None

    def load_class(self, name):
        if name not in self.loaded_classes:
            self.loaded_classes[name] = build_class(self, self.classes[name])
        return self.loaded_classes[name]


def kept_decorator(decorator, namespace, properties):
    """Whether a method decorator is one of Python's own (property and its
    setter, staticmethod, classmethod, functools.cached_property): they run
    no connector code, and the methods do not work without them."""
    own = (property, staticmethod, classmethod, functools.cached_property)
    if isinstance(decorator, ast.Name):
        return namespace.get(decorator.id, getattr(builtins, decorator.id, None)) in own
    if isinstance(decorator, ast.Attribute) and isinstance(decorator.value, ast.Name):
        if decorator.attr in ("setter", "getter", "deleter"):
            return decorator.value.id in properties
        return namespace.get(decorator.value.id) is functools and decorator.attr == "cached_property"
    return False


def build_class(source, node):
    """The class of `node` from its methods and literal attributes alone."""
    body, lines, problems, properties = [], {}, {}, set()
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines[statement.name] = statement.lineno
            problem = default_problem(statement, source.constants)
            if problem is not None:
                problems[statement.name] = problem
                continue
            strip_annotations(statement)
            statement.decorator_list = [d for d in statement.decorator_list
                                        if kept_decorator(d, source.namespace, properties)]
            if statement.decorator_list:
                properties.add(statement.name)
            body.append(statement)
            continue
        assignment = literal_assignment(statement, source.constants)
        if assignment is not None:
            name, value = assignment
            body.append(ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value),
                                          statement))
    built = copy.copy(node)
    built.bases, built.keywords, built.decorator_list = [], [], []
    built.body = body or [ast.Pass()]
    exec(compile(ast.fix_missing_locations(ast.Module(body=[built], type_ignores=[])), source.path, "exec"),
         source.namespace)
    cls = source.namespace[node.name]
    for name, problem in problems.items():
        setattr(cls, name, not_loaded("%s.%s" % (node.name, name), problem))
    return LoadedClass(cls, lines, problems)


def import_adapter(path):
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)
    try:
        spec = importlib.util.spec_from_file_location("tpcheck_conform_adapter", path)
        if spec is None or spec.loader is None:
            raise LoadError("%s: not a Python module" % path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    except LoadError:
        raise
    except FileNotFoundError:
        raise LoadError("cannot read %s: no such file" % path)
    except SyntaxError as e:
        raise LoadError("%s:%s: SyntaxError: %s" % (e.filename or path, e.lineno, e.msg))
    except BaseException as e:  # noqa: BLE001 - an adapter's import may raise anything
        raise LoadError("importing adapter %s failed: %s: %s" % (path, type(e).__name__, e))
    return module
