"""The experimental claims of paper 000 (Ziomek, Adachi, Osborne 2024, §7 "Experiments"), as data.

Two experiments: the toy problem (Fig. 2, experiment ``toy``) and the Intel Research temperature data (Fig. 4,
experiment ``sensors``; run on the synthetic stand-in ``pe_sensors``, so the claims about particular days are
*adapted*: "the 7th of March" becomes "one wrong prior"). The paper prints no numbers (spec 000 §5.3): every
claim is an ordering or a behaviour read off Fig. 2 / Fig. 4. Margins and thresholds are boundcheck's reading
of the paper's words [PROPOSED], stated in each claim's ``note``.

Algorithm names are boundcheck's policy ids: ``pe_gp_ucb``, ``mle``, ``fully_bayesian`` (FB),
``regret_balancing`` (RB), ``random``.
"""

from __future__ import annotations

from .empirical import EmpiricalClaim

PAPER = "pe_gp_ucb"
PE, MLE, FB, RB, RANDOM = "pe_gp_ucb", "mle", "fully_bayesian", "regret_balancing", "random"

_TOY = "§7 'Toy Problem', Fig. 2a"
_TOY_HIST = "§7 'Toy Problem', Fig. 2b"
_INTEL = "§7 'Intel Temperature Dataset', Fig. 4a"
_INTEL_HIST = "§7 'Intel Temperature Dataset', Fig. 4b"

_SIMILAR = ("'perform similarly' read as: each mean R_T within 25 % of the other's (relative margin 0.25, "
            "[PROPOSED])")
_NOT_BETTER = ("'does not perform better than random search' read as: R_{T/2} of random search at most 10 % "
               "above the algorithm's (a non-inferiority margin of 0.1 [PROPOSED]; 'most iterations' / 'the first "
               "half' read at t = T/2)")


def _c(id, experiment, location, wording, reading, kind, metric, subject, others=(), **kw) -> EmpiricalClaim:
    return EmpiricalClaim(id=id, paper=PAPER, experiment=experiment, location=location, wording=wording,
                          reading=reading, kind=kind, metric=metric, subject=subject, others=tuple(others), **kw)


_ALL_SIMILAR = ("We can see that MLE, Fully Bayesian approach, and Regret Balancing all perform similarly and "
                "outperform Random Search")
_UNDER = "however, still underperform compared to our algorithm PE-GP-UCB"

TOY = (
    _c("toy_mle_beats_random", "toy", _TOY, _ALL_SIMILAR, "E[R_T(MLE) − R_T(random)] < 0", "less", "regret", MLE,
       [RANDOM]),
    _c("toy_fb_beats_random", "toy", _TOY, _ALL_SIMILAR, "E[R_T(FB) − R_T(random)] < 0", "less", "regret", FB,
       [RANDOM]),
    _c("toy_rb_beats_random", "toy", _TOY, _ALL_SIMILAR, "E[R_T(RB) − R_T(random)] < 0", "less", "regret", RB,
       [RANDOM]),
    _c("toy_mle_similar_fb", "toy", _TOY, _ALL_SIMILAR, "R_T(MLE) and R_T(FB) within 25 % of each other in mean",
       "similar", "regret", MLE, [FB], margin=0.25, note=_SIMILAR),
    _c("toy_mle_similar_rb", "toy", _TOY, _ALL_SIMILAR, "R_T(MLE) and R_T(RB) within 25 % of each other in mean",
       "similar", "regret", MLE, [RB], margin=0.25, note=_SIMILAR),
    _c("toy_pe_beats_mle", "toy", _TOY, _UNDER, "E[R_T(PE-GP-UCB) − R_T(MLE)] < 0", "less", "regret", PE, [MLE]),
    _c("toy_pe_beats_fb", "toy", _TOY, _UNDER, "E[R_T(PE-GP-UCB) − R_T(FB)] < 0", "less", "regret", PE, [FB]),
    _c("toy_pe_beats_rb", "toy", _TOY, _UNDER, "E[R_T(PE-GP-UCB) − R_T(RB)] < 0", "less", "regret", PE, [RB]),
    _c("toy_pe_lowest", "toy", _TOY,
       "our algorithm PE-GP-UCB, explores all the priors and swiftly rejects incorrect ones, committing to the true "
       "prior, which results in the lowest regret",
       "R_T(PE-GP-UCB) below each of MLE, FB, RB and random search in mean", "lowest", "regret", PE,
       [MLE, FB, RB, RANDOM], note="the paper's methods only: the oracle (told p*) is a boundcheck reference"),
    _c("toy_mle_stuck", "toy", _TOY_HIST,
       "MLE keeps selecting the same (wrong prior) and gets stuck at suboptimal values",
       "MLE spends most of the late steps (t > T/2) on one wrong prior: mean share > 0.5", "above",
       "late_share_wrong_mode", MLE, threshold=0.5,
       note="'keeps selecting the same wrong prior' read as: over the second half of the run, more than half "
            "of MLE's choices go to a single prior ≠ p* (threshold 0.5 [PROPOSED])"),
    _c("toy_rb_uniform", "toy", _TOY_HIST,
       "Regret Balancing is trying out all of the priors in a roughly uniform manner",
       "RB's prior-usage frequencies within total-variation distance 0.3 of uniform (mean over runs)", "below",
       "share_tv_uniform", RB, threshold=0.3,
       note="'roughly uniform' read as: at most 30 % of the usage mass would have to move to make it uniform "
            "[PROPOSED]"),
    _c("toy_rb_no_commit", "toy", _TOY_HIST,
       "the Regret Balancing scheme will not commit to the true prior and keep exploring indefinitely",
       "RB uses p* in less than half of the late steps (t > T/2): mean share < 0.5", "below", "late_share_truth",
       RB, threshold=0.5),
    _c("toy_pe_commits", "toy", _TOY_HIST,
       "our algorithm PE-GP-UCB, explores all the priors and swiftly rejects incorrect ones, committing to the true "
       "prior", "PE-GP-UCB uses p* in more than half of the late steps (t > T/2): mean share > 0.5", "above",
       "late_share_truth", PE, threshold=0.5),
)

