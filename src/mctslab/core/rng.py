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

    def choice(self, items: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        return items[self.randint(len(items))]

    def spawn(self) -> Rng:
        """An independent generator seeded from this one (for sub-searches)."""
        return Rng(self.next_u64())
