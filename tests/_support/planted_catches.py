"""The claims each paper's planted defects must catch at small settings with a fixed seed.

One table per paper: the paper's own tests (tests/papers/<slug>/) run each row, and tests/claims/test_defects.py
reads all of them to show that every defect of the library catches something somewhere.
"""

# every claim in the verdicts of paper 002's theorems, caught by a defect of the library (claims/defects.py), so
# that ``verify --defect`` and ``boundcheck power`` reach it: (theorem, defect) -> claims that must say violated
COMBINATORIAL_CATCHES = {
    ("comb_gp_ucb", "prior_narrow_low"): ["R1_left_term", "R1_conditional", "coverage", "lemma_A4", "lemma_A10",
                                          "K1_innovations", "K2_innovation_norms"],
    ("comb_gp_ucb", "prior_wide"): ["R1_chain_pathwise", "radius_chain"],
    ("comb_gp_ucb", "argmin"): ["decomposition"],
    ("comb_gp_ucb", "beta_small"): ["special_functions"],
    ("comb_gp_ucb", "bound_understated"): ["bayes_regret", "bayes_regret_anytime"],
    ("comb_gp_ts", "prior_narrow_low"): ["R1_left_term", "R1_conditional", "coverage", "K1_innovations"],
    ("comb_gp_ts", "prior_narrow_high"): ["ts_lcb", "ts_identity", "K2_innovation_norms", "lemma_A10"],
    ("comb_gp_ts", "prior_wide"): ["R1_chain_pathwise", "radius_chain"],
    ("comb_gp_ts", "bound_understated"): ["bayes_regret", "bayes_regret_anytime", "lemma_A5"],
    ("comb_gp_ucb_infinite", "discretisation_coarse"): ["lemma_A6"],
    ("comb_gp_ucb_infinite", "lipschitz_understated"): ["lemma_A7"],
    ("comb_gp_ucb_infinite", "prior_narrow"): ["lemma_A4", "K1_innovations", "K2_innovation_norms"],
    ("comb_gp_ucb_infinite", "prior_wide"): ["radius_chain", "lemma_A10"],
    ("comb_gp_ucb_infinite", "argmin"): ["decomposition"],
    ("comb_gp_ucb_infinite", "beta_small"): ["special_functions"],
    ("comb_gp_ucb_infinite", "bound_understated"): ["bayes_regret", "bayes_regret_anytime"],
    ("comb_gp_ucb_infinite", "prior_narrow_low"): ["R1_left_term", "lemma_A4"],
    ("comb_gp_ucb_infinite", "contexts_snapped"): ["lemma_3_2", "lemma_A7"],
    ("comb_gp_bucb_infinite", "contexts_snapped"): ["lemma_3_2"],
    ("comb_gp_ts_infinite", "prior_narrow_low"): ["R1_left_term", "K1_innovations"],
    ("comb_gp_ts_infinite", "prior_narrow_high"): ["ts_lcb", "ts_identity", "K2_innovation_norms", "lemma_A10"],
    ("comb_gp_ts_infinite", "contexts_snapped"): ["lemma_3_2", "lemma_A7"],
    ("comb_gp_ts_infinite", "discretisation_coarse"): ["lemma_A6"],
    ("comb_gp_ts_infinite", "prior_wide"): ["radius_chain"],
    ("comb_gp_ts_infinite", "bound_understated"): ["bayes_regret", "bayes_regret_anytime", "lemma_A5"],
}


# theorem -> (scenario arguments, runs, [(library defect, claims it must catch)]): the wrappers of
# boundcheck/claims/defects.py and boundcheck/papers/et_gp_ucb/defects.py planted in a verify (``verify --defect``),
# each caught where the tests above catch the hand-written subclasses
ET_GP_UCB_CATCHES = {
    "et_gp_ucb": (dict(eps=0.05, horizon=40), 12, [
        ("trigger_post_update", ["algorithm_bookkeeping"]), ("reset_drops_point", ["algorithm_bookkeeping"]),
        ("lazy_trigger", ["algorithm_bookkeeping"]), ("t_prime_off_by_one", ["algorithm_bookkeeping"]),
        ("dropped_observation", ["algorithm_bookkeeping", "information_steps"]), ("argmin", ["regret_decomposition"]),
        ("lemma8_exponent_flipped", ["lemma8_mismatch"])]),
    "et_r_gp_ucb": (dict(eps=0.05, horizon=40), 8, [
        ("period_off_by_one", ["reset_schedule"]), ("lemma8_exponent_flipped", ["lemma8_mismatch"]),
        ("stale_action", ["information_steps", "regret_decomposition"])]),
    "tv_gp_ucb": (dict(eps=0.05, horizon=40), 12, [
        ("eps_told_wrong", ["D3_information", "K1_calibration"]),
        ("no_prediction_step", ["confidence_event", "D3_information", "K1_calibration"]),
        ("bound_understated", ["regret_bound", "regret_bound_anytime"]), ("beta_small", ["D1_optimism"])]),
    "et_trigger": (dict(eps=0.0, horizon=40), 20, [
        ("noise_doubled", ["lemma2_part", "K1_calibration"]),
        ("truth_outside_model", ["false_reset", "lemma1_part", "K1_calibration"]),
        ("trigger_post_update", ["trigger_bookkeeping"])]),
}


#: the paper's own planted defects (boundcheck/papers/r_sw_gp_ucb/defects.py) and the claims each must catch at
#: small settings with a fixed seed (their power at the shipped tables' settings: boundcheck/papers/r_sw_gp_ucb/power/)
R_SW_GP_UCB_CATCHES = {
    "r_gp_ucb": [("restart_late", ["D1_posterior", "D2_information"]),
                 ("norm_understated", ["confidence_event", "confidence_event_block"])],
    "sw_gp_ucb": [("window_off_by_one", ["D1_posterior", "D2_information"]),
                  ("norm_understated", ["confidence_event"])],
}


#: et_gp_ucb_compact (Theorem 1 on a box, tests/papers/et_gp_ucb/test_compact.py): (library defect, the claim it must
#: make violated) at runs = 8, T = 10, seed 1 on its default scenario
ET_GP_UCB_COMPACT_CATCHES = [
    ("beta_small", "optimiser_gap"),  # β too small: x_t is not the argmax of the theorem's UCB
    ("trigger_halved", "algorithm_bookkeeping"),  # the trigger threshold halved
    ("dropped_observation_box", "algorithm_bookkeeping"),  # a dropped observation
    ("prior_lengthscale_wrong", "algorithm_bookkeeping"),  # the wrong prior lengthscale
    ("truth_amplified", "lipschitz_event"),  # the truth amplified (5×): derivatives beyond L_t
]
