"""Layers point one way: no import cycle, indexing below components, no borrowed privates.

Also: the ground floor (``errors``, ``paths``) imports nothing of ours, a "private
name" includes a private module (``judged_rag.nodes._x``) of another top-level package,
and the library (``judged_rag``) never imports the evaluation lab (``judged_rag_eval``),
which is built on it: not at module level, not lazily, not by a module name in a string.
Both packages are read; the lab is held to the same rules (no cycle, no borrowed
privates, of the library's or of another part of the lab).

The import graph is read from the source with `ast` (nothing is imported): every
``import`` and ``from ... import`` of ``judged_rag`` anywhere in a module counts, at
module level, inside functions (lazy imports must not hide a cycle) and under
``if TYPE_CHECKING:`` (a type-only import is still a dependency of the design).
Relative imports are resolved. ``from P import n`` is an edge to ``P.n`` when that is a
module, else to ``P``.

Package ``__init__`` files: an edge goes to the module the statement names, not to the
parent packages Python initialises on the way. Every import of ``judged_rag.x`` runs
``judged_rag/__init__.py``, which imports the graph and with it nearly everything;
counting those implicit edges would put every module in one cycle and prove nothing.
What stays visible is the cycle that bites: a package ``__init__`` that imports its
submodules (re-exports) while one of them imports a name from the package itself
(``from judged_rag.components import ComponentError`` inside ``components/builders.py``)
instead of from the module that defines it.
"""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = "judged_rag"
LAB = "judged_rag_eval"
ROOTS = (ROOT, LAB)
GROUND_FLOOR = ("judged_rag.errors", "judged_rag.paths")


@dataclass(frozen=True)
class Import:
    """One import statement: `importer` takes `names` from module `target`."""

    importer: str
    target: str
    names: tuple[str, ...]
    line: int

    def __str__(self) -> str:
        what = f" ({', '.join(self.names)})" if self.names else ""
        return f"{self.importer}:{self.line} imports {self.target}{what}"


def find_modules(src: Path, roots: tuple[str, ...] = ROOTS) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package) for every module under ``src/<root>``."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(p for root in roots for p in (src / root).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts.pop()
        found[".".join(parts)] = (path, package)
    return found


def read_imports(src: Path) -> list[Import]:
    """Every import of one of our modules, resolved to the module it names."""
    modules = find_modules(src)
    out: list[Import] = []
    for name, (path, package) in modules.items():
        here = name if package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in ROOTS:
                        out.append(Import(name, alias.name, (), node.lineno))
                continue
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if module.split(".")[0] not in ROOTS:
                continue
            names: list[str] = []
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if sub in modules:
                    out.append(Import(name, sub, (), node.lineno))
                else:
                    names.append(alias.name)
            if names:
                out.append(Import(name, module, tuple(names), node.lineno))
    return [i for i in out if i.target in modules and i.target != i.importer]


def import_graph(imports: list[Import]) -> dict[str, set[str]]:
    """Module -> the modules it imports."""
    graph: dict[str, set[str]] = {}
    for i in imports:
        graph.setdefault(i.importer, set()).add(i.target)
        graph.setdefault(i.target, set())
    return graph


def find_tangles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(v: str) -> None:  # recursion depth = module count: fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component: set[str] = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(components, key=min)


def shortest_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the first module (by name) of a tangle."""
    start = min(component)
    parent: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v] & component):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(parent[path[-1]])
                return path[::-1]
            if w not in parent:
                parent[w] = v
                queue.append(w)
    raise AssertionError(f"{sorted(component)} is no cycle")


def describe_tangles(graph: dict[str, set[str]]) -> list[str]:
    """Each tangle as one of its cycles and all its modules."""
    return [
        " -> ".join([*cycle, cycle[0]]) + f" ({len(tangle)} modules: {', '.join(sorted(tangle))})"
        for tangle in find_tangles(graph)
        for cycle in [shortest_cycle(graph, tangle)]
    ]


def package_of(module: str) -> str:
    """The top-level subpackage (``judged_rag.components``) or module a module is in."""
    return ".".join(module.split(".")[:2])


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def borrowed_privates(imports: list[Import]) -> list[Import]:
    """Imports of another package's private names or from its private modules."""
    return [
        i
        for i in imports
        if package_of(i.importer) != package_of(i.target)
        and (any(_private(p) for p in i.target.split(".")) or any(map(_private, i.names)))
    ]


def layer_breaches(imports: list[Import], lower: str, upper: str) -> list[Import]:
    """Imports of a module of package `upper` by one of package `lower`."""
    return [i for i in imports if package_of(i.importer) == lower and package_of(i.target) == upper]


DYNAMIC_IMPORTS = ("import_module", "__import__")


