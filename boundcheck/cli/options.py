"""What the commands' parsers share: one-line parse errors, the number flags (``1e6``, ``10^6``, ``1_000``), the
flags several commands take (declared once in :data:`FLAGS`, each command giving its own help text), the theorem
argument (``--theorem`` everywhere) and the exit-code texts of ``--help``, generated from
:class:`~boundcheck.errors.ExitCode`."""

from __future__ import annotations

import argparse
import re
import textwrap

from ..errors import BoundcheckError, ExitCode


class Parser(argparse.ArgumentParser):
    """One-line errors (argparse prints usage over several lines), and an epilog built only when help is shown
    (``epilog_fn``: listing theorems needs the theory registry)."""

    def __init__(self, *args, epilog_fn=None, **kwargs) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self._epilog_fn = epilog_fn

    def format_help(self) -> str:
        if self._epilog_fn is not None:
            self.epilog = self._epilog_fn()
        return super().format_help()

    def error(self, message: str) -> None:
        sub = self.prog.removeprefix("boundcheck").strip()
        raise BoundcheckError(f"{sub + ': ' if sub else ''}{message} (see `{self.prog} --help`)")


def integer(text: str) -> int:
    """An integer flag: ``200``, ``-1``, ``1_000``, ``1e6`` or ``10^6`` (exact integers only: ``2.5`` fails).

    ASCII digits only (``５``, a full-width digit, is refused although Python's ``int`` takes it), underscores
    only between groups of three digits (``1_000``; ``1_0`` is refused). Larger than 10⁴⁰⁰ reads as 10⁴⁰⁰: every
    setting refuses far less (:func:`boundcheck.utils.validation.check_int`), before any float could overflow."""
    t = text.strip()
    if "_" in t:  # digit grouping: 1_000_000
        if not re.fullmatch(r"[+-]?[0-9]{1,3}(_[0-9]{3})+", t, flags=re.ASCII):
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer (underscores only between groups of "
                                             f"three digits: 1_000)")
        t = t.replace("_", "")
    value = None
    m = re.fullmatch(r"([+-]?[0-9]+)\^([0-9]+)", t, flags=re.ASCII)
    if m:
        if int(m.group(2)) <= 400:
            value = int(m.group(1)) ** int(m.group(2))
    elif re.fullmatch(r"[+-]?[0-9]+", t, flags=re.ASCII):
        value = int(t) if len(t) <= 400 else 10**400
    else:
        m = re.fullmatch(r"([+-]?[0-9]+(?:\.[0-9]*)?)[eE]\+?([0-9]+)", t, flags=re.ASCII)
        if m and int(m.group(2)) <= 400:
            mant, exp = m.group(1), int(m.group(2))
            whole, _, frac = mant.partition(".")
            frac = frac.rstrip("0")
            if len(frac) <= exp:
                value = int(whole + frac + "0" * (exp - len(frac))) if whole.lstrip("+-") else 0
        elif m:
            value = 10**400  # an exponent above 400: far too large, refused below
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
    return value  # its range (at most 2⁶³ − 1 for every count) is checked by boundcheck.utils.validation
integer.__name__ = "integer"  # argparse names the type in its message


def real(text: str) -> float:
    """A number flag: ``0.1``, ``-2``, ``1e-3``, ``.5``, ``1_000.5``; ``inf`` and ``nan`` are read (each setting
    refuses them by name). ASCII digits only, as :func:`integer` (Python's ``float`` takes ``０.１``, full-width
    digits), underscores only between groups of three digits of the integer part."""
    t = text.strip()
    number = r"[+-]?(?:(?:[0-9]{1,3}(?:_[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    if not (re.fullmatch(number, t, flags=re.ASCII)
            or re.fullmatch(r"[+-]?(?:inf|infinity|nan)", t, flags=re.ASCII | re.IGNORECASE)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    return float(t.replace("_", ""))
real.__name__ = "number"


JOBS_HELP = ("worker processes, or -1 for all cores; at most 4096, and never more than the cores or the chunks to run "
             "(default: -1)")
BACKENDS = ["loky", "threading", "dask"]

