# vLLM's part of the written tests' helpers (conform/written/helpers.py says
# how the blocks are taken): how NIXL's mapping and Mooncake's plan are
# compared, and the region Mooncake's region check is given. (The stand-ins
# of vLLM's names that --import-style source needs are the child's, from
# child/22_vllm.py.)
import types


def _tp_mapping(mapping, slots):
    """The fields of NIXL's mapping conform compares, for its one attention group: the
    slots only where the prefill side is larger, local_consumers where the version has it."""
    fields = {"sources": [_ints(rank) for rank in mapping.source_ranks_per_group[0]],
              "rank_offset_factor": _ints(mapping.rank_offset_factor)}
    if slots:
        fields["rank_to_attention_slot"] = {_ints(k): _ints(v) for k, v in dict(mapping.rank_to_attention_slot).items()}
    if hasattr(mapping, "local_consumers"):
        fields["local_consumers"] = _ints(mapping.local_consumers)
    return fields


def _sender_plan(plan):
    """(True, src_offset, dst_offset, length) of a copy; (False,) when there is none (the rest is not compared)."""
    if not plan[0]:
        return (False,)
    return (True,) + tuple(_ints(v) for v in plan[1:4])


def _region(kv_block_len):
    """A registered KV region as Mooncake's region check reads it."""
    return types.SimpleNamespace(base_addr=0, block_len=kv_block_len, kv_block_len=kv_block_len)
