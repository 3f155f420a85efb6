"""Assertions shared by the tests of several layers."""
import re
import traceback


def one_line(result, pattern: str) -> None:
    """A CLI result that is a user error: no exception escaped, exit code 1, one stderr line matching ``pattern``."""
    assert result.exception is None or isinstance(result.exception, SystemExit), "".join(
        traceback.format_exception(result.exception))
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and re.search(pattern, lines[0]), result.stderr
