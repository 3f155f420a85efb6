"""What every command's --help prints, read from the command tree itself."""
import re

import click

from experiments.cli import main

#: A time the code would guess: "(seconds)", "about 40 s", "20-40 s". How long a step takes depends on the
#: machine and its load; measured times are cited in the docs, with the machine and the date.
GUESSED_TIME = re.compile(r"\((?:seconds|minutes|hours)\)|\babout \d+ ?(?:s|min|h)\b|\b\d+ ?[-–] ?\d+ ?(?:s|min)\b")


def every_command(command: click.Command, path: tuple[str, ...] = ("isarcasm",)):
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from every_command(sub, (*path, name))


def test_no_help_text_prints_a_guessed_time():
    commands = list(every_command(main))
    assert len(commands) > 20  # the whole tree, subgroups' commands included
    guesses = {" ".join(path): found.group() for path, command in commands
               if (found := GUESSED_TIME.search(command.get_help(click.Context(command, info_name=path[-1]))))}
    assert guesses == {}
