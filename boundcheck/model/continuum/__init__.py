"""Compact (box) domains: the GP model on X = [low, high]^d."""
