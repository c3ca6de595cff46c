"""The claims layer: statistical tests (``stats``), the claim table (``table``: one owner per claim), error
budgets (``budget``) and the theorem families that compute every claim's statistic from simulated runs."""
