"""``python -m mctslab``: the ``mctslab`` command."""

from mctslab.cli import main

main()
