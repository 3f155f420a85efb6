"""Where the tests find the project and their committed fixtures, wherever in tests/ a test file lives."""
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
#: Every folder holding tests.  Their module names are unique, so a test may reuse another's tiny
#: fixtures by name (``from test_models import small_config``) once these are on ``sys.path``.
TEST_FOLDERS = sorted({path.parent for path in TESTS.rglob("test_*.py")})