def _named_module(node: ast.Call) -> str | None:
    """The module a call such as ``importlib.import_module("x.y")`` imports, if it is one."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    first = node.args[0] if node.args else None
    if called in DYNAMIC_IMPORTS and isinstance(first, ast.Constant):
        return str(first.value)
    return None


def lab_imports(src: Path) -> list[str]:
    """Every place a library module imports the lab: a statement or a dynamic import."""
    found: list[str] = []
    for name, (path, _) in find_modules(src, (ROOT,)).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                targets = [node.module or ""]
            elif isinstance(node, ast.Call) and (named := _named_module(node)):
                targets = [named]
            else:
                continue
            found += [
                f"{name}:{node.lineno} imports {t}" for t in targets if t.split(".")[0] == LAB
            ]
    return found


def _report(found: list[Import]) -> str:
    return "\n".join(map(str, found))


# --- the package ---------------------------------------------------------------------


def test_there_is_no_import_cycle() -> None:
    tangles = describe_tangles(import_graph(read_imports(SRC)))
    assert not tangles, "import cycles:\n" + "\n".join(tangles)


def test_indexing_never_imports_components() -> None:
    found = layer_breaches(read_imports(SRC), "judged_rag.indexing", "judged_rag.components")
    assert not found, _report(found)


def test_the_library_never_imports_the_lab() -> None:
    found = lab_imports(SRC)
    assert not found, "\n".join(found)


def test_no_module_imports_another_packages_private_names() -> None:
    found = borrowed_privates(read_imports(SRC))
    assert not found, _report(found)


def test_the_ground_floor_imports_nothing_of_ours() -> None:
    found = [i for i in read_imports(SRC) if i.importer in GROUND_FLOOR]
    assert not found, _report(found)


# --- the checks themselves -----------------------------------------------------------

TREE = {
    "__init__.py": "from judged_rag.components import Components\n",
    "errors.py": "class ComponentError(RuntimeError): ...\n",
    "components/__init__.py": (
        "from judged_rag.errors import ComponentError as ComponentError\n"
        "def components():\n"
        "    from judged_rag.components.builders import build\n"
    ),
    # A lazy import of its own package from a submodule: a cycle through the __init__.
    "components/builders.py": (
        "from judged_rag.errors import ComponentError\n"
        "def build():\n"
        "    from judged_rag.components import Components\n"
        "    from judged_rag.indexing.store import _rows\n"
    ),
    "indexing/__init__.py": "from . import store\n",
    "indexing/errors.py": "from judged_rag.components import ComponentError\n",
    "indexing/store.py": (
        "from typing import TYPE_CHECKING\n"
        "from .errors import ComponentError\n"
        "if TYPE_CHECKING:\n"
        "    from judged_rag.components.builders import build\n"
    ),
}


def _tree(tmp_path: Path) -> Path:
    for name, text in TREE.items():
        path = tmp_path / ROOT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_the_checks_find_cycles_breaches_and_borrowed_privates(tmp_path: Path) -> None:
    imports = read_imports(_tree(tmp_path))

    assert {(i.importer, i.target) for i in imports} >= {
        ("judged_rag.indexing", "judged_rag.indexing.store"),  # relative, a submodule
        ("judged_rag.indexing.store", "judged_rag.indexing.errors"),  # relative
        ("judged_rag.indexing.store", "judged_rag.components.builders"),  # TYPE_CHECKING
    }
    # The root __init__ imports components and every module lives under the root: that
    # is no cycle. The tangle runs through the components package's __init__ and,
    # longer, through the layer breach below.
    assert describe_tangles(import_graph(imports)) == [
        "judged_rag.components -> judged_rag.components.builders -> judged_rag.components "
        "(4 modules: judged_rag.components, judged_rag.components.builders, "
        "judged_rag.indexing.errors, judged_rag.indexing.store)"
    ]
    assert [str(i) for i in layer_breaches(imports, f"{ROOT}.indexing", f"{ROOT}.components")] == [
        "judged_rag.indexing.errors:1 imports judged_rag.components (ComponentError)",
        "judged_rag.indexing.store:4 imports judged_rag.components.builders (build)",
    ]
    assert [str(i) for i in borrowed_privates(imports)] == [
        "judged_rag.components.builders:4 imports judged_rag.indexing.store (_rows)"
    ]


LAB_TREE = {
    f"{ROOT}/__init__.py": "",
    f"{ROOT}/errors.py": "",
    # The library's command line reaching for the lab: lazily, and by a module name.
    f"{ROOT}/cli.py": (
        "import importlib\n"
        "def build():\n"
        "    from judged_rag_eval.cli import add_commands\n"
        "    importlib.import_module('judged_rag_eval.cli')\n"
        "    importlib.import_module('judged_rag.errors')\n"
    ),
    f"{LAB}/__init__.py": "",
    # The lab may import the library, but not its private names.
    f"{LAB}/cli.py": "from judged_rag.cli import build, _private\n",
}


def test_the_checks_find_the_library_importing_the_lab(tmp_path: Path) -> None:
    for name, text in LAB_TREE.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    assert lab_imports(tmp_path) == [
        "judged_rag.cli:3 imports judged_rag_eval.cli",
        "judged_rag.cli:4 imports judged_rag_eval.cli",
    ]
    assert [str(i) for i in borrowed_privates(read_imports(tmp_path))] == [
        "judged_rag_eval.cli:1 imports judged_rag.cli (build, _private)"
    ]
