# SPDX-License-Identifier: MIT
from typing import Optional, Sequence

import numpy as np
import numpy.typing as npt

class Embedder:
    # device: "cpu", "auto" (first CUDA device if LibTorch has CUDA and sees one, else "cpu"),
    # "cuda" or "cuda:N" (RuntimeError without CUDA). The CUDA path is compiled but untested:
    # Debian's libtorch-dev is CPU-only. embed() always returns CPU float32 rows.
    def __init__(
        self, path: str, device: str = "cpu", batch_size: int = 16384, threads: int = 0
    ) -> None: ...
    def embed(self, words: Sequence[str]) -> npt.NDArray[np.float32]: ...
    @property
    def dim(self) -> int: ...
    @property
    def device(self) -> str: ...
    @property
    def path(self) -> str: ...
