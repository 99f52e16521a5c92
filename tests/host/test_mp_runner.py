"""The MicroPython test runner catches device code that only works on CPython."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "mp"))

from mprun import run_micropython  # noqa: E402

TEST = '''
import unittest
import greeting

class Greeting(unittest.TestCase):
    def test_greet(self):
        self.assertEqual(greeting.greet("xiaozhi"), "hello xiaozhi")
'''


def _project(tmp_path, body):
    (tmp_path / "lib").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "lib" / "greeting.py").write_text(body)
    (tmp_path / "tests" / "test_greeting.py").write_text(TEST)
    return tmp_path


def _cpython_passes(project):
    code = f"import sys; sys.path[:0] = [{str(project / 'lib')!r}, {str(project / 'tests')!r}]; " \
           "import unittest, test_greeting; " \
           "r = unittest.TextTestRunner().run(unittest.defaultTestLoader.loadTestsFromModule(test_greeting)); " \
           "sys.exit(not r.wasSuccessful())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def test_portable_module_passes_under_micropython(tmp_path):
    project = _project(tmp_path, 'def greet(name):\n    return "hello %s" % name\n')
    results, output = run_micropython("test_greeting", project / "tests", project / "lib")
    assert results[("Greeting", "test_greet")]["status"] == "pass", output


def test_cpython_only_construct_fails_under_micropython(tmp_path):
    # str.format_map exists on CPython but not in MicroPython.
    project = _project(tmp_path, 'def greet(name):\n    return "hello {name}".format_map({"name": name})\n')
    assert _cpython_passes(project)
    results, output = run_micropython("test_greeting", project / "tests", project / "lib")
    r = results[("Greeting", "test_greet")]
    assert r["status"] == "error", output
    assert "format_map" in r["detail"] and "greeting.py" in r["detail"]


def test_failed_assertion_reports_micropython_traceback(tmp_path):
    project = _project(tmp_path, 'def greet(name):\n    return "hi " + name\n')
    results, _ = run_micropython("test_greeting", project / "tests", project / "lib")
    r = results[("Greeting", "test_greet")]
    assert r["status"] == "fail"
    assert "test_greeting.py" in r["detail"]
