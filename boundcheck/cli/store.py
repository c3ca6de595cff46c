"""``boundcheck store check|repair DIR``: its parser and its output (what verifies, what was repaired)."""

from __future__ import annotations

from .. import api
from ..errors import ExitCode
from . import render
from .options import add_flags, exit_codes_text

#: store's exit codes: 1 and 5 with meanings of its own
EXIT_CODES_STORE = exit_codes_text({
    ExitCode.OK: "check: everything recorded verifies; repair: repaired, or nothing to repair",
    ExitCode.VIOLATED: "check: damage found (`boundcheck store repair DIR` fixes it)",
    ExitCode.BAD_INPUT: "bad input: DIR is not a boundcheck results folder (one line on stderr)",
    ExitCode.INCOMPLETE: "cannot be repaired: no readable manifest.json and no store.json, so nothing proves which "
                         "configuration the chunks belong to (re-run verify into another --out)"})


def add_store(sub) -> None:
    s = sub.add_parser("store", help="check a results folder, or repair a damaged one from its verified chunks",
                       description="check: list what a results folder holds and what of it verifies (writes "
                                   "nothing). repair: rebuild a damaged or lost manifest.json from store.json and "
                                   "the chunks whose sha256 verifies and whose recorded configuration key is the "
                                   "folder's; then re-run the same verify command to recompute the rest.",
                       epilog=EXIT_CODES_STORE)
    s.add_argument("action", choices=["check", "repair"], help="what to do (required)")
    s.add_argument("results_dir", metavar="DIR", help="the --out folder of a verify, or its results/ folder")
    add_flags(s, json="print the result as JSON (default: text)")
    s.set_defaults(func=cmd_store)


def cmd_store(args) -> int:
    result = api.store_check(args.results_dir) if args.action == "check" else api.store_repair(args.results_dir)
    if args.json:
        render.print_json(result)
    else:
        for line in result.get("repaired", []):
            print(f"repaired: {line}")
        for line in result.get("problems", []) if args.action == "check" else []:
            print(f"problem: {line}")
        for what, why in result["refused"].items():
            print(f"not recovered: {what}: {why}")
        print(result["message"])
    # store's own meanings of 1 and 5 (EXIT_CODES_STORE)
    return {"ok": ExitCode.OK, "damaged": ExitCode.VIOLATED}.get(result["status"], ExitCode.INCOMPLETE)

