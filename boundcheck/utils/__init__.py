"""The bottom layer every other package of ``boundcheck`` may use: input validation (one module, as
``sklearn.utils.validation``), content fingerprints for resumable studies, and atomic file writes."""
