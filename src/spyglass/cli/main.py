"""The `spyglass` command line (docs in README.md): parse, dispatch, exit codes."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from spyglass.cli.args import EXIT_FAIL, EXIT_OK, EXIT_USAGE, build_parser
from spyglass.errors import BadInput, SpyglassError


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        from spyglass.cli import commands
        return commands.run(args)
    except SpyglassError as exc:
        code = EXIT_USAGE if isinstance(exc, BadInput) else EXIT_FAIL
        sys.stderr.write(f"spyglass: {exc}\n")
        return code
    except KeyboardInterrupt:
        sys.stderr.write("spyglass: interrupted\n")
        return EXIT_FAIL
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
