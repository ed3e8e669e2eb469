"""`python -m pipeline` starts the command line (pipeline/cli.py), so the pipeline runs as a module."""

from pipeline.cli import main

main()
