"""The folder tree is the architecture: imports go one way, no module imports itself back.

``experiments/`` has five layers, ``cli`` → ``studies`` → ``reports`` → ``results`` → ``runs``, above the
packages ``baselines``, ``embeddings`` and ``preprocessing``; ``runs`` has rooms of its own, in the
order of a run's life cycle: ``many`` and ``entrants`` → ``one`` → the floor (``console``).  These tests read every module's imports with :mod:`ast` (no module is imported),
so they also catch imports inside functions.  The same reading counts every function's parameters:
at most 6 outside ``experiments/cli``.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("experiments", "baselines", "embeddings", "preprocessing")
#: Higher layers may import lower ones, never the other way round.
LAYERS = {"experiments.cli": 5, "experiments.studies": 4, "experiments.reports": 3, "experiments.results": 2,
          "experiments.runs": 1,
          "baselines": 0, "embeddings": 0, "preprocessing": 0}


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    return {module_name(path, root): path for package in PACKAGES for path in (root / package).rglob("*.py")}


def imports(name: str, path: Path, known) -> list[tuple[str, int]]:
    """(imported project module, line) of every import statement in the module, at any depth."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            candidates = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        # "from pkg import module" names the module; "from module import name" the module itself
        target = next((c for c in candidates if c in known), None)
        if target and target != name:
            found.append((target, node.lineno))
    return found


def import_graph(root: Path = ROOT) -> dict[str, list[tuple[str, int]]]:
    modules = project_modules(root)
    return {name: imports(name, path, modules) for name, path in modules.items()}


def layer(module: str) -> int | None:
    return next((rank for prefix, rank in LAYERS.items() if module == prefix or module.startswith(prefix + ".")),
                None)


def upward_imports(graph) -> list[str]:
    return [f"{module}:{line} imports {target}" for module, targets in graph.items() for target, line in targets
            if layer(module) is not None and layer(target) is not None and layer(target) > layer(module)]


