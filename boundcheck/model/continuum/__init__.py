"""Compact (box) domains: the truths of continuum GP-bandit studies, evaluable anywhere, each with its error
stated and proven (quadrature features of the SE kernel, exact sample paths, RKHS expansions, certified maxima,
certified information-gain bounds) and the exact batched posterior at any points (``posterior``)."""

from .box import Box, MaxCertificate, certified_maximum, local_ascent
from .features import QuadratureFeatures, TailConstants
from .gamma import gamma_upper_features, gamma_upper_se
from .paths import FeaturePaths
from .rkhs import RKHSExpansion

__all__ = ["Box", "MaxCertificate", "certified_maximum", "local_ascent", "QuadratureFeatures", "TailConstants",
           "FeaturePaths", "RKHSExpansion", "gamma_upper_features", "gamma_upper_se"]
