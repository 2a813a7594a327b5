# tpcheck conform's child process: binds a connector's functions and answers
# calls to them over a line protocol. Standard library only, python3 >= 3.9.
#
# Two ways to bind functions:
#   --source FILE...  take the named top-level functions out of the files'
#                     syntax trees, without running the module (its imports of
#                     vLLM, torch, zmq... never run, annotations are never
#                     evaluated). Each file's other top-level functions, its
#                     top-level literal constants and its imports of standard
#                     library modules are put beside them, because small helper
#                     functions lean on those.
#   --adapter FILE    import a user-written module that exposes the model's
#                     operation names; it may import whatever it likes.
#
# Protocol, one line each way (parent = tpcheck, written in conform/src):
#   child -> parent, once:  "BOUND <name> <where>" or "MISSING <name>" per
#                           requested name, then "READY"; or
#                           "LOADERROR <escaped text>" and exit status 3.
#   parent -> child:        "<seq> <index> <arg>..." (decimal ints, T/F for
#                           booleans), and "." at the end of a batch.
#   child -> parent:        "<seq> V <escaped repr(result)>" or
#                           "<seq> E <exception class> <escaped str(exc)>".
# Escaping: backslash -> \\, newline -> \n, carriage return -> \r.
# Replies are flushed at the end of each batch and at least every 50 ms, so the
# parent can tell a slow batch from a hung one.
import ast
import builtins
import importlib.util
import os
import sys
import sysconfig
import time

FLUSH_INTERVAL = 0.05


def escape(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


class LoadError(Exception):
    pass


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


def strip_annotations(function_node):
    # Annotations name connector types (torch.Tensor, VllmConfig...); strip
    # them from every def inside, so neither definition nor call evaluates them.
    for node in ast.walk(function_node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None:
                    arg.annotation = None
            node.returns = None
    # Decorators would need the module's imports; the functions under test are
    # plain functions, so they are defined undecorated.
    function_node.decorator_list = []


def literal_constant(node):
    """(name, value) for a top-level NAME = <literal> assignment, else None."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    if not isinstance(target, ast.Name):
        return None
    try:
        return target.id, ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def run_stdlib_import(node, namespace, path):
    if isinstance(node, ast.ImportFrom):
        if node.level != 0 or node.module is None or node.module == "__future__" or not is_stdlib(node.module):
            return
    elif not all(is_stdlib(alias.name) for alias in node.names):
        return
    try:
        exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), namespace)
    except Exception:
        pass  # a name it would have bound stays undefined; a call using it says so


def load_source_file(path):
    """Namespace with the file's top-level functions, literal constants and
    standard-library imports, and {name: line} of its top-level functions."""
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
    namespace = {"__builtins__": builtins, "__name__": "tpcheck_conform_source", "__file__": path}
    lines = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            run_stdlib_import(node, namespace, path)
        constant = literal_constant(node)
        if constant is not None:
            namespace[constant[0]] = constant[1]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            strip_annotations(node)
            module = ast.fix_missing_locations(ast.Module(body=[node], type_ignores=[]))
            try:
                exec(compile(module, path, "exec"), namespace)
                lines[node.name] = node.lineno
            except Exception as e:  # e.g. a default value naming a missing constant
                lines[node.name] = LoadError(
                    "%s:%d: defining %s failed: %s: %s" % (path, node.lineno, node.name, type(e).__name__, e))
    return namespace, lines


def bind_sources(paths, names):
    loaded = [(path,) + load_source_file(path) for path in paths]
    bound = {}
    for name in names:
        for path, namespace, lines in loaded:
            if name in lines:
                if isinstance(lines[name], LoadError):
                    raise lines[name]
                bound[name] = (namespace[name], "%s:%d" % (path, lines[name]))
                break
    return bound


def bind_adapter(path, names):
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
    except BaseException as e:
        raise LoadError("importing adapter %s failed: %s: %s" % (path, type(e).__name__, e))
    bound = {}
    for name in names:
        f = getattr(module, name, None)
        if callable(f):
            bound[name] = (f, "%s (adapter)" % path)
    return bound


def parse_args(argv):
    mode, paths, names = None, [], []
    i = 0
    while i < len(argv):
        if argv[i] in ("--source", "--adapter"):
            mode = argv[i]
        elif argv[i] == "--bind" and i + 1 < len(argv):
            names = [n for n in argv[i + 1].split(",") if n]
            i += 1
        else:
            paths.append(argv[i])
        i += 1
    if mode is None or not paths or not names or (mode == "--adapter" and len(paths) != 1):
        raise LoadError("usage: tpcheck_conform_child (--source FILE... | --adapter FILE) --bind NAME,...")
    return mode, paths, names


def answer(function, seq, args):
    try:
        result = function(*args)
    except BaseException as e:  # SystemExit and friends are answers too
        try:
            text = str(e)
        except BaseException:
            text = "<str() of the exception failed>"
        return "%s E %s %s\n" % (seq, type(e).__name__, escape(text))
    try:
        text = repr(result)
    except BaseException as e:
        return "%s E tpcheck.ReprFailed %s\n" % (seq, escape("%s: %s" % (type(e).__name__, e)))
    if "\\" in text or "\n" in text or "\r" in text:
        text = escape(text)
    return "%s V %s\n" % (seq, text)


def serve(functions, protocol_fd):
    pending = []
    last_flush = time.monotonic()

    def flush():
        data = "".join(pending).encode("utf-8", "backslashreplace")
        del pending[:]
        while data:
            data = data[os.write(protocol_fd, data):]

    for raw in sys.stdin.buffer:
        if raw == b".\n":
            flush()
            last_flush = time.monotonic()
            continue
        parts = raw.split()
        seq, index = parts[0].decode(), int(parts[1])
        if b"T" in raw or b"F" in raw:
            args = [True if a == b"T" else False if a == b"F" else int(a) for a in parts[2:]]
        else:
            args = list(map(int, parts[2:]))
        pending.append(answer(functions[index], seq, args))
        now = time.monotonic()
        if now - last_flush >= FLUSH_INTERVAL:
            flush()
            last_flush = now
    flush()


def main():
    # The protocol gets its own copy of stdout; fd 1 then points at stderr, so
    # a function that prints cannot corrupt the replies.
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))

    def say(line):
        os.write(protocol_fd, (line + "\n").encode("utf-8", "backslashreplace"))

    try:
        mode, paths, names = parse_args(sys.argv[1:])
        bound = bind_sources(paths, names) if mode == "--source" else bind_adapter(paths[0], names)
    except LoadError as e:
        say("LOADERROR " + escape(str(e)))
        sys.exit(3)
    functions = []
    for name in names:
        if name in bound:
            say("BOUND %s %s" % (name, escape(bound[name][1])))
            functions.append(bound[name][0])
        else:
            say("MISSING " + name)
            functions.append(None)
    say("READY")
    serve(functions, protocol_fd)


if __name__ == "__main__":
    main()
