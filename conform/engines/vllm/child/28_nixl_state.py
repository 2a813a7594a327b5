# vLLM's part of the child for NIXL's hybrid transfer (after part 2b): the
# driver of kind nixl_state, which makes the calls of one case of SPEC §16.6
# and §16.7 and logs what they answer (conform/engines/vllm/relations_nixl_state.cpp
# reads the log):
#
#   split     (T, model): the split derived for T ranks, per layout:
#               S ds|sd rows widths dtype_size ssm_sizes|-    S ds|sd !Class|message
#             and what shaped the calls: F enum 0|1, F four_shapes 0|1, F asserts_ds 0|1
#   offsets   (T, model): O proj [bytes...]  O local [(offset,bytes)...]  (or O ... !Class|message)
#   remote    (P, D, model): per decode rank d, R d [(offset,bytes)...] (or R d !...;
#             R d split !... where the decode side's split raised);
#             a definition that never compares the ratio, where P > D: F inline 1 and
#             R d inline [(offset,bytes)...], the rule of the workers that read it so
#   worker    (P, D, model): per decode rank d, L d rows (or L d !..., L d split !...), then per
#             prefill rank p of its window, W d p rows (or W d p !...); rows are
#             address,length,device;... Where the worker's methods are not given,
#             F composed <why> and rows made from the split's offsets by SPEC §16.7
#
# The sides' shapes and bytes come from tpcheck (the driver's "sides", from
# lib's layouts); the memory's bases, blocks and request from its "memory".


def node_calls(source, node):
    """`node` and the functions of its file that it calls, by name, transitively."""
    seen, pending, out = set(), [node], []
    while pending:
        n = pending.pop()
        out.append(n)
        for inner in ast.walk(n):
            if isinstance(inner, ast.Name) and inner.id in source.functions and inner.id not in seen:
                seen.add(inner.id)
                pending.append(source.functions[inner.id].node)
    return out


def mentions(nodes, name):
    return any(isinstance(n, ast.Name) and n.id == name or isinstance(n, ast.Attribute) and n.attr == name
               for node in nodes for n in ast.walk(node))


def names_shapes(node):
    """<...>.shapes, or a name of them (shapes = mamba_spec.shapes)."""
    return isinstance(node, ast.Attribute) and node.attr == "shapes" or isinstance(node, ast.Name) and \
        node.id == "shapes"


def dispatches_on_four_shapes(nodes):
    """A comparison of len(<...>.shapes) with 4."""
    for node in nodes:
        for n in ast.walk(node):
            if not isinstance(n, ast.Compare):
                continue
            parts = [n.left] + list(n.comparators)
            has_len = any(isinstance(p, ast.Call) and isinstance(p.func, ast.Name) and p.func.id == "len" and p.args
                          and names_shapes(p.args[0]) for p in parts)
            if has_len and any(isinstance(p, ast.Constant) and p.value == 4 for p in parts):
                return True
    return False


def asserts_dim_first(nodes):
    return any(isinstance(n, ast.Assert) and mentions([n.test], "is_conv_state_dim_first")
               for node in nodes for n in ast.walk(node))


def compares(node, parameter):
    """Whether the function compares its parameter with anything."""
    return any(isinstance(n, ast.Compare) and mentions([n], parameter) for n in ast.walk(node))


def field(record, *names):
    """The first of the record's fields that it has, called when it is a method."""
    for name in names:
        if hasattr(record, name):
            value = getattr(record, name)
            return value() if callable(value) else value
    raise AttributeError("%s has none of %s" % (type(record).__name__, ", ".join(names)))


def widths_of(split):
    """The segments' local widths: local_proj_dims, or x_local and b_local (B and C)."""
    if hasattr(split, "local_proj_dims"):
        return split.local_proj_dims
    b = split.b_local
    return (split.x_local, b, b)


def proj_bytes_of(split):
    """proj_bytes, or x_bytes() and b_bytes() (B and C)."""
    if hasattr(split, "proj_bytes"):
        return field(split, "proj_bytes")
    b = field(split, "b_bytes")
    return (field(split, "x_bytes"), b, b)


def rows_text(rows):
    """Descriptor rows (address, length, device), ; between rows."""
    return ";".join(values_text(row) for row in rows) or "-"


