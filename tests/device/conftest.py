"""Device test modules run twice: on CPython and inside the MicroPython WebAssembly port.

Each `unittest.TestCase` method becomes two pytest items, `[cpython]` and `[micropython]`.
The MicroPython run of a module happens once, in node, the first time one of its items runs;
a failing item shows the MicroPython traceback.
"""

import ast
import asyncio
import inspect
import sys
import unittest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

for p in (ROOT / "lib", ROOT / "firmware" / "sim", Path(__file__).parent, ROOT / "tests" / "mp"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from mprun import run_micropython  # noqa: E402


def _test_names(path):
    """(class, method) pairs of the TestCase classes in a file, read without importing it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
            (isinstance(b, ast.Attribute) and b.attr == "TestCase") or (isinstance(b, ast.Name) and b.id == "TestCase")
            for b in node.bases
        ):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                    yield node.name, item.name


class DeviceModule(pytest.File):
    def collect(self):
        for cls, name in _test_names(self.path):
            yield CPythonCase.from_parent(self, name=f"{cls}::{name}[cpython]", cls_name=cls, method=name)
        for cls, name in _test_names(self.path):
            yield MicroPythonCase.from_parent(self, name=f"{cls}::{name}[micropython]", cls_name=cls, method=name)

    def micropython_results(self):
        if not hasattr(self, "_mp"):
            self._mp = run_micropython(self.path.stem, self.path.parent)
        return self._mp


class CPythonCase(pytest.Item):
    def __init__(self, *, cls_name, method, **kwargs):
        super().__init__(**kwargs)
        self.cls_name, self.method = cls_name, method

    def runtest(self):
        mod = __import__(self.path.stem)
        cls = getattr(mod, self.cls_name)
        if hasattr(cls, "setUpClass") and not getattr(cls, "_xz_class_ready", False):
            cls.setUpClass()
            cls._xz_class_ready = True
        case = cls(self.method)
        case.setUp()
        try:
            result = getattr(case, self.method)()
            if inspect.iscoroutine(result):
                asyncio.run(result)
        except unittest.SkipTest as e:
            pytest.skip(str(e))
        finally:
            case.tearDown()
            case.doCleanups()

    def reportinfo(self):
        return self.path, 0, f"{self.cls_name}.{self.method} [cpython]"


class MicroPythonFailure(Exception):
    pass


class MicroPythonCase(pytest.Item):
    def __init__(self, *, cls_name, method, **kwargs):
        super().__init__(**kwargs)
        self.cls_name, self.method = cls_name, method

    def runtest(self):
        results, output = self.parent.micropython_results()
        r = results.get((self.cls_name, self.method)) or results.get(("<module>", "import"))
        if r is None:
            raise MicroPythonFailure(f"MicroPython reported no result for this test. Output:\n{output[-4000:]}")
        if r["status"] == "skip":
            pytest.skip(r["detail"])
        if r["status"] != "pass":
            raise MicroPythonFailure(f"{r['status']} under MicroPython:\n{r['detail']}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, MicroPythonFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"{self.cls_name}.{self.method} [micropython]"


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.name.startswith("test_") and module_path.parent == Path(__file__).parent:
        return DeviceModule.from_parent(parent, path=module_path)
    return None
