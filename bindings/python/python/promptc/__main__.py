"""``python -m promptc``: the promptc command line."""

from promptc._cli import main

main()
