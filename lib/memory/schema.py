# Tool arguments checked against the JSON Schema subset our tools declare (one level of properties).
#
# Supported per property: type (one name, as Gemini and others demand), enum, minimum, maximum,
# minLength, maxLength (in characters), maxItems; at the top: required, additionalProperties false.
# Nested objects and array items are left to the tool itself. Models often quote numbers: a string
# of digits for an integer property is taken as the integer, and an integer for a free-text string
# property (an age given as `content`) is let through for the tool to read.
#
# Refusals are memory.refusal.Refusal, so a voice can be told what was wrong in words.

from memory.refusal import Refusal

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


def _integer_text(value):
    # ASCII digits only: str.isdigit() also takes other scripts' digits on CPython, not on MicroPython.
    text = value.strip()
    digits = text[1:] if text[:1] == "-" else text
    if not digits or [c for c in digits if c not in "0123456789"]:
        return None
    return int(text)


def _value_of_word(enum, value):
    """The enum value `value` is the Chinese word of (开心 -> happy), else `value`: a refusal in Chinese
    offers the values as those words, so it must take them too."""
    if isinstance(value, str):
        from memory.spoken import word  # only on this path, which is a refusal's otherwise

        for allowed in enum:
            if word(allowed, "zh") == value.strip():
                return allowed
    return value


def check_property(name, spec, value):
    """`value` as the tool gets it (a quoted integer becomes an int); Refusal naming `name` and the
    value when it breaks `spec`."""
    want = spec.get("type")
    if want is not None and not _is_type(value, want):
        number = _integer_text(value) if want == "integer" and isinstance(value, str) else None
        if number is not None:
            value = number
        elif not (want == "string" and "enum" not in spec and _is_type(value, "integer")):
            raise Refusal("%s must be %s, got %s" % (name, want, _describe(value)), "type", name, value, want)
    enum = spec.get("enum")
    if enum is not None and value not in enum:
        value = _value_of_word(enum, value)
    if enum is not None and value not in enum:
        raise Refusal("%s must be one of %s, got %s" % (name, ", ".join([str(e) for e in enum]), _describe(value)),
                      "choice", name, value, enum)
    if isinstance(value, (int, float)) and not (value is True or value is False):
        lo = spec.get("minimum")
        hi = spec.get("maximum")
        if lo is not None and value < lo or hi is not None and value > hi:
            raise Refusal("%s must be %s-%s, got %s" % (name, "" if lo is None else lo, "" if hi is None else hi, _describe(value)),
                          "range", name, value, (lo, hi))
    if isinstance(value, str):
        n = len(value)
        if n < spec.get("minLength", 0):
            raise Refusal("%s must have at least %d characters, got %d" % (name, spec["minLength"], n), "empty", name, value)
        if "maxLength" in spec and n > spec["maxLength"]:
            raise Refusal("%s must have at most %d characters, got %d" % (name, spec["maxLength"], n),
                          "long", name, value, spec["maxLength"])
    if isinstance(value, list) and "maxItems" in spec and len(value) > spec["maxItems"]:
        raise Refusal("%s must have at most %d items, got %d" % (name, spec["maxItems"], len(value)),
                      "long", name, value, spec["maxItems"])
    return value


def check_arguments(schema, args):
    """Check a tools/call `arguments` object against a tool's input schema; Refusal on the first
    problem. Quoted integers are replaced in `args` by their value."""
    props = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in args:
            raise Refusal("%s is required" % name, "missing", name)
    closed = schema.get("additionalProperties") is False
    for name in list(args):
        spec = props.get(name)
        if spec is None:
            if closed:
                raise Refusal("unknown argument %s; known arguments: %s" % (_describe(name), ", ".join(sorted(props))),
                              "unknown", name, name, sorted(props))
            continue
        args[name] = check_property(name, spec, args[name])
