"""The model layer: kernels, finite domains, GP priors and RKHS families, exact samplers, the batched posterior
engine, information gains and certified γ brackets. Imports only ``utils`` (and ``errors``)."""
