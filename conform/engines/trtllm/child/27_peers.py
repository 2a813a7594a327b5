# Part 2c: TensorRT-LLM's Python transceiver (SPEC §15.1). The names its
# peer registry and block mappers use, as stand-ins written from the SPEC, and
# the driver that runs one deployment: every rank's registrar built with its
# real constructor, the registrations, both sides' overlaps and the block
# maps, logged as lines tpcheck judges (conform/engines/trtllm/relations_peers.cpp):
#
#   R side self peer probe ok|!Class|message   register() of a peer (probe:
#                                              valid, cp, mla_heads)
#   G gen ranks dup peer_dup | G gen !...      the gen rank's get_peer_overlap
#   X ctx gen ranks dup peer_dup | X ctx gen !...  the ctx rank's, per asking gen rank
#   M ctx gen length srcs dsts | M ctx gen none | M ctx gen !...
#                                              get_kv_map(gen).map(src, dst): each
#                                              pair's copies, ctx to gen
#   M ctx gen skip mapper module               get_kv_map chose a block mapper
#                                              that needs a module this Python lacks
#
# Ranks are global (stage * T + TP rank). Whether a ctx rank sends is the
# selection rule, which tpcheck applies (the rule's file imports CUDA).


class RegionMapperBase:
    """Stand-in for the block mappers' base class: empty."""


class MemRegionGroup:
    """Stand-in: base pointers of equal-sized regions."""

    def __init__(self, ptrs, bytes_per_region):
        self.ptrs, self.bytes_per_region = ptrs, bytes_per_region


class SpecRegion:
    def __init__(self, memory, spec=None):
        self.memory, self.spec = memory, spec


class SpecRegionPair:
    def __init__(self, src, dst):
        self.src, self.dst = src, dst


class KVRegionExtractorV1:
    """Stand-in: keeps the pool attributes, nothing else."""

    def __init__(self, kv_pool_attrs, *args, **kwargs):
        self.kv_pool_attrs = kv_pool_attrs


class AttentionInfo(types.SimpleNamespace):
    """The attention fields newer versions nest in RankInfo.attention."""

    @property
    def tp_size_per_dp_group(self):
        return self.tp_size // self.dp_size if self.enable_attention_dp else self.tp_size


class RankInfo(AttentionInfo):
    """Stand-in: a plain record with the flat fields of its era, the nested
    `attention` of newer versions, and the derived properties."""

    @property
    def kv_factor(self):
        return 1 if self.is_mla else 2


STAND_INS.update({cls.__name__: cls for cls in (
    RegionMapperBase, MemRegionGroup, SpecRegion, SpecRegionPair, KVRegionExtractorV1, RankInfo)})


# The block mappers get_kv_map chooses from (HeadMismatchMapper needs numpy).
MAPPERS = ("IdentityMapper", "HeadMatchMapper", "HeadMismatchMapper")


class MapperCannotRun(BaseException):
    """Raised instead of making a block mapper that needs a module this
    interpreter lacks (not an Exception: the code under test must not catch
    it); the deployments whose get_kv_map chooses it are skipped, not judged."""

    def __init__(self, mapper, module):
        super().__init__(mapper, module)
        self.mapper, self.module = mapper, module


def refuse_to_run(cls, module):
    """Makes constructing `cls` raise MapperCannotRun."""
    def refused(self, *args, **kwargs):
        raise MapperCannotRun(cls.__name__, module)
    cls.__init__ = refused


def digits_split(code):
    """A stage split written as the digits of one number (13: 1 layer, then 3)."""
    return [int(c) for c in str(code)]


