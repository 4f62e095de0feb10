"""Normalised cross-correlation of small squares, in batches: a query turned and scaled
to many poses at once, each pose's square against one taught square, over every shift
within a slack (one batched FFT) or within a pixel of where an earlier, coarser
comparison found it best (nine shifts, summed directly).  Teach mode's second stage
(vision/teach_marks.py) compares a die's ink with its taught views' so.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import scipy.fft


@dataclass(frozen=True)
class Squares:
    """Taught views' squares of ink, zero-mean, kept as they are and as the conjugates of
    their FFTs, for normalised cross-correlation with a query's squares in batches
    (:meth:`scores`, and :meth:`near` where each row's shift is known to a pixel or two)."""

    squares: np.ndarray  # views × side × side, zero-mean, float32
    spectra: np.ndarray  # views × size × (size // 2 + 1), complex
    norms: np.ndarray  # each square's root sum of squares
    side: int  # a square's side, pixels
    slack: int  # how far the query's square may be off, either way, pixels
    stride: int  # view pixels per pixel of a square

    @classmethod
    def of(cls, squares: list[np.ndarray], slack: int, stride: int) -> Squares:
        stack = np.stack(squares).astype(np.float32)
        stack = stack - stack.mean(axis=(1, 2), keepdims=True)
        side = stack.shape[1]
        size = scipy.fft.next_fast_len(side + 2 * slack, real=True)
        spectra = np.conj(scipy.fft.rfft2(stack, s=(size, size))).astype(np.complex64)
        return cls(stack, spectra, np.sqrt((stack**2).sum(axis=(1, 2))), side, slack, stride)

    def _posed(
        self,
        source: np.ndarray,
        centre: tuple[float, float],
        at: np.ndarray,
        big: int,
        seeds: np.ndarray | None = None,
    ) -> np.ndarray:
        """``source`` turned and scaled by ``at[i]`` (turn, scale) around ``centre``, a
        ``big`` × ``big`` square per row (centred on the row's seed (x, y), square pixels,
        where given), sampled with one remap: rows × big × big."""
        offsets = (np.arange(big, dtype=np.float32) - (big - 1) / 2) * self.stride
        c = (np.cos(at[:, 0]) * at[:, 1]).astype(np.float32)[:, None, None]
        s = (np.sin(at[:, 0]) * at[:, 1]).astype(np.float32)[:, None, None]
        dx, dy = offsets[None, None, :], offsets[None, :, None]
        if seeds is not None:
            moved = (seeds * self.stride).astype(np.float32)
            dx, dy = dx + moved[:, None, None, 0], dy + moved[:, None, None, 1]
        map_x = (centre[0] + c * dx - s * dy).reshape(-1, big)
        map_y = (centre[1] + s * dx + c * dy).reshape(-1, big)
        posed = cv2.remap(source, map_x, map_y, cv2.INTER_LINEAR, borderValue=0.0)
        return np.asarray(posed).reshape(len(at), big, big)

    def _normalised(self, posed: np.ndarray, dots: np.ndarray, views: np.ndarray) -> np.ndarray:
        """``dots`` (rows × shifts × shifts: each view's square against the ``posed`` square
        whose corner is there) over the two squares' spreads: their normalised
        cross-correlations.  The posed squares' sums come from integral images."""
        count, big, shifts, side = len(posed), posed.shape[1], dots.shape[1], self.side
        flat = posed.reshape(-1, big)

        def box(integral: np.ndarray) -> np.ndarray:  # sums over every side × side square
            # each square's rows of the integral image, and the row after them (the next
            # square's first): views that overlap by a row
            step, across = integral.strides
            rows = np.lib.stride_tricks.as_strided(
                integral, (count, big + 1, big + 1), (big * step, step, across), writeable=False
            )
            near, far = slice(0, shifts), slice(side, side + shifts)
            return np.asarray(rows[:, far, far] - rows[:, near, far] - rows[:, far, near]
                              + rows[:, near, near])  # fmt: skip

        total, energy = box(cv2.integral(flat)), box(cv2.integral(flat * flat))
        spread = np.sqrt(np.maximum(energy - total**2 / (side * side), 1e-12))
        norms = np.maximum(self.norms[views], 1e-12)[:, None, None]
        return np.asarray(dots / (spread * norms))

    @staticmethod
    def _best(scores: np.ndarray, seeds: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Each row's best score over its shifts, and that shift (x, y), square pixels."""
        count, shifts = scores.shape[0], scores.shape[1]
        flat = scores.reshape(count, -1).argmax(axis=1)
        found = np.stack([flat % shifts, flat // shifts], axis=1) - shifts // 2
        if seeds is not None:
            found = found + seeds
        return scores.reshape(count, -1)[np.arange(count), flat], found

    def scores(
        self, source: np.ndarray, centre: tuple[float, float], at: np.ndarray, views: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Row ``i``: view ``views[i]`` against ``source`` turned and scaled by ``at[i]``
        (turn, scale) around ``centre``, the best normalised cross-correlation over the
        shifts the slack allows, and that shift (x, y, square pixels).  The correlations at
        every shift come from one batched FFT (the square fits its FFT unwrapped, so these
        are the direct sums)."""
        side, slack = self.side, self.slack
        big, shifts, size = side + 2 * slack, 2 * slack + 1, self.spectra.shape[1]
        posed = self._posed(source, centre, at, big)
        spectra = scipy.fft.rfft2(posed, s=(size, size))
        dots = scipy.fft.irfft2(spectra * self.spectra[views], s=(size, size))
        dots = dots[:, :shifts, :shifts]  # templates are zero-mean: no mean to take off
        return self._best(self._normalised(posed, dots, views), None)

    def near(
        self,
        source: np.ndarray,
        centre: tuple[float, float],
        at: np.ndarray,
        views: np.ndarray,
        seeds: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`scores`, over the shifts within a pixel of each row's ``seeds`` (x, y,
        square pixels: where an earlier comparison found the best shift), kept within the
        slack: nine shifts, summed directly, cost a fraction of the FFT's 49."""
        seeds = np.clip(np.asarray(seeds, np.intp), 1 - self.slack, self.slack - 1)
        side = self.side
        posed = self._posed(source, centre, at, side + 2, seeds)
        dots = np.empty((len(at), 3, 3), np.float32)
        taught = self.squares[views]
        for i in range(3):
            for j in range(3):
                dots[:, i, j] = np.einsum("nyx,nyx->n", posed[:, i : i + side, j : j + side],
                                          taught)  # fmt: skip
        return self._best(self._normalised(posed, dots, views), seeds)
