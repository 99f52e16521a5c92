# Tool arguments checked against the JSON Schema subset our tools declare (one level of properties).
#
# Supported per property: type (name or list), enum, minimum, maximum, minLength, maxLength (in
# characters), maxItems; at the top: required, additionalProperties false. Nested objects and array
# items are left to the tool itself.

_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _is_type(value, name):
    # bool is an int subclass on CPython but not on MicroPython: treat it as neither int nor number.
    if value is True or value is False:
        return name == "boolean"
    if name == "number" and isinstance(value, float):
        return value == value and value not in (float("inf"), float("-inf"))
    kinds = _TYPES.get(name)
    return kinds is not None and isinstance(value, kinds)


def _describe(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_property(name, spec, value):
    """ValueError naming `name` and the value when `value` breaks `spec`."""
    want = spec.get("type")
    if want is not None:
        names = want if isinstance(want, list) else [want]
        ok = False
        for t in names:
            if _is_type(value, t):
                ok = True
                break
        if not ok:
            raise ValueError("%s must be %s, got %s" % (name, " or ".join(names), _describe(value)))
    enum = spec.get("enum")
    if enum is not None and value not in enum:
        raise ValueError("%s must be one of %s, got %s" % (name, ", ".join([str(e) for e in enum]), _describe(value)))
    if isinstance(value, (int, float)) and not (value is True or value is False):
        lo = spec.get("minimum")
        hi = spec.get("maximum")
        if lo is not None and value < lo or hi is not None and value > hi:
            raise ValueError("%s must be %s-%s, got %s" % (name, "" if lo is None else lo, "" if hi is None else hi, _describe(value)))
    if isinstance(value, str):
        n = len(value)
        if n < spec.get("minLength", 0):
            raise ValueError("%s must have at least %d characters, got %d" % (name, spec["minLength"], n))
        if "maxLength" in spec and n > spec["maxLength"]:
            raise ValueError("%s must have at most %d characters, got %d" % (name, spec["maxLength"], n))
    if isinstance(value, list) and "maxItems" in spec and len(value) > spec["maxItems"]:
        raise ValueError("%s must have at most %d items, got %d" % (name, spec["maxItems"], len(value)))


def check_arguments(schema, args):
    """Check a tools/call `arguments` object against a tool's input schema; ValueError on the first problem."""
    props = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in args:
            raise ValueError("%s is required" % name)
    closed = schema.get("additionalProperties") is False
    for name in args:
        spec = props.get(name)
        if spec is None:
            if closed:
                raise ValueError("unknown argument %s; known arguments: %s" % (_describe(name), ", ".join(sorted(props))))
            continue
        check_property(name, spec, args[name])