class Side:
    """One engine of a deployment (ctx or gen): its TP size, stage layer
    counts, attention DP, and where its ranks' blocks lie."""

    def __init__(self, name, T, layers, adp, H, mla, layout):
        self.name, self.T, self.layers, self.adp, self.mla = name, T, layers, adp, mla
        self.S = len(layers)
        self.heads = 1 if mla else (H if adp else max(1, H // T))
        self.layout = layout
        self.base = layout["base"][name]

    def rank_info(self, s, t, **changed):
        lo = sum(self.layers[:s])
        ids = list(range(lo, lo + self.layers[s]))
        pool = record("KVPoolAttrs", layer_group_attrs_list=[record("LayerGroupAttrs", group_id=0, global_layer_ids=ids)],
                      layer_to_group_id={layer: 0 for layer in ids})
        dp_size, dp_rank = (self.T, t) if self.adp else (1, 0)
        fields = dict(tp_size=self.T, tp_rank=t, dp_size=dp_size, dp_rank=dp_rank, cp_size=1, cp_rank=0,
                      enable_attention_dp=bool(self.adp))
        fields.update({k: v for k, v in changed.items() if k in fields})
        flat = dict(fields, instance_name=self.name, instance_rank=s * self.T + t, pp_size=self.S, pp_rank=s,
                    kv_heads_per_rank=self.heads, tokens_per_block=self.layout["tokens"],
                    dims_per_head=self.layout["dims"], element_bytes=self.layout["element_bytes"],
                    is_mla=bool(self.mla), layer_num_per_pp=list(self.layers), kv_pool_attrs=pool,
                    attention=AttentionInfo(**fields))
        flat.update(changed)
        return RankInfo(**flat)

    def blocks(self, rank):
        """The rank's request blocks: base pointers with gaps between them, and their size."""
        start = self.base + rank * self.layout["rank_stride"]
        size = self.layers[rank // self.T] * (1 if self.mla else 2) * self.heads * \
            self.layout["tokens"] * self.layout["dims"] * self.layout["element_bytes"]
        return [start + i * self.layout["block_stride"] for i in range(self.layout["blocks"])], size


def constructor_args(cls, *values):
    """The first values, as many as the constructor takes besides self."""
    try:
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return values
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return values
    return values[:len([p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])]


def overlap_text(overlap):
    return "%s %s %s" % (values_text(overlap.ranks), value_text(overlap.duplicate_head_factor),
                         value_text(overlap.peer_duplicate_head_factor))


def integers(values):
    """The values that are integers (a rank that is not one is judged from the log)."""
    out = []
    for v in values:
        try:
            out.append(operator.index(v))
        except TypeError:
            pass
    return out


def pairs_of(mapped):
    """map()'s answer: one region pair, or several."""
    if hasattr(mapped, "src") and hasattr(mapped, "dst"):
        return [mapped]
    return list(mapped)


class PeerDriver:
    """One deployment of TensorRT-LLM's transceiver v2, up to `part`
    (compatible: registrations; overlap: and both sides' overlaps; kv_map:
    and the block maps of every pair a gen rank asks)."""

    @staticmethod
    def extra_methods(spec, driver):
        """The methods the deployment calls besides the bound one."""
        return [m for m in driver["needs"] if m not in spec["methods"]]

    @classmethod
    def bind(cls, spec, target, driver, sources):
        return cls(target, driver, sources)

    def __init__(self, target, driver, sources):
        self.layout, self.part = driver["layout"], driver["part"]
        self.params = target.spec["params"]
        if self.part == "kv_map":
            found = {mapper: find_class([mapper], sources) for mapper in MAPPERS}
            if not any(found.values()):
                raise Unshapeable("get_kv_map chooses one of the block mappers %s, which no given file defines "
                                  "(give block.py with peer.py)" % ", ".join(MAPPERS))
            # A mapper that needs a module this interpreter lacks (numpy) is
            # not run: the deployments that choose it are skipped, the others
            # judged. With no mapper that can run, nothing can be.
            problems = []
            for mapper, where in found.items():
                if not where:
                    continue
                source, node = where[0], where[0].classes[mapper]
                name = source.missing_name(node)
                if name is not None:
                    problems.append("%s (%s:%d) %s" % (mapper, source.path, node.lineno, source.needs_missing(node)))
                    try:
                        refuse_to_run(source.value_of(mapper), source.missing_modules[name])
                    except Exception:  # noqa: BLE001 - a class that cannot be made fails where the code makes it
                        pass
            if len(problems) == len([w for w in found.values() if w]):
                raise Unshapeable("no block mapper get_kv_map chooses can run here: %s" % "; ".join(problems))
        source, name = find_class(["PeerRegistrar"], sources)
        node = source.classes[name]
        whole = MethodClass(sources, source, name, list(method_nodes(node)))
        for s, n in whole.nodes:
            s.define_records([n])
        self.registrar = whole.cls

    def make(self, ri):
        cls = self.registrar
        return cls(*constructor_args(cls, ri, KVRegionExtractorV1(ri.kv_pool_attrs)))

    def register(self, log, registrar, side, me, peer, probe, peer_ri):
        try:
            registrar.register("ctx" if side == "gen" else "gen", peer, peer_ri)
        except BaseException as e:  # noqa: BLE001 - a refusal is the outcome
            log("R %s %d %d %s !%s" % (side, me, peer, probe, exception_text(e)))
            return False
        log("R %s %d %d %s ok" % (side, me, peer, probe))
        return True

    def __call__(self, *case):
        v = dict(zip(self.params, case))
        capture = Capture()
        log = capture.add
        P, D, H, mla = v["P"], v["D"], v["H"], bool(v["MLA"])
        c, g = v["c"], v["g"]
        ctx = Side("ctx", P, digits_split(v["ctx_layers"]), v["ctx_adp"], H, mla, self.layout)
        gen = Side("gen", D, digits_split(v["gen_layers"]), v["gen_adp"], H, mla, self.layout)
        ctx_ranks = [u * P + t for u in range(ctx.S) for t in range(P) if not ctx.adp or t == c]
        gen_ranks = [s * D + t for s in range(gen.S) for t in range(D) if not gen.adp or t == g]
        instance = ctx.rank_info(0, c if ctx.adp else 0)
        asked = {}
        for gr in gen_ranks:
            ri = gen.rank_info(gr // D, gr % D)
            try:
                registrar = self.make(ri)
            except BaseException as e:  # noqa: BLE001
                log("R gen %d %d valid !%s" % (gr, instance.instance_rank, exception_text(e)))
                continue
            self.register(log, registrar, "gen", gr, instance.instance_rank, "valid", instance)
            if self.part == "compatible":
                for probe, changed in (("cp", {"cp_size": 2}), ("mla_heads", {"kv_heads_per_rank": 2})):
                    if probe == "mla_heads" and not mla:
                        continue
                    self.register(log, self.make(ri), "gen", gr, instance.instance_rank, probe,
                                  ctx.rank_info(0, instance.tp_rank, **changed))
                continue
            try:
                overlap = registrar.get_peer_overlap(instance, c)
                text = overlap_text(overlap)
            except BaseException as e:  # noqa: BLE001
                log("G %d !%s" % (gr, exception_text(e)))
                continue
            log("G %d %s" % (gr, text))
            asked[gr] = integers(overlap.ranks)
        for cr in ctx_ranks:
            ri = ctx.rank_info(cr // P, cr % P)
            try:
                registrar = self.make(ri)
            except BaseException as e:  # noqa: BLE001
                log("R ctx %d %d valid !%s" % (cr, gen_ranks[0], exception_text(e)))
                continue
            for gr in gen_ranks:
                gen_ri = gen.rank_info(gr // D, gr % D)
                if not self.register(log, registrar, "ctx", cr, gr, "valid", gen_ri) or self.part == "compatible":
                    continue
                try:
                    overlap = registrar.get_peer_overlap(gen_ri, gen_ri.dp_rank)
                    text = overlap_text(overlap)
                except BaseException as e:  # noqa: BLE001
                    log("X %d %d !%s" % (cr, gr, exception_text(e)))
                    continue
                log("X %d %d %s" % (cr, gr, text))
                if self.part == "kv_map" and cr in asked.get(gr, ()):
                    self.map(log, registrar, ctx, gen, cr, gr, gen_ri)
        return capture.text()

    def map(self, log, registrar, ctx, gen, cr, gr, gen_ri):
        src_ptrs, src_size = ctx.blocks(cr)
        dst_ptrs, dst_size = gen.blocks(gr)
        try:
            mapper = registrar.get_kv_map(gen_ri)
            pairs = pairs_of(mapper.map(SpecRegion(MemRegionGroup(src_ptrs, src_size)),
                                        SpecRegion(MemRegionGroup(dst_ptrs, dst_size))))
            lines = ["M %d %d %s %s %s" % (cr, gr, value_text(pair.src.memory.bytes_per_region),
                                           values_text(pair.src.memory.ptrs), values_text(pair.dst.memory.ptrs))
                     for pair in pairs]
        except MapperCannotRun as e:
            log("M %d %d skip %s %s" % (cr, gr, word(e.mapper), word(e.module)))
            return
        except BaseException as e:  # noqa: BLE001 - what the mapper raised is the outcome
            log("M %d %d !%s" % (cr, gr, exception_text(e)))
            return
        for line in lines or ["M %d %d none" % (cr, gr)]:
            log(line)


DRIVERS["peers"] = PeerDriver


class StateMapperDriver:
    """One sizing of TensorRT-LLM's mappers of hybrid models' recurrent state
    (SPEC §16.6): for every ctx rank p (self) and gen rank d of its window
    (peer), the conv state's section plans (part sections) or the SSM head
    mapper's offsets (part heads), one line per pair:

      C p d [(src,dst,bytes),...]   H p d src dst bytes   C|H p d !Class|message

    The sides' section bytes and heads come from tpcheck (the driver's
    "sides", from lib's layouts)."""

    @staticmethod
    def extra_methods(spec, driver):
        return []

    @classmethod
    def bind(cls, spec, target, driver, sources):
        return cls(spec, target, driver)

    def __init__(self, spec, target, driver):
        self.part, self.sides, self.bytes = driver["part"], driver["sides"], driver["bytes"]
        self.params = spec["params"]
        self.target = target
        probe = object.__new__(target.cls)
        if self.part == "sections":
            args = [{"name": n, "value": "_" + n, "optional": False, "when": ""} for n in (
                "self_section_bytes", "peer_section_bytes", "self_tp_per_dp", "peer_tp_per_dp", "self_tp_rank",
                "peer_tp_rank")]
            self.call = compile(call_of(args, getattr(probe, target.method)), "<tpcheck section plans>", "eval")
        else:
            args = [{"name": n, "value": "_" + n, "optional": False, "when": ""} for n in (
                "transfer_layers", "src_layer_off", "dst_layer_off", "bytes_per_head", "self_nheads", "peer_nheads",
                "self_tp_per_dp", "peer_tp_per_dp", "self_tp_rank", "peer_tp_rank")]
            self.call = compile(call_of(args, probe.__init__), "<tpcheck head mapper>", "eval")

    def __call__(self, *case):
        v = dict(zip(self.params, case))
        P, D, model = v["P"], v["D"], v["model"]
        ctx, gen = self.sides["%d,%d" % (model, P)], self.sides["%d,%d" % (model, D)]
        log = []
        for p in range(P):
            window = [p * (D // P) + i for i in range(D // P)] if D >= P else [p // (P // D)]
            for d in window:
                env = {"__builtins__": builtins, "_self_tp_per_dp": P, "_peer_tp_per_dp": D, "_self_tp_rank": p,
                       "_peer_tp_rank": d}
                tag = "C" if self.part == "sections" else "H"
                try:
                    log.append("%s %d %d %s" % (tag, p, d, self.run(env, ctx, gen)))
                except BaseException as e:  # noqa: BLE001 - what the mapper raised is the outcome
                    log.append("%s %d %d !%s" % (tag, p, d, exception_text(e)))
        return "\n".join(log)

    def run(self, env, ctx, gen):
        if self.part == "sections":
            row_bytes = ctx["rows"] * self.bytes["conv"]
            env["_self_section_bytes"] = [w * row_bytes for w in ctx["local_widths"]]
            env["_peer_section_bytes"] = [w * row_bytes for w in gen["local_widths"]]
            env["_f"] = getattr(object.__new__(self.target.cls), self.target.method)
            return ints_text(eval(self.call, env))
        env.update(_transfer_layers=2, _src_layer_off=0, _dst_layer_off=0,
                   _bytes_per_head=ctx["head_elements"] * self.bytes["ssm"], _self_nheads=ctx["h_loc"],
                   _peer_nheads=gen["h_loc"])
        mapper = object.__new__(self.target.cls)
        env["_f"] = mapper.__init__
        eval(self.call, env)
        return " ".join(value_text(getattr(mapper, name)) for name in ("_src_head_off", "_dst_head_off",
                                                                        "_bytes_cont_heads"))


DRIVERS["trtllm_state"] = StateMapperDriver
