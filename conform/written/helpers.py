# The helpers of the tests tpcheck conform --write-tests writes: each test
# file gets the blocks below that its code names (a block is a top-level
# definition with the comment lines above it; the imports above the first
# block come with any of them). They make the calls as conform makes them:
# objects built without their constructors, records holding only the fields
# the profile passes, values compared as integers.
import operator
import types


def _new(cls, **attributes):
    """An instance of cls made without running its constructor, holding only these attributes."""
    instance = object.__new__(cls)
    if "__slots__" in cls.__dict__:
        for name, value in attributes.items():
            setattr(instance, name, value)
    else:
        instance.__dict__.update(attributes)
    return instance


def _record(kind, **fields):
    """A record of a class named `kind` with exactly these fields: reading any other one fails."""
    return type(kind, (types.SimpleNamespace,), {})(**fields)


def _ints(value):
    """An integer, or a list or tuple of them (nested), as Python integers: numpy's become Python's."""
    if isinstance(value, (list, tuple)):
        return type(value)(_ints(v) for v in value)
    if hasattr(value, "tolist") and getattr(value, "ndim", 0):
        return _ints(value.tolist())
    if isinstance(value, bool):
        return value
    try:
        return operator.index(value)
    except TypeError:
        return value


def _fields(obj, *names):
    """The named attributes of obj, as integers where they are, in a tuple."""
    return tuple(_ints(getattr(obj, name)) for name in names)


# The model refuses the sizing, and the engine names no error for it: any exception will do.
REFUSED = Exception
MODEL = "differs from tpcheck's model"


def _assert_outcome(observed, case, expected, deviations):
    """observed(*case) is the model's outcome: the value, the exception's class and exact text,
    or any exception where the model refuses. A failure says what the deviation does."""
    why = deviations.get(case, MODEL)
    if expected is REFUSED or isinstance(expected, Exception):
        with pytest.raises(Exception) as raised:
            got = observed(*case)
            pytest.fail("returned %r where the model raises %r: %s" % (got, expected, why))
        if expected is not REFUSED:
            assert (type(raised.value), str(raised.value)) == (type(expected), str(expected)), why
    else:
        assert observed(*case) == expected, why


def _assert_outcome_in(test, observed, case, expected, deviations):
    """The same, as a unittest.TestCase asserts it."""
    why = deviations.get(case, MODEL)
    if expected is REFUSED:
        with test.assertRaises(Exception, msg=why):
            observed(*case)
    elif isinstance(expected, Exception):
        with test.assertRaises(type(expected), msg=why) as raised:
            observed(*case)
        test.assertIs(type(raised.exception), type(expected), why)
        test.assertEqual(str(raised.exception), str(expected), why)
    else:
        test.assertEqual(observed(*case), expected, why)
