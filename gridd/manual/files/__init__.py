"""The section 5 pages: the files gridd writes (accounting, reporting, the schedule file)
and the configuration formats qconf reads and shows."""
