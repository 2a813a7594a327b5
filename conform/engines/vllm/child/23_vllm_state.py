# vLLM's part of the child for hybrid models' recurrent state (SPEC §16.6,
# §16.7): what the conv-split code uses of torch and vLLM, as stand-ins
# written from the SPEC: torch's element sizes and sizes, an enum of state
# types that answers any member name with a distinct member, and whether the
# conv state is dim-first (DS), which the profile sets per call.


class _Dtype:
    """A torch dtype: its name and its element size."""

    def __init__(self, name, size):
        self.name, self.itemsize = name, size

    def __repr__(self):
        return "torch." + self.name


class _Tensor:
    """What torch.tensor([], dtype=...) gives the code: its element size."""

    def __init__(self, dtype):
        self.dtype = dtype

    def element_size(self):
        return self.dtype.itemsize


class _Size(tuple):
    """torch.Size: a tuple of dimensions and their product."""

    def numel(self):
        n = 1
        for dimension in self:
            n *= operator.index(dimension)
        return n


def _tensor(data, dtype=None, **kwargs):
    if not isinstance(dtype, _Dtype):
        raise TypeError("the torch stand-in makes tensors of its own dtypes only, not %r" % (dtype,))
    return _Tensor(dtype)


TORCH_DTYPES = {"float16": _Dtype("float16", 2), "bfloat16": _Dtype("bfloat16", 2), "float32": _Dtype("float32", 4)}
torch_stand_in = types.ModuleType("torch")
torch_stand_in.__dict__.update(TORCH_DTYPES, tensor=_tensor, Size=_Size, dtype=_Dtype)


class _EnumMembers(type):
    """Any member name is a member: the same one each time, distinct from the others."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        members = cls.__dict__["_members"]
        if name not in members:
            member = object.__new__(cls)
            member.name = member.value = name
            members[name] = member
        return members[name]


class MambaAttentionBackendEnum(metaclass=_EnumMembers):
    """Stand-in for vLLM's enum of recurrent state types (MAMBA1, MAMBA2, GDN_ATTN, ...)."""

    _members = {}

    def __repr__(self):
        return "<MambaAttentionBackendEnum.%s: %r>" % (self.name, self.value)


# Whether the conv state is dim-first (DS, (C, L)) rather than state-first
# (SD, (L, C), vLLM's default): the driver sets it before each call.
CONV_LAYOUT = {"dim_first": True}


def is_conv_state_dim_first():
    return CONV_LAYOUT["dim_first"]


STAND_INS.update({"torch": torch_stand_in, "MambaAttentionBackendEnum": MambaAttentionBackendEnum,
                  "is_conv_state_dim_first": is_conv_state_dim_first})
