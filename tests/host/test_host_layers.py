"""The host package's architecture holds: no import cycle, no import up a layer, a small top level.

Layers, lowest first (docs/architecture.md): the top-level modules (config, db, llm), then the link to
a device and the board tools, then the pipelines, then the programs (chat, gateway, sim, integrations,
dashboard), then the command line. A module may import its own subpackage and any lower layer.
"""

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "host" / "xzmem"

LAYERS = {
    "xzmem": 0,
    "xzmem.device": 1,
    "xzmem.board": 1,
    "xzmem.pipelines": 2,
    "xzmem.chat": 3,
    "xzmem.gateway": 3,
    "xzmem.sim": 3,
    "xzmem.integrations": 3,
    "xzmem.dashboard": 3,
    "xzmem.cli": 4,
    "xzmem.__main__": 5,
}
MAX_TOP_LEVEL_MODULES = 6


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(root: Path, path: Path) -> set[str]:
    """Every module of the package that `path` imports, at any depth of the file (lazy imports too)."""
    name = module_name(root, path)
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(base + "." + alias.name for alias in node.names)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    files = {module_name(root, p): p for p in root.rglob("*.py")}
    return {name: {m for m in imports_of(root, path) if m in files and m != name} for name, path in files.items()}


def group_of(module: str, root: Path = PACKAGE) -> str:
    """The layer-table entry a module belongs to: its subpackage, or `xzmem` for a top-level module."""
    parts = module.split(".")
    if module == "xzmem.__main__" or (len(parts) > 1 and (root / parts[1]).is_dir()):
        return ".".join(parts[:2])
    return "xzmem"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def layer_violations(graph: dict[str, set[str]], root: Path = PACKAGE) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        mine = group_of(module, root)
        if mine not in LAYERS:
            problems.append(f"{module}: subpackage {mine} has no layer in this test's LAYERS")
            continue
        for target in sorted(targets):
            theirs = group_of(target, root)
            if theirs != mine and LAYERS.get(theirs, 99) >= LAYERS[mine]:
                problems.append(f"{module} imports {target}: {theirs} is not below {mine}")
    return problems


def test_the_host_package_has_no_import_cycle():
    assert find_cycle(import_graph(PACKAGE)) is None


def test_no_module_imports_a_layer_above_its_own():
    assert layer_violations(import_graph(PACKAGE)) == []


def test_the_checks_catch_a_cycle_and_an_upward_import(tmp_path):
    root = tmp_path / "xzmem"
    for rel, text in {
        "__init__.py": "",
        "config.py": "",
        "cli/__init__.py": "",
        "cli/app.py": "from xzmem.cli import group\n",
        "cli/group.py": "from xzmem.cli.app import app\n",
        "pipelines/__init__.py": "",
        "pipelines/sieve.py": "def f():\n    from xzmem.cli.app import app\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    graph = import_graph(root)
    assert find_cycle(graph) == ["xzmem.cli.app", "xzmem.cli.group", "xzmem.cli.app"]
    assert layer_violations(graph, root) == [
        "xzmem.pipelines.sieve imports xzmem.cli.app: xzmem.cli is not below xzmem.pipelines"
    ]


def test_the_top_level_stays_small_and_every_subpackage_says_what_it_holds():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        header = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert header and "\n" not in header.strip(), f"{init.parent.name}/__init__.py needs a one-line header"


def test_the_command_line_starts_without_the_heavy_libraries():
    """`xzmem --help` and commands that need no LLM or device session start in about a second:
    the mcp SDK, openai, jieba and the web stack are imported by the commands that use them."""
    probe = ("import sys, xzmem.cli.app; "
             "print(' '.join(m for m in ('mcp', 'openai', 'jieba', 'starlette', 'uvicorn') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []
