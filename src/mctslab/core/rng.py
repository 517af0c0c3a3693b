"""The one random generator of mctslab: SplitMix64.

Both search engines draw every random number from this generator, so that the
compiled engine (numba) and the reference engine (Python) can make the same
choices from the same seed. SplitMix64 is Steele, Lea and Flood's generator
("Fast splittable pseudorandom number generators", OOPSLA 2014), the one Java's
``SplittableRandom`` uses: a 64-bit counter advanced by the golden-ratio
increment, then mixed.

The integer draw ``randint(n)`` takes the top 31 bits of the output modulo
``n`` (bias below ``n / 2**31``, negligible for game move counts); the float
draw ``random()`` takes the top 53 bits. A compiled engine implements the same
three functions over a ``uint64`` word.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["Rng"]

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MUL1 = 0xBF58476D1CE4E5B9
_MUL2 = 0x94D049BB133111EB

T = TypeVar("T")


class Rng:
    """A seeded SplitMix64 generator.

    >>> a, b = Rng(42), Rng(42)
    >>> [a.randint(10) for _ in range(5)] == [b.randint(10) for _ in range(5)]
    True
    """

    __slots__ = ("state",)

    def __init__(self, seed: int = 0) -> None:
        self.state = seed & _MASK

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * _MUL1) & _MASK
        z = ((z ^ (z >> 27)) * _MUL2) & _MASK
        return z ^ (z >> 31)

    def randint(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` for ``1 <= n < 2**31``."""
        # next_u64 written out: this is the playouts' hot path.
        z = self.state = (self.state + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * _MUL1) & _MASK
        z = ((z ^ (z >> 27)) * _MUL2) & _MASK
        return ((z ^ (z >> 31)) >> 33) % n

    def random(self) -> float:
        """A uniform float in ``[0, 1)``."""
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)

    def normal(self) -> float:
        """A standard normal draw (Box and Muller 1958: two uniform draws, the cosine half)."""
        u1 = 1.0 - self.random()  # in (0, 1]: its log is finite
        u2 = self.random()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def gamma(self, alpha: float) -> float:
        """A Gamma(``alpha``, 1) draw, ``alpha > 0`` (Marsaglia and Tsang 2000, "A simple
        method for generating gamma variables"; for ``alpha < 1`` the boost
        ``Gamma(alpha + 1) * U ** (1 / alpha)``)."""
        if alpha < 1.0:
            u = 1.0 - self.random()
            boost: float = u ** (1.0 / alpha)
            return self.gamma(alpha + 1.0) * boost
        d = alpha - 1.0 / 3.0
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            x = self.normal()
            v = 1.0 + c * x
            if v <= 0.0:
                continue
            v = v * v * v
            u = 1.0 - self.random()
            if u < 1.0 - 0.0331 * x**4 or math.log(u) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
                return d * v

    def gumbel(self) -> float:
        """A standard Gumbel draw, ``-log(-log(u))`` with ``u`` uniform in ``(0, 1)`` (the
        53-bit draw plus half a step, so that neither logarithm meets 0)."""
        u = ((self.next_u64() >> 11) + 0.5) * (1.0 / 9007199254740992.0)
        return -math.log(-math.log(u))

    def dirichlet(self, alpha: float, k: int) -> list[float]:
        """A draw from the symmetric Dirichlet distribution ``Dir(alpha, ..., alpha)`` over
        ``k`` outcomes (normalised Gamma draws): AlphaZero's root exploration noise."""
        draws = [self.gamma(alpha) for _ in range(k)]
        total = sum(draws)
        if total <= 0.0:  # every draw underflowed (a tiny alpha): all the mass on one
            return [1.0 if i == 0 else 0.0 for i in range(k)]
        return [g / total for g in draws]

    def choice(self, items: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        return items[self.randint(len(items))]

    def spawn(self) -> Rng:
        """An independent generator seeded from this one (for sub-searches)."""
        return Rng(self.next_u64())
