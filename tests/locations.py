"""Where the tests find the project and their committed fixtures, wherever in tests/ a test file lives."""
import importlib.util
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
#: Every folder holding tests.  Their module names are unique, so a test may reuse another's tiny
#: fixtures by name (``from test_models import small_config``) once these are on ``sys.path``.
TEST_FOLDERS = sorted({path.parent for path in TESTS.rglob("test_*.py")})


def benchmark_script(name: str):
    """``benchmarks/<name>.py`` loaded as a module (benchmarks/ is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
