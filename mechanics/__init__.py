"""The exact dice-mechanics engine: pure functions and immutable values, no I/O.

Probabilities are exact (integer weights or Fractions) wherever the answer is
rational; dφ, whose chances are values of the normal CDF Φ, uses floats.
Randomness is always injected by the caller.
"""

from mechanics.distribution import Distribution

__all__ = ["Distribution"]
