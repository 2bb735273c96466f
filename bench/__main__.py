"""`python -m bench`: bench/run.py's main."""

from bench.run import main

main()