def circles(graph) -> list[list[str]]:
    """Groups of modules that import each other, directly or through others (Tarjan's algorithm)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target, _ in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                groups.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return groups


#: The rooms of ``experiments.runs``, in the order of a run's life cycle, and the rooms each may import:
#: one run knows nothing of running many or of the entrants; the scheduler runs an entrant's task
#: without importing its room; the floor (``console``) imports none of the three.
RUN_ROOMS = {"experiments.runs.one": {"experiments.runs"},
             "experiments.runs.many": {"experiments.runs.one", "experiments.runs"},
             "experiments.runs.entrants": {"experiments.runs.one", "experiments.runs"},
             "experiments.runs": set()}


def run_room(module: str) -> str | None:
    """The room of ``experiments.runs`` that holds ``module`` (the longest prefix), None outside it."""
    return max((room for room in RUN_ROOMS if module == room or module.startswith(room + ".")), key=len, default=None)


def imports_between_rooms(graph) -> list[str]:
    """Imports from one room of ``experiments.runs`` into a room it may not import."""
    return [f"{module}:{line} imports {target}" for module, targets in graph.items() for target, line in targets
            if run_room(module) and run_room(target) and run_room(target) != run_room(module)
            and run_room(target) not in RUN_ROOMS[run_room(module)]]


def test_no_layer_imports_a_higher_one():
    assert upward_imports(import_graph()) == []


def test_no_modules_import_each_other_in_a_circle():
    assert circles(import_graph()) == []


def test_the_rooms_of_runs_import_only_the_rooms_below_them():
    assert imports_between_rooms(import_graph()) == []


def test_every_module_of_runs_is_in_a_room_of_the_life_cycle():
    """A new sub-package of ``experiments.runs`` gets its place in :data:`RUN_ROOMS` (and what it may import)."""
    rooms = {name for name, path in project_modules().items() if path.name == "__init__.py"
             and name.startswith("experiments.runs")}
    assert rooms == set(RUN_ROOMS)


def test_every_module_belongs_to_a_layer():
    assert [m for m in project_modules() if layer(m) is None] == ["experiments"]  # the namespace's own __init__


def test_every_import_inside_a_function_says_why_it_is_there():
    """Imports inside functions are only for start-up time (TensorFlow, matplotlib, ...): each says so."""
    silent = []
    for name, path in project_modules().items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            body = getattr(node, "body", None)
            if not isinstance(node, (ast.FunctionDef, ast.If)) or not isinstance(body, list):
                continue
            previous_was_import = False
            for statement in body:
                local = isinstance(statement, (ast.Import, ast.ImportFrom)) and statement.col_offset > 0
                if local and not previous_was_import:
                    line, before = lines[statement.lineno - 1], lines[statement.lineno - 2]
                    if "#" not in line and "#" not in before:
                        silent.append(f"{name}:{statement.lineno}")
                previous_was_import = local
    assert silent == []


def test_no_test_imports_a_private_name_of_another_module():
    modules = project_modules()
    private = []
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module in modules or node.module is None):
                private += [f"{path.name}:{node.lineno} {alias.name}" for alias in node.names
                            if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert private == []


#: At most this many parameters for a function outside ``experiments/cli`` (the developers' guide).
MAX_PARAMETERS = 6
#: Functions over the limit, waiting for their files' owners: shrink this list, never grow it.
OVER_THE_LIMIT: set[str] = set()


def parameter_counts(source: str) -> dict[str, int]:
    """{function's dotted name in its module: how many parameters a caller names}: positional and keyword
    ones, not ``self``/``cls`` (bound, never passed) nor ``*args``/``**kwargs`` (the rule is about the list a
    reader must keep in mind; a catch-all that forwards is one thing)."""
    counts = {}

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            name = f"{prefix}{getattr(child, 'name', '')}"
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = child.args
                names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
                counts[name] = len(names) - (names[:1] in (["self"], ["cls"]))
            visit(child, f"{name}." if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  else prefix)

    visit(ast.parse(source), "")
    return counts


def over_the_limit(root: Path = ROOT) -> set[str]:
    return {f"{module}.{function}" for module, path in project_modules(root).items()
            if layer(module) != LAYERS["experiments.cli"]
            for function, count in parameter_counts(path.read_text(encoding="utf-8")).items() if count > MAX_PARAMETERS}


def test_no_function_outside_the_cli_takes_more_than_six_parameters():
    """click hands a command every option as a parameter, so ``experiments/cli`` is exempt; elsewhere a longer
    list is a sign that the parameters belong together in an object."""
    found = over_the_limit()
    assert sorted(found - OVER_THE_LIMIT) == [], "split these functions or pass an object (not the allow-list)"
    assert sorted(OVER_THE_LIMIT - found) == [], "within the limit now: remove them from OVER_THE_LIMIT"


#: The one module that decides the main metric (``main_metric_for``), and the values it decides on.
MAIN_METRIC_RULE = "experiments.runs.one.metrics"
SELECT_ON_VALUES = {"default", "macro-f1"}


def main_metric_decisions(source: str) -> list[int]:
    """Lines that compare a ``select_on`` setting or one of its values: each is the main-metric rule
    written again instead of asked of ``main_metric_for``."""
    def named(node) -> bool:  # a value of select_on, the setting itself, or config.get("select_on")
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "get":
            return any(isinstance(a, ast.Constant) and a.value == "select_on" for a in node.args)
        return ((isinstance(node, ast.Constant) and node.value in SELECT_ON_VALUES)
                or getattr(node, "id", getattr(node, "attr", None)) == "select_on")

    return [node.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Compare)
            and any(named(operand) for operand in (node.left, *node.comparators))]


def test_the_main_metric_rule_is_decided_in_one_function():
    found = [f"{module}:{line}" for module, path in project_modules().items() if module != MAIN_METRIC_RULE
             for line in main_metric_decisions(path.read_text(encoding="utf-8"))]
    assert found == [], "ask experiments.runs.one.metrics.main_metric_for instead"


#: The run store: the one module that looks for a run's metrics.json (``METRICS``) to say whether it is finished.
RUN_STORE = "experiments.runs.one.store"


def metrics_file_checks(source: str) -> list[int]:
    """Lines that name metrics.json itself or look for it (``folder / METRICS``, ``rglob(METRICS)``): each
    asks "is this run finished?" beside the store's ``run_state``/``lookup``.  Writing it through a
    ``RunWriter`` (``writer.path(METRICS)``) is no check."""
    def is_file_name(node) -> bool:
        return getattr(node, "id", None) == "METRICS" or getattr(node, "value", None) == "metrics.json"

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and node.value == "metrics.json":
            found.append(node.lineno)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and is_file_name(node.right):
            found.append(node.lineno)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("glob", "rglob")
              and any(is_file_name(arg) for arg in node.args)):
            found.append(node.lineno)
    return sorted(set(found))


def test_only_the_run_store_looks_for_metrics_json():
    found = [f"{module}:{line}" for module, path in project_modules().items() if module != RUN_STORE
             for line in metrics_file_checks(path.read_text(encoding="utf-8"))]
    assert found == [], "ask experiments.runs.one.store (run_state, lookup, read_metrics) instead"


# --- the checks themselves can fail ---------------------------------------------------------------

@pytest.fixture
def toy_project(tmp_path):
    def write(module: str, source: str):
        path = tmp_path / (module.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in list(path.parents)[: module.count(".")]:
            (parent / "__init__.py").touch()
        path.write_text(source)

    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").touch()
    return tmp_path, write


def test_an_upward_import_and_a_circle_are_found(toy_project):
    root, write = toy_project
    write("experiments.runs.one.store", "def f():\n    from experiments.reports import table  # why\n")
    write("experiments.reports.table", "from experiments.runs.one.store import f\n")
    write("preprocessing.a", "from . import b\n")
    write("preprocessing.b", "from .a import x\n")
    graph = import_graph(root)
    assert upward_imports(graph) == ["experiments.runs.one.store:2 imports experiments.reports.table"]
    assert sorted(circles(graph)) == [["experiments.reports.table", "experiments.runs.one.store"],
                                      ["preprocessing.a", "preprocessing.b"]]


def test_an_import_between_rooms_of_runs_is_found(toy_project):
    root, write = toy_project
    write("experiments.runs.one.store", "from experiments.runs import console\n")
    write("experiments.runs.one.inference", "def f():\n    from experiments.runs.entrants import registry  # why\n")
    write("experiments.runs.many.scheduler",
          "from experiments.runs.one import store\nfrom experiments.runs.entrants.registry import x\n")
    write("experiments.runs.entrants.registry", "from experiments.runs.one.store import f\n")
    write("experiments.runs.console", "from experiments.runs.many import scheduler\n")
    assert sorted(imports_between_rooms(import_graph(root))) == [
        "experiments.runs.console:1 imports experiments.runs.many.scheduler",
        "experiments.runs.many.scheduler:2 imports experiments.runs.entrants.registry",
        "experiments.runs.one.inference:2 imports experiments.runs.entrants.registry"]


def test_parameters_are_counted_without_self_and_catch_alls():
    source = ("def seven(a, b, c, d, e, f, g): pass\n"
              "def six_and_catch_alls(a, /, b, *args, c, d, e, f, **kwargs): pass\n"
              "class C:\n"
              "    def method(self, a, b, c, d, e, f): pass\n"
              "    @classmethod\n"
              "    def build(cls, a, b, c, d, e, f, g): pass\n"
              "def outer():\n"
              "    def inner(a, b, c, d, e, f, g): pass\n")
    assert parameter_counts(source) == {"seven": 7, "six_and_catch_alls": 6, "C.method": 6, "C.build": 7,
                                        "outer": 0, "outer.inner": 7}


def test_a_long_parameter_list_is_found_outside_the_cli_only(toy_project):
    root, write = toy_project
    write("experiments.cli.command", "def command(a, b, c, d, e, f, g): pass\n")
    write("experiments.runs.one.store", "def put(a, b, c, d, e, f, g): pass\n")
    assert over_the_limit(root) == {"experiments.runs.one.store.put"}


def test_a_second_main_metric_rule_is_found():
    assert main_metric_decisions("x = train.select_on == 'default'\ny = 'macro-f1' in options\n"
                                 "z = train.get('select_on') != 1\nw = select_on\n"
                                 "v = main_metric_for(binary, select_on) == 'f1_macro'\n") == [1, 2, 3]


def test_a_metrics_json_check_outside_the_store_is_found():
    source = ("a = (run / METRICS).is_file()\nb = folder.rglob(METRICS)\nc = Path(r) / 'metrics.json'\n"
              "write_json(writer.path(METRICS), {})\nd = 'see metrics.json, written last'\n")
    assert metrics_file_checks(source) == [1, 2, 3]
