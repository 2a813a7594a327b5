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


def _outcome(observed, case):
    """(value, None) of observed(*case), or (None, the exception it raised)."""
    try:
        return observed(*case), None
    except Exception as e:  # noqa: BLE001 - compared with the model's outcome
        return None, e


def _why(case, expected, got, raised, deviations, meanings):
    """What a failing case does to a deployment: the deviation conform found there when
    the test was written, or what this way of failing does (meanings, by deviation kind)."""
    if case in deviations:
        return deviations[case]
    if expected is REFUSED or isinstance(expected, Exception):
        kind = "accepts_invalid" if raised is None else "wrong_error"
    elif raised is not None:
        kind = "rejects_valid"
    elif "too_many" in meanings and isinstance(got, int) and isinstance(expected, int):
        kind = "too_many" if got > expected else "too_few"
    else:
        kind = "wrong_value"
    return "%s: %s" % (kind, meanings.get(kind, MODEL))


def _assert_outcome(observed, case, expected, deviations, meanings):
    """observed(*case) is the model's outcome: the value, the exception's exact class and
    text, or any exception where the model refuses. A failure says what it does."""
    got, raised = _outcome(observed, case)
    why = _why(case, expected, got, raised, deviations, meanings)
    if expected is REFUSED or isinstance(expected, Exception):
        assert raised is not None, "returned %r where the model raises %r: %s" % (got, expected, why)
        if expected is not REFUSED:
            assert (type(raised), str(raised)) == (type(expected), str(expected)), why
    else:
        assert raised is None, "raised %r where the model returns %r: %s" % (raised, expected, why)
        assert got == expected, why


def _assert_outcome_in(test, observed, case, expected, deviations, meanings):
    """The same, as a unittest.TestCase asserts it."""
    got, raised = _outcome(observed, case)
    why = _why(case, expected, got, raised, deviations, meanings)
    if expected is REFUSED or isinstance(expected, Exception):
        test.assertIsNotNone(raised, "returned %r where the model raises %r: %s" % (got, expected, why))
        if expected is not REFUSED:
            test.assertEqual((type(raised), str(raised)), (type(expected), str(expected)), why)
    else:
        test.assertIsNone(raised, "raised %r where the model returns %r: %s" % (raised, expected, why))
        test.assertEqual(got, expected, why)
