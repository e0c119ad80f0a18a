"""`python -m spyglass`: the command line."""

from spyglass.cli.main import main

raise SystemExit(main())
