"""Effort: where the hours, the tokens and the money of each task went.

transcripts.py reads the agents' transcript lines into counts, paths.py says which files
may be read at all, reader.py reads one bounded step of a file, intervals.py replays a
task's events into time figures. The writes are in effort/services.py, the
figures the board and MCP show in figures.py.
"""
