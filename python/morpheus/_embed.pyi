# SPDX-License-Identifier: MIT
from typing import Dict, List, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

class Embedder:
    # The torch-free engine on the CPU: device must be "cpu" (ValueError otherwise; a GPU is
    # `morpheus-torch embed --device cuda`). embed() returns float32 rows.
    def __init__(
        self, path: str, device: str = "cpu", batch_size: int = 16384, threads: int = 1
    ) -> None: ...
    # part: "full" or the name of one of `parts` (ValueError naming them otherwise).
    def embed(self, words: Sequence[str], part: str = "full") -> npt.NDArray[np.float32]: ...
    @property
    def parts(self) -> List[Dict[str, Union[str, int]]]: ...
    @property
    def dim(self) -> int: ...
    @property
    def device(self) -> str: ...
    @property
    def path(self) -> str: ...
