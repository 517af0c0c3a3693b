"""``python -m mctslab``: the ``mctslab`` command."""

from mctslab.cli.main import main

main()
