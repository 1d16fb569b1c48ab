# SPDX-License-Identifier: MIT
from typing import Optional, Sequence

import numpy as np
import numpy.typing as npt

class Embedder:
    # The torch-free engine on the CPU: device must be "cpu" (ValueError otherwise; a GPU is
    # `morpheus-torch embed --device cuda`). embed() returns float32 rows.
    def __init__(
        self, path: str, device: str = "cpu", batch_size: int = 16384, threads: int = 1
    ) -> None: ...
    def embed(self, words: Sequence[str]) -> npt.NDArray[np.float32]: ...
    @property
    def dim(self) -> int: ...
    @property
    def device(self) -> str: ...
    @property
    def path(self) -> str: ...
