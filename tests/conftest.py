import os

os.environ.setdefault("MPLBACKEND", "Agg")
# a figure that raises fails the test that draws it (reports otherwise note it and go on)
os.environ.setdefault("BOUNDCHECK_STRICT_FIGURES", "1")
