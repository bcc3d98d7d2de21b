"""``socialbench sweep``: a plan of models x benchmarks x option axes, run cell by cell.

:mod:`.plan` reads and checks a plan and expands it into cells, :mod:`.cells` runs one cell
(an ordinary ``socialbench eval`` run directory), :mod:`.executors` runs many (in this
process, or as Ray tasks), :mod:`.commands` is the command line.
"""
