"""The `spyglass` command line (docs/tools.md): parse, dispatch, exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from spyglass.cli.args import EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, build_parser
from spyglass.errors import BadInput, SpyglassError, input_fault, internal_reason
from spyglass.render import cli_words, escape_text


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, dispatch, and turn every failure into one line on stderr and an exit code:
    2 for bad input (also when found deep inside, e.g. a name the OS cannot take), 1 else."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare `spyglass`: what it can do
        sys.stdout.write(parser.format_help())
        return EXIT_USAGE
    try:
        from spyglass.cli import commands
        return commands.run(args)
    except SpyglassError as exc:
        code = EXIT_USAGE if isinstance(exc, BadInput) else EXIT_FAIL
        sys.stderr.write(f"spyglass: {one_line(str(exc))}\n")
        return code
    except KeyboardInterrupt:  # what was persisted stays: the next run reuses it
        sys.stderr.write("spyglass: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - never a traceback; SPYGLASS_DEBUG shows it
        fault = input_fault(exc)
        if os.environ.get("SPYGLASS_DEBUG"):
            import traceback
            traceback.print_exception(exc, file=sys.stderr)
        sys.stderr.write(f"spyglass: {one_line(fault or internal_reason(exc))}\n")
        return EXIT_USAGE if fault else EXIT_FAIL


def one_line(text: str) -> str:
    """A message for stderr: control characters (newlines, escapes) shown escaped, and
    tools named as the command line spells them."""
    return escape_text(cli_words(text.strip()))


if __name__ == "__main__":
    raise SystemExit(main())
