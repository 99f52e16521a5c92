# Runs the TestCase classes of one module under MicroPython and reports each test as a JSON line.
#
# Async test methods are awaited, so the same test file works with asyncio on both interpreters.

import io
import json
import sys
import unittest

MARK = "@@xzmem-test "


def _report(cls, name, status, detail=""):
    print(MARK + json.dumps({"class": cls, "test": name, "status": status, "detail": detail}))


def _traceback(exc):
    buf = io.StringIO()
    sys.print_exception(exc, buf)
    return buf.getvalue()


async def _call(func):
    result = func()
    if type(result).__name__ == "generator":
        await result


async def _run_one(cls, name):
    case = cls()
    try:
        if hasattr(case, "setUp"):
            await _call(case.setUp)
        try:
            await _call(getattr(case, name))
        finally:
            if hasattr(case, "tearDown"):
                await _call(case.tearDown)
            case.doCleanups()
    except unittest.SkipTest as e:
        _report(cls.__name__, name, "skip", str(e))
    except AssertionError as e:
        _report(cls.__name__, name, "fail", _traceback(e))
    except BaseException as e:  # a test's error of any kind is its result, not the runner's end
        _report(cls.__name__, name, "error", _traceback(e))
    else:
        _report(cls.__name__, name, "pass")


async def run(module_name):
    try:
        mod = __import__(module_name)
    except BaseException as e:
        _report("<module>", "import", "error", _traceback(e))
        return
    for cname in sorted(dir(mod)):
        cls = getattr(mod, cname)
        if not isinstance(cls, type) or cls is unittest.TestCase or not issubclass(cls, unittest.TestCase):
            continue
        names = sorted(n for n in dir(cls) if n.startswith("test") and callable(getattr(cls, n)))
        try:
            if hasattr(cls, "setUpClass"):
                cls.setUpClass()
        except BaseException as e:
            for name in names:
                _report(cname, name, "error", "setUpClass failed:\n" + _traceback(e))
            continue
        for name in names:
            await _run_one(cls, name)
        if hasattr(cls, "tearDownClass"):
            cls.tearDownClass()
