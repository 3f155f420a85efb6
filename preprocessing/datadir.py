"""Where the data lives: ``--data-dir`` > ``$ISARCASM_DATA`` > ``./data``.

``./data`` is the project's own (git-ignored) folder, which ``make demo``
fills: it is found from the working directory first, then, when the package
runs from a checkout (``pip install -e .``), beside the package, so commands
run from another folder still find it.
"""
from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "ISARCASM_DATA"
#: ``data/`` of the checkout this package was installed from (an editable install).
CHECKOUT_DATA = Path(__file__).resolve().parent.parent / "data"


def resolve_data_dir(option: str | Path | None = None) -> Path:
    if option:
        return Path(option).expanduser()
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    here = Path.cwd() / "data"
    if not here.is_dir() and CHECKOUT_DATA.is_dir():
        return CHECKOUT_DATA
    return here
