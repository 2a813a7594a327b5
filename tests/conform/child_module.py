"""tpcheck conform's Python child as a module, and its --record files, for the
tests and the benchmark (standard library only).

load_child() takes the program tpcheck runs (`tpcheck conform --print-child`:
the parts of conform's child/ and of each engine's, joined in file-name order)
and executes it as a module (its main() does not run). read_record() reads a --record file: the bindings
the child received and every function's cases with their outcomes.
"""
import json
import subprocess
import sys
import types


def load_child(tpcheck):
    source = subprocess.run([tpcheck, "conform", "--print-child"], stdout=subprocess.PIPE, check=True,
                            text=True, timeout=60).stdout
    module = types.ModuleType("tpcheck_conform_child")
    module.__file__ = "tpcheck_conform_child"
    sys.modules[module.__name__] = module
    exec(compile(source, "tpcheck_conform_child", "exec"), module.__dict__)
    return module


def unescape_outcome(text):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            i += 1
            c = {"n": "\n", "r": "\r", "t": "\t"}.get(text[i], text[i])
        out.append(c)
        i += 1
    return "".join(out)


class Record:
    def __init__(self, path):
        self.signature, self.bindings, self.cases = None, [], {}
        name = None
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("# bindings "):
                    self.bindings = json.loads(line[len("# bindings "):])["bindings"]
                elif line.startswith("# ") and self.signature is None and not line.startswith("# tpcheck"):
                    self.signature = line[2:]
                elif line.startswith("#"):
                    continue
                elif line.startswith("@ "):
                    name = line[2:]
                    self.cases[name] = []
                else:
                    args, outcome = line.split("\t", 1)
                    self.cases[name].append(([int(a) for a in args.split(",")], unescape_outcome(outcome)))

    def spec(self, name):
        return next(b for b in self.bindings if b["name"] == name)


def flag_positions(spec):
    """Arguments the child passes as booleans (the MLA flag)."""
    return [i for i, p in enumerate(spec["params"]) if p == "MLA"]


def read_record(path):
    return Record(path)


def plain_loop_source(target):
    """A loop making exactly the child's call of each case, and rendering its
    value as the child does, with nothing else: no ids, no reporting."""
    names = target.spec["params"]
    lines = ["def _plain(_cases):",
             "    for (%s,) in _cases:" % ", ".join(names)]
    body = []
    if target.setup:
        body.append(target.setup)
    body += ["try:", "    _r = " + target.call, "except BaseException as _e:", "    str(_e)", "else:",
             "    _render(_r)"]
    lines += ["        " + b for b in body]
    return "\n".join(lines) + "\n"


def call_scope(child, target):
    """The names a shaped call uses, as the child's loop has them."""
    return child.runner_scope(target)


def make_plain_loop(child, target):
    scope = call_scope(child, target)
    exec(compile(plain_loop_source(target), "<plain loop>", "exec"), scope)
    return scope["_plain"]


def make_caller(child, target):
    """outcome(args): the child's rendering of one call ("repr", or "Class: message")."""
    scope = call_scope(child, target)
    names = target.spec["params"]
    source = "def _one(%s):\n" % ", ".join(names)
    if target.setup:
        source += "    %s\n" % target.setup
    source += "    return %s\n" % target.call
    exec(compile(source, "<one call>", "exec"), scope)
    one, render = scope["_one"], scope["_render"]
    flags = flag_positions(target.spec)

    def outcome(args):
        args = [bool(a) if i in flags else a for i, a in enumerate(args)]
        try:
            value = one(*args)
        except BaseException as e:  # noqa: BLE001 - every exception is an outcome here
            cls, text = child.outcome_of_exception(e)
            return "%s: %s" % (cls.__name__, text), cls.__name__
        return render(value), None
    return outcome


def bind_all(child, bindings, files):
    """{name: Target} for the bindings found in the files, as the child binds them."""
    sources = child.load_sources(files)
    out = {}
    for spec in bindings:
        target, _ = child.bind(spec, sources)
        if target is not None:
            out[spec["name"]] = target
    return out
