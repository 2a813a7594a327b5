# vLLM's part of the child (after part 2): the names vLLM's connector code
# uses (KV cache spec classes, NIXL's TPMapping record, Mooncake's
# TransferRegion) as small stand-ins, how the vllm profiles write NIXL's
# mapping and Mooncake's plan (profile_vllm.cpp's renderings, read back by
# canonical.cpp), and the region the vllm-mooncake calls build (_region).


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
    """The spec of a recurrent layer's state: the fields it is given
    (shapes, dtypes, mamba_type...), by name."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


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


STAND_INS.update({cls.__name__: cls for cls in (
    KVCacheSpec, AttentionSpec, FullAttentionSpec, MLAAttentionSpec, SlidingWindowSpec, SlidingWindowMLASpec,
    ChunkedLocalAttentionSpec, MambaSpec, TPMapping, TransferRegion)})


def render_tp_mapping(mapping):
    """The fields of NIXL's TPMapping that SPEC §12 compares, for its one attention group."""
    try:
        sources = [operator.index(x) for x in mapping.source_ranks_per_group[0]]
        offset = operator.index(mapping.rank_offset_factor)
        slots = sorted((operator.index(k), operator.index(v)) for k, v in dict(mapping.rank_to_attention_slot).items())
        consumers = getattr(mapping, "local_consumers", None)
        tail = "" if consumers is None else ", local_consumers=%d" % operator.index(consumers)
    except Exception:  # noqa: BLE001 - not a mapping: shown as it is
        return repr(mapping)
    return "TPMapping(sources=%r, rank_offset_factor=%d, rank_to_attention_slot={%s}%s)" % (
        sources, offset, ", ".join("%d: %d" % s for s in slots), tail)


def render_sender_plan(value):
    """(should_transfer, src_offset, dst_offset, length), numpy scalars as Python's."""
    try:
        items = tuple(value)
        if len(items) == 4 and type(items[0]).__name__ in ("bool", "bool_"):
            return "(%s, %d, %d, %d)" % (bool(items[0]), operator.index(items[1]), operator.index(items[2]),
                                         operator.index(items[3]))
    except Exception:  # noqa: BLE001 - not a plan: shown as it is
        pass
    return repr(value)


RENDERERS.update({"tp_mapping": render_tp_mapping, "sender_plan": render_sender_plan})


def region(kv_block_len):
    return TransferRegion(base_addr=0, block_len=kv_block_len, kv_block_len=kv_block_len)


CALL_NAMES["_region"] = region