class NixlStateDriver:
    """One case of NIXL's hybrid transfer: its split, the offsets it reads, or
    the worker's descriptors (the driver's `part`)."""

    SPLITS = ("derive_mamba_conv_split", "derive_conv_decomp")
    RECORDS = ("MambaConvSplitInfo", "ConvDecomp")
    WORKERS = ("NixlConnectorWorker",)

    @staticmethod
    def extra_methods(spec, driver):
        return []

    @classmethod
    def bind(cls, spec, target, driver, sources):
        return cls(spec, target, driver, sources)

    def __init__(self, spec, target, driver, sources):
        self.part, self.sides, self.configs = driver["part"], driver["sides"], driver["configs"]
        self.memory, self.dtypes = driver["memory"], driver["dtypes"]
        self.params = spec["params"]
        self.derive = target.function
        source = next(s for s in sources if s.namespace is target.namespace)
        nodes = node_calls(source, source.functions[target.qualname].node)
        self.enum = mentions(nodes, "MambaAttentionBackendEnum") or "MambaAttentionBackendEnum" in source.imported
        self.four_shapes = dispatches_on_four_shapes(nodes)
        self.asserts_ds = asserts_dim_first(nodes)
        self.record = find_class(list(self.RECORDS), sources)
        self.worker, self.composed, self.inline = None, None, False
        if self.part == "worker":
            self.bind_worker(spec, target, sources)
        if self.part == "offsets":
            self.bind_record(target, ["local_conv_offsets"], True)
        elif self.part == "remote" or self.composed:
            self.bind_record(target, ["local_conv_offsets", "remote_conv_offsets"], self.part == "remote")

    def bind_record(self, target, methods, rename):
        """The split's record class, which must have `methods`; the report
        names the last of them (`rename`)."""
        if self.record is None:
            raise Unbound("%s (%s) makes a record of none of the classes %s in the given files" % (
                target.qualname, target.where, ", ".join(self.RECORDS)))
        source, name = self.record
        node = source.classes[name]
        found = None
        for wanted in methods:
            found = method_nodes(node).get(wanted)
            if found is None:
                raise Unbound("%s (%s:%d) has no %s%s" % (name, source.path, node.lineno, wanted,
                                                           "; " + self.composed if self.composed else ""))
        if "remote_conv_offsets" in methods:
            self.inline = not compares(found, self.remote_ratio_name(found))
        if rename:
            target.qualname, target.where = "%s.%s" % (name, methods[-1]), "%s:%d" % (source.path, found.lineno)

    @staticmethod
    def remote_ratio_name(node):
        names = [a.arg for a in node.args.posonlyargs + node.args.args]
        return names[2] if len(names) > 2 else "tp_ratio"

    def bind_worker(self, spec, target, sources):
        """The worker's two methods; without them the rows are composed (SPEC §16.7)."""
        worker_spec = dict(spec, attributes=[])
        bound, why = bind_method(worker_spec, sources, list(self.WORKERS), ["_build_mamba_remote"],
                                 ["_build_mamba_local"])
        if bound is None:
            for source in sources:  # the note names files, not where they lie
                why = why.replace(source.path, os.path.basename(source.path))
            self.composed = "the rows are composed from %s's offsets and SPEC §16.7's rule: %s" % (
                target.qualname, why)
            return
        self.worker = bound.cls
        remote = getattr(object.__new__(bound.cls), "_build_mamba_remote")
        local = getattr(object.__new__(bound.cls), "_build_mamba_local")
        self.local_call = compile(call_of([{"name": "base_addresses", "value": "_bases", "optional": False, "when": ""},
                                           {"name": "block_size_ratio", "value": "1", "optional": False, "when": ""}],
                                          local), "<tpcheck _build_mamba_local>", "eval")
        self.remote_call = compile(call_of([{"name": "nixl_agent_meta", "value": "_meta", "optional": False, "when": ""},
                                            {"name": "tp_ratio", "value": "_ratio", "optional": False, "when": ""},
                                            {"name": "transfer_info", "value": "_info", "optional": False, "when": ""}],
                                           remote), "<tpcheck _build_mamba_remote>", "eval")
        target.qualname, target.where = bound.qualname, bound.where

    # --- the inputs -------------------------------------------------------------

    def side(self, model, T):
        return self.sides["%d,%d" % (model, T)]

    def spec(self, model, T, dim_first):
        """The MambaSpec of T ranks of a configuration, its conv shape as the layout keeps it."""
        family, dims = self.configs[model]
        side = self.side(model, T)
        L, C, heads = side["rows"], side["c_loc"], side["h_loc"]
        # SPEC §16.6's SSM shapes: (H/T, P_h, N), (Hv/T, dv, dk), (H/T, Dh, Dh), (I/T, N).
        if family == "mamba2":
            ssm = (heads, dims[1], dims[3])
        elif family == "gdn":
            ssm = (heads, dims[3], dims[1])
        else:
            ssm = (heads,) + (dims[1],) * (2 if family == "kda" else 1)
        member, name = {"mamba2": ("MAMBA2", "mamba2"), "gdn": ("GDN_ATTN", "gdn_attention"),
                        "kda": ("GDN_ATTN", "gdn_attention"), "mamba1": ("MAMBA1", "mamba1")}[family]
        conv_dtype, ssm_dtype = TORCH_DTYPES[self.dtypes["conv"]], TORCH_DTYPES[self.dtypes["ssm"]]

        def conv(width):
            return (width, L) if dim_first else (L, width)

        if family == "kda" and self.four_shapes:
            shapes = tuple(conv(w) for w in side["local_widths"]) + (ssm,)
            dtypes = (conv_dtype,) * 3 + (ssm_dtype,)
        else:
            shapes, dtypes = (conv(C), ssm), (conv_dtype, ssm_dtype)
        kind = getattr(MambaAttentionBackendEnum, member) if self.enum else name
        return MambaSpec(shapes=shapes, dtypes=dtypes, mamba_type=kind, block_size=16)

    def split(self, model, T, dim_first=True):
        CONV_LAYOUT["dim_first"] = dim_first
        try:
            return self.derive(self.spec(model, T, dim_first), T)
        finally:
            CONV_LAYOUT["dim_first"] = True

    def bases(self, side, rank):
        m = self.memory
        first = m["base"][side] + rank * m["rank_stride"]
        return [first + i * m["region_stride"] for i in range(len(m["layers"]))]

    # --- the parts ----------------------------------------------------------------

    def __call__(self, *case):
        v = dict(zip(self.params, case))
        log = []
        getattr(self, "run_" + self.part)(v, log.append)
        return "\n".join(log)

    def run_split(self, v, log):
        log("F enum %d" % self.enum)
        log("F four_shapes %d" % self.four_shapes)
        log("F asserts_ds %d" % self.asserts_ds)
        layout = ("ds", "sd")[v["layout"]]
        try:
            s = self.split(v["model"], v["T"], layout == "ds")
            sizes = getattr(s, "ssm_sizes", None)
            log("S %s %s %s %s %s" % (layout, ints_text(s.conv_rows), ints_text(tuple(widths_of(s))),
                                      ints_text(s.conv_dtype_size), "-" if sizes is None else ints_text(sizes)))
        except BaseException as e:  # noqa: BLE001 - what it raised is the outcome
            log("S %s !%s" % (layout, exception_text(e)))

    def run_offsets(self, v, log):
        try:
            s = self.split(v["model"], v["T"])
        except BaseException as e:  # noqa: BLE001
            log("O split !%s" % exception_text(e))
            return
        for what, read in (("proj", proj_bytes_of), ("local", lambda r: field(r, "local_conv_offsets"))):
            try:
                log("O %s %s" % (what, ints_text(tuple(read(s)))))
            except BaseException as e:  # noqa: BLE001
                log("O %s !%s" % (what, exception_text(e)))

    def ratio(self, P, D):
        return D // P if D >= P else -(P // D)

    def decode_splits(self, tag, model, D, log):
        """(d, the split of d's side) for every decode rank; where the split
        raises (a family refused), the line "TAG d split !..." instead."""
        for d in range(D):
            try:
                s = self.split(model, D)
            except BaseException as e:  # noqa: BLE001 - what it raised is the outcome
                log("%s %d split !%s" % (tag, d, exception_text(e)))
                continue
            yield d, s

    def run_remote(self, v, log):
        P, D, model = v["P"], v["D"], v["model"]
        ratio = self.ratio(P, D)
        inline = self.inline and ratio < 0
        if inline:
            log("F inline 1")
        remote_conv = self.side(model, P)["conv_bytes"]
        for d, s in self.decode_splits("R", model, D, log):
            try:
                if inline:
                    log("R %d inline %s" % (d, ints_text(tuple(self.inline_offsets(s, -ratio)))))
                    continue
                rows = self.call_remote(s, d % max(ratio, 1), ratio, remote_conv)
                log("R %d %s" % (d, ints_text(tuple(rows))))
            except BaseException as e:  # noqa: BLE001
                log("R %d !%s" % (d, exception_text(e)))

    @staticmethod
    def inline_offsets(split, k):
        """The rule of the workers whose split only knows ratios >= 1: each
        segment's bytes over k, at cumulative offsets."""
        out, start = [], 0
        for size in proj_bytes_of(split):
            out.append((start, size // k))
            start += size // k
        return out

    @staticmethod
    def call_remote(split, offset, ratio, remote_conv):
        method = split.remote_conv_offsets
        args = [{"name": "local_rank_offset", "value": "_offset", "optional": False, "when": ""},
                {"name": "tp_ratio", "value": "_ratio", "optional": False, "when": ""},
                {"name": "remote_conv_bytes", "value": "_remote", "optional": True, "when": ""}]
        env = {"_f": method, "_offset": offset, "_ratio": ratio, "_remote": remote_conv, "__builtins__": builtins}
        return eval(call_of(args, method), env)

    def run_worker(self, v, log):
        P, D, model = v["P"], v["D"], v["model"]
        ratio = self.ratio(P, D)
        if self.composed:
            log("F composed " + escape_line(self.composed))
        mine, theirs = self.side(model, D), self.side(model, P)
        m = self.memory
        for d, s in self.decode_splits("L", model, D, log):
            try:
                worker = self.make_worker(s, d, mine) if self.worker else None
                rows = self.local_rows(worker, s, d, mine)
            except BaseException as e:  # noqa: BLE001
                log("L %d !%s" % (d, exception_text(e)))
                continue
            log("L %d %s" % (d, rows_text(rows)))
            window = [d // ratio] if ratio >= 1 else [d * -ratio + j for j in range(-ratio)]
            for p in window:
                try:
                    meta = record("NixlAgentMetadata", ssm_sizes=(theirs["conv_bytes"], theirs["ssm_bytes"]),
                                  num_blocks=m["slots"]["P"], device_id=p, kv_caches_base_addr=self.bases("P", p),
                                  block_lens=[theirs["page_bytes"]] * len(m["layers"]))
                    rows = self.remote_rows(worker, s, d, ratio, meta, mine)
                except BaseException as e:  # noqa: BLE001
                    log("W %d %d !%s" % (d, p, exception_text(e)))
                    continue
                log("W %d %d %s" % (d, p, rows_text(rows)))

    def make_worker(self, split, d, mine):
        worker = object.__new__(self.worker)
        strides = [mine["page_bytes"]] * len(self.memory["layers"])
        worker.__dict__.update(_conv_decomp=split, _mamba_ssm_size=(mine["conv_bytes"], mine["ssm_bytes"]),
                               _logical_num_blocks=self.memory["slots"]["D"], _physical_blocks_per_logical_kv_block=1,
                               block_len_per_layer=strides, block_stride_per_layer=strides, device_id=d, tp_rank=d)
        return worker

    def local_rows(self, worker, split, d, mine):
        bases = self.bases("D", d)
        if worker is not None:
            return eval(self.local_call, {"_f": worker._build_mamba_local, "_bases": bases, "__builtins__": builtins})
        rows, blocks, stride = [], self.memory["slots"]["D"], mine["page_bytes"]
        for base in bases:
            for offset, size in field(split, "local_conv_offsets"):
                rows += [(base + b * stride + offset, size, d) for b in range(blocks)]
            rows += [(base + b * stride + mine["conv_bytes"], mine["ssm_bytes"], d) for b in range(blocks)]
        return rows

    def remote_rows(self, worker, split, d, ratio, meta, mine):
        if worker is not None:
            info = record("EngineTransferInfo", remote_physical_blocks_per_logical=1)
            return eval(self.remote_call, {"_f": worker._build_mamba_remote, "_meta": meta, "_ratio": ratio,
                                           "_info": info, "__builtins__": builtins})
        offset = d % max(ratio, 1)
        remote_conv, remote_ssm = meta.ssm_sizes
        if ratio < 0 and self.inline:
            conv = self.inline_offsets(split, -ratio)
        else:
            conv = self.call_remote(split, offset, ratio, remote_conv)
        # SPEC §16.7: this rank's SSM bytes for a ratio >= 1, else the prefill rank's.
        ssm = mine["ssm_bytes"] if ratio >= 1 else remote_ssm
        rows = []
        for i, base in enumerate(meta.kv_caches_base_addr):
            stride = meta.block_lens[i]
            for off, size in conv:
                rows += [(base + b * stride + off, size, meta.device_id) for b in range(meta.num_blocks)]
            rows += [(base + b * stride + remote_conv + offset * ssm, ssm, meta.device_id)
                     for b in range(meta.num_blocks)]
        return rows


DRIVERS["nixl_state"] = NixlStateDriver
