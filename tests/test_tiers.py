"""The fast tier (``make test-fast``, ``pytest -m "not slow"``) leaves out what tests/conftest.py names as slow:
every name there must still be in the project, or a renamed slow test would slip into the fast tier."""
import ast

from conftest import SLOW_MODULES, SLOW_TESTS
from locations import TESTS


def defined(module: str) -> set[str]:
    """The top-level functions (tests and fixtures) of test module ``module``."""
    (path,) = TESTS.rglob(f"{module}.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_slow_module_exists():
    assert sorted(m for m in SLOW_MODULES if not list(TESTS.rglob(f"{m}.py"))) == []


def test_every_slow_test_or_fixture_is_in_its_module():
    assert sorted(f"{module}: {name}" for module, names in SLOW_TESTS.items()
                  for name in names - defined(module)) == []
