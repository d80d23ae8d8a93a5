"""The apps and their controls: Explorer, Compare, the dataset picker, the run panel, the time scrubber."""
