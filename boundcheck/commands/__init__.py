"""Every command of boundcheck as a function, one module per command (``verify``, ``power``, ``sweep``,
``reproduce``, ``inspect``: list/show/bound/gamma, ``scenario``, ``store``, ``report``), beside ``resolve`` (names
to objects), ``usercode`` (loading a user's code) and ``session`` (what every command does around its work).

:mod:`boundcheck.api` re-exports the public ones; the CLI (:mod:`boundcheck.cli`) renders what they return."""