SENSORS = (
    _c("intel_rb_not_better_than_random", "sensors", _INTEL,
       "Regret Balancing scheme severely underperforms and for most iterations does not perform better than random "
       "search", "E[R_{T/2}(random) − 1.1·R_{T/2}(RB)] ≤ 0", "noninferior", "regret@0.5", RANDOM, [RB],
       margin=0.1, note=_NOT_BETTER),
    _c("intel_mle_beats_rb", "sensors", _INTEL, "MLE performs slightly better [than Regret Balancing]",
       "E[R_T(MLE) − R_T(RB)] < 0", "less", "regret", MLE, [RB]),
    _c("intel_mle_not_better_than_random", "sensors", _INTEL,
       "but is still not significantly better than random search in the first half of the experiment",
       "E[R_{T/2}(random) − 1.1·R_{T/2}(MLE)] ≤ 0", "noninferior", "regret@0.5", RANDOM, [MLE], margin=0.1,
       note=_NOT_BETTER),
    _c("intel_fb_beats_mle", "sensors", _INTEL,
       "The Fully Bayesian approach has the advantage of not committing to any particular prior, making it more "
       "robust and outperforming MLE", "E[R_T(FB) − R_T(MLE)] < 0", "less", "regret", FB, [MLE]),
    _c("intel_pe_beats_fb", "sensors", _INTEL,
       "even this strong baseline is outperformed by our algorithm PE-GP-UCB", "E[R_T(PE-GP-UCB) − R_T(FB)] < 0",
       "less", "regret", PE, [FB]),
    _c("intel_pe_beats_fb_early", "sensors", _INTEL, "with the difference especially visible in the beginning",
       "E[R_{T/4}(PE-GP-UCB) − R_{T/4}(FB)] < 0", "less", "regret@0.25", PE, [FB],
       note="'in the beginning' read at t = T/4 [PROPOSED]"),
    _c("intel_mle_commits", "sensors", _INTEL_HIST,
       "we see that MLE commits to the prior coming from the 7th of March",
       "MLE spends most of the late steps (t > T/2) on one wrong prior: mean share > 0.5", "above",
       "late_share_wrong_mode", MLE, threshold=0.5, adapted=True,
       note="adapted to the synthetic stand-in: the days of the stand-in are not the paper's days, so 'the 7th of "
            "March' becomes 'one prior other than the truth'"),
    _c("intel_pe_two_priors", "sensors", _INTEL_HIST,
       "PE-GP-UCB, which mostly relies on priors obtained from the 4th and 12th of March",
       "PE-GP-UCB spends most of its steps on two priors: mean share of its two most used priors > 0.5", "above",
       "top2_share", PE, threshold=0.5, adapted=True,
       note="adapted to the synthetic stand-in: 'the 4th and 12th of March' becomes 'two priors'"),
)

EMPIRICAL = TOY + SENSORS
