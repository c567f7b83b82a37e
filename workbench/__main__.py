"""`python -m workbench` runs the same command line as the `workbench` script."""

from workbench.cli import main

raise SystemExit(main())
