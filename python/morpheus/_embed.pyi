# SPDX-License-Identifier: MIT
from typing import Optional, Sequence

import numpy as np
import numpy.typing as npt

class Embedder:
    def __init__(
        self, path: str, device: str = "cpu", batch_size: int = 16384, threads: int = 0
    ) -> None: ...
    def embed(self, words: Sequence[str]) -> npt.NDArray[np.float32]: ...
    @property
    def dim(self) -> int: ...
    @property
    def path(self) -> str: ...