#: the flags several commands take: how each is read (its help text is the command's own)
FLAGS: dict[str, dict] = {
    "theorem": {}, "scenario": {}, "runs": {"type": integer}, "horizon": {"type": integer},
    "delta": {"type": real}, "seed": {"type": integer}, "jobs": {"type": integer}, "backend": {"choices": BACKENDS},
    "scheduler": {"metavar": "ADDR"}, "beta_scale": {"type": real, "metavar": "C"},
    "false_alarm": {"type": real, "metavar": "A"}, "until_conclusive": {"action": "store_true"},
    "max_runs": {"type": integer, "metavar": "N"}, "allow_out_of_theory": {"action": "store_true"},
    "defect": {"action": "append", "metavar": "NAME"}, "max_memory": {"metavar": "SIZE"},
    "config": {"metavar": "FILE"}, "out": {"metavar": "DIR"}, "json": {"action": "store_true"},
    "no_report": {"action": "store_true"}, "algorithm": {"action": "append", "metavar": "FILE.py:CLASS"},
    "no_conformance": {"action": "store_true"}, "policy_timeout": {"type": real, "metavar": "SECONDS"},
    "allow_incomplete": {"action": "store_true"},
}


def add_flags(parser: argparse.ArgumentParser, **helps: str | tuple[str, dict]) -> None:
    """Add the flags named (keys of :data:`FLAGS`), in the order given, each with its help text; a value
    ``(help, {"default": ...})`` adds to how it is read."""
    for name, spec in helps.items():
        text, extra = (spec, {}) if isinstance(spec, str) else spec
        parser.add_argument(f"--{name.replace('_', '-')}", dest=name, help=text, **{**FLAGS[name], **extra})


THEOREM_HELP = "theorem id (see `boundcheck list`) or FILE.py:NAME, a theorem of your own"


def add_theorem(parser: argparse.ArgumentParser) -> None:
    """``--theorem THEOREM``, and ``THEOREM`` alone as its shorthand (``show``, ``bound``: the design's contract)."""
    parser.add_argument("theorem_shorthand", nargs="?", metavar="THEOREM",
                        help="the same as --theorem THEOREM (one of them required)")
    parser.add_argument("--theorem", help=THEOREM_HELP)


def theorem_of(args: argparse.Namespace) -> str:
    """The theorem of a command that takes it either way (:func:`add_theorem`)."""
    flag, short = args.theorem, args.theorem_shorthand
    if flag is not None and short is not None and flag != short:
        raise BoundcheckError(f"{args.command}: two theorems, {short} and --theorem {flag}: give one")
    if flag is None and short is None:
        raise BoundcheckError(f"{args.command} needs --theorem THEOREM (see `boundcheck list`)")
    return flag if flag is not None else short


def exit_codes_text(meanings: dict[ExitCode, str | None]) -> str:
    """The ``exit codes:`` block of a command's ``--help``: each code given, with its own meaning (None: the
    :class:`~boundcheck.errors.ExitCode` member's)."""
    lines = ["exit codes:"]
    for code, meaning in meanings.items():
        lines += textwrap.wrap(meaning or code.meaning, width=112, initial_indent=f"  {int(code):<5}",
                               subsequent_indent=" " * 7, break_on_hyphens=False)
    return "\n".join(lines)


#: the codes every command that computes ends with when it stops early, as verify's
STOPPED = dict.fromkeys((ExitCode.INTERNAL_ERROR, ExitCode.INTERRUPTED, ExitCode.BROKEN_PIPE))
#: the exit codes of verify (every member of ExitCode)
EXIT_CODES_HELP = exit_codes_text(dict.fromkeys(ExitCode))
#: the exit codes of the commands that only read or compute (list, show, bound, gamma, scenario, report)
EXIT_CODES_SIMPLE = exit_codes_text({
    ExitCode.OK: "done", ExitCode.BAD_INPUT: None, ExitCode.INTERNAL_ERROR: None,
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C)",
    ExitCode.BROKEN_PIPE: "broken pipe: the output's reader stopped reading (| head)"})
